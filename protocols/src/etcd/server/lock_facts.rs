//! The lock recipe's bookkeeping: the promoted leader records the lock world's facts — who
//! owns the lock (the lowest create revision under the lock prefix) and until when by its
//! clock, each lock key's create revision (the fencing token) when it commits the key, every
//! counter write it applied or refused; other members record only that they are not
//! authoritative, and a leader that steps down or crashes says so.
//!
//! Every leader, promoted or not, records the tokens of the lock keys it applies: an entry an
//! old leader proposed and the new one commits with its first entry is applied before the
//! promotion, and one the old leader had applied already is announced again with the same key
//! (`token_monotonic` knows it again).

use super::{EtcdCtx, EtcdServer, Role};
use crate::etcd::kv::{Order, Range};
use crate::etcd::msg::lock_key;
use crate::lock::LockObs;
use crate::lock::obs::{ClockKind, DeleteCause, Expiry};

/// What this leader last told the checkers about the lock.
#[derive(Default)]
pub(super) struct LockFacts {
    /// The lock owner this leader last recorded: (lease, create revision).
    pub(super) owner: Option<(i64, i64)>,
    /// A lease expiry applied since the owner was last recorded (so its deletion reads as one).
    pub(super) just_expired: Option<i64>,
}

impl EtcdServer {
    /// Whether this member speaks for the lock now, and in which role.
    pub(super) fn record_role(&self, ctx: &mut EtcdCtx<'_>, authoritative: bool, role: &'static str) {
        self.record(
            ctx,
            LockObs::RoleChanged {
                authoritative,
                role: role.into(),
            },
        );
    }

    /// A lock key `lease` created at revision `my_rev` has just been applied. With revision
    /// tokens, its create revision is granted here, at the commit, whenever its client gets to
    /// read the answer. A leader not yet promoted records it too: it may be committing an old
    /// leader's entry that nobody recorded, and a grant announced twice (the old leader had
    /// applied it) names the same key, which the checker knows again.
    pub(super) fn record_token(&self, ctx: &mut EtcdCtx<'_>, lease: i64, my_rev: i64) {
        if self.role == Role::Leader && self.cfg.revision_tokens {
            let grant = LockObs::TokenIssued {
                token: my_rev as u64,
                lease: Some(lease as u64),
            };
            self.record(ctx, grant);
        }
    }

    /// As leader: records a change of lock owner (lowest create revision under the prefix).
    pub(super) fn record_owner(&mut self, ctx: &mut EtcdCtx<'_>) {
        let owner = self
            .kv
            .range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1))
            .first()
            .map(|kv| (kv.lease, kv.create_revision));
        let expired = self.facts.just_expired.take();
        if owner == self.facts.owner {
            return;
        }
        if let Some((old, _)) = self.facts.owner
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
            let expiry = self.lessor.deadlines.get(&lease).map(|d| Expiry {
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
        self.facts.owner = owner;
    }
}
