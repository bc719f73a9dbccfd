//! The lock recipe's bookkeeping: the promoted leader records the lock world's facts — who
//! owns the lock (the lowest create revision under the lock prefix) and until when by its
//! clock, each lock key's create revision (the fencing token) when it commits the key, every
//! counter write it applied or refused; other members record only that they are not
//! authoritative, and a leader that steps down or crashes says so.

use locksim_sim::LockObs;
use locksim_sim::lock_obs::{ClockKind, DeleteCause, Expiry};

use super::super::kv::{Order, Range};
use super::super::msg::lock_key;
use super::{EtcdCtx, EtcdServer};

impl EtcdServer {
    /// As leader: records a change of lock owner (lowest create revision under the prefix).
    pub(super) fn record_owner(&mut self, ctx: &mut EtcdCtx<'_>) {
        let owner = self
            .kv
            .range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1))
            .first()
            .map(|kv| (kv.lease, kv.create_revision));
        let expired = self.just_expired.take();
        if owner == self.owner {
            return;
        }
        if let Some((old, _)) = self.owner
            && self.kv.get(&lock_key(old)).is_none()
        {
            let fact = if expired == Some(old) {
                LockObs::KeyExpired { lease: old as u64 }
            } else {
                LockObs::KeyDeleted {
                    lease: old as u64,
                    cause: DeleteCause::Release,
                }
            };
            self.record(ctx, fact);
        }
        if let Some((lease, _)) = owner {
            let expiry = self.deadlines.get(&lease).map(|d| Expiry {
                clock: ClockKind::Mono,
                at_ns: *d as i64,
            });
            self.record(
                ctx,
                LockObs::KeySet {
                    lease: lease as u64,
                    expiry,
                },
            );
        }
        self.owner = owner;
    }
}
