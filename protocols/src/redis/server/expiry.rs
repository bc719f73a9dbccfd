//! A server's keys and its clock: active expiry by the server's own clock (a forward
//! wall-clock jump expires keys at once), and the lock-key facts the checkers read.

use super::{EXPIRE, RedisCtx, RedisServer, ServerClock};
use crate::lock::LockObs;
use crate::lock::obs::{ClockKind, DeleteCause, Expiry};
use crate::redis::cmd::{Key, Value};
use crate::redis::store::Entry;

fn lease_of(e: &Entry) -> u64 {
    match e.value {
        Value::Lease(l) => l,
        Value::Int(_) => 0,
    }
}

impl RedisServer {
    /// The server's clock for expiry.
    pub(super) fn now_ns(&self, ctx: &RedisCtx<'_>) -> i64 {
        match self.cfg.clock {
            ServerClock::Wall => ctx.wall_ns(),
            ServerClock::Monotonic => ctx.mono_ns() as i64,
        }
    }

    pub(super) fn expiry_of(&self, e: &Entry) -> Option<Expiry> {
        let clock = match self.cfg.clock {
            ServerClock::Wall => ClockKind::Wall,
            ServerClock::Monotonic => ClockKind::Mono,
        };
        e.expires_at_ns.map(|at_ns| Expiry { clock, at_ns })
    }

    /// Active expiry: removes every key due by the server's clock and re-arms the timer.
    pub(super) fn expire(&mut self, ctx: &mut RedisCtx<'_>) {
        let now_ns = self.now_ns(ctx);
        let mut gone = [None; 2];
        self.store.purge_expired(now_ns, |key, entry| {
            gone[key as usize] = Some(entry);
        });
        for (key, entry) in [Key::Lock, Key::Fence].into_iter().zip(gone) {
            if let Some(entry) = entry {
                if key == Key::Lock {
                    ctx.record(LockObs::KeyExpired {
                        lease: lease_of(&entry),
                    });
                }
                self.replicate(ctx, key, None);
            }
        }
        self.arm(ctx);
    }

    /// Sets the expiry timer for the earliest key, unless it is already set for that or an
    /// earlier instant (an early firing just re-arms). Both clocks run at the same rate, so a
    /// distance on the expiry clock is a valid timer duration until a jump, and a jump re-arms.
    pub(super) fn arm(&mut self, ctx: &mut RedisCtx<'_>) {
        let Some(at_ns) = self.store.earliest_expiry() else {
            return;
        };
        if self.armed_ns.is_some_and(|armed| armed <= at_ns) {
            return;
        }
        self.armed_ns = Some(at_ns);
        // A key expires just after its instant (Redis's rule), so the timer aims 1 ns past it.
        ctx.set_timer(EXPIRE, (at_ns - self.now_ns(ctx) + 1).max(0) as u64);
    }

    pub(super) fn record_lock_change(&self, ctx: &mut RedisCtx<'_>, before: Option<Entry>, cause: DeleteCause) {
        let after = self.store.get(Key::Lock).copied();
        match (before, after) {
            (Some(b), None) => ctx.record(LockObs::KeyDeleted {
                lease: lease_of(&b),
                cause,
            }),
            (b, Some(a)) if b.is_none_or(|b| b.value != a.value) => ctx.record(LockObs::KeySet {
                lease: lease_of(&a),
                expiry: self.expiry_of(&a),
            }),
            (Some(b), Some(a)) if b.expires_at_ns != a.expires_at_ns => ctx.record(LockObs::KeyExtended {
                lease: lease_of(&a),
                expiry: self.expiry_of(&a),
            }),
            _ => {}
        }
    }
}
