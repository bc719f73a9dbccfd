//! Taking the lock: an attempt sends the acquire to every server at once, collects the
//! answers, then decides in a step of its own by quorum and validity (Redlock's
//! `ttl - elapsed - drift`); a failed attempt unlocks and backs off.

use locksim_sim::rng::uniform;

use super::{ClientCtx, DECIDE, LockClient, Phase, RENEW, STEP};
use crate::lock::LockObs;
use crate::lock::knobs::{Acquire, ElapsedClock, FencingTokens};
use crate::lock::obs::Deadline;
use crate::redis::cmd::{Cmd, Key, Reply, Value};
use crate::redis::msg::Msg;

impl LockClient {
    pub(super) fn begin_round(&mut self, ctx: &mut ClientCtx<'_>) {
        // A fresh random lease per round (never 0, which means "no lease" to the checkers).
        self.lease = uniform(ctx.rng(), 0, u64::MAX) | 1;
        self.attempt = 0;
        self.try_acquire(ctx);
    }

    pub(super) fn try_acquire(&mut self, ctx: &mut ClientCtx<'_>) {
        self.attempt += 1;
        self.token = None;
        // The start time is read first, as redlock-py does before its first SET: a clock
        // fault placed `after = "acquire_started"` falls inside the measured interval.
        self.acquire_sent_mono_ns = ctx.mono_ns();
        self.acquire_sent_wall_ns = ctx.wall_ns();
        ctx.record(LockObs::AcquireStarted {
            lease: self.lease,
            attempt: self.attempt,
        });
        self.phase = Phase::Acquiring;
        let (key, value) = (Key::Lock, Value::Lease(self.lease));
        let px_ms = self.cfg.ttl_ns / 1_000_000;
        let cmd = match (self.cfg.fencing_tokens, self.cfg.acquire) {
            (FencingTokens::Incr, acquire) => Cmd::AcquireWithToken {
                key,
                value,
                px_ms: (acquire == Acquire::SetNxPx).then_some(px_ms),
                fence: Key::Fence,
            },
            (_, Acquire::SetNxPx) => Cmd::SetNxPx { key, value, px_ms },
            (_, Acquire::SetNxThenExpire) => Cmd::SetNx { key, value },
        };
        self.broadcast(ctx, cmd, self.service.per_node_timeout_ns);
    }

    /// Every server answered, or the per-node timeout passed: decide in a step of its own.
    pub(super) fn collected(&mut self, ctx: &mut ClientCtx<'_>) {
        ctx.record(LockObs::AcquireReplies {
            granted: self.granted,
            answered: self.answered,
        });
        self.phase = Phase::Deciding;
        ctx.set_timer(DECIDE, 0);
    }

    pub(super) fn decide(&mut self, ctx: &mut ClientCtx<'_>) {
        let elapsed_ns = match self.service.elapsed_clock {
            ElapsedClock::Monotonic => (ctx.mono_ns() - self.acquire_sent_mono_ns) as i64,
            ElapsedClock::Wall => ctx.wall_ns() - self.acquire_sent_wall_ns,
        };
        let validity_ns = validity_ns(self.cfg.ttl_ns, elapsed_ns, self.service.drift_ns);
        let votes = self.granted.count_ones();
        if votes < self.service.quorum || validity_ns <= 0 {
            let why = if votes < self.service.quorum {
                "no quorum"
            } else {
                "quorum, but no validity left"
            };
            ctx.record(LockObs::AcquireFailed {
                lease: self.lease,
                why: why.into(),
                validity_ns,
            });
            if self.granted != 0 || self.service.unlock_all_after_failure {
                // Unlock every instance; nobody waits for the answers.
                let cmd = self.release_cmd();
                self.send_to_all(ctx, cmd);
            }
            return self.backoff(ctx);
        }
        // The validity is a duration handed to the application, which times it from now on
        // its monotonic clock. Measured on the monotonic clock this is `sent + ttl - drift`;
        // on the wall clock, a step during the acquisition moves the deadline by as much.
        self.deadline_mono_ns = ctx.mono_ns() + validity_ns as u64;
        self.holding = true;
        if let Some(counter) = self.service.counter {
            self.phase = Phase::Fetching;
            return self.request(ctx, counter, |req| Msg::Redis {
                req,
                cmd: Cmd::Incr { key: Key::Fence },
            });
        }
        self.announce(ctx);
    }

    pub(super) fn on_token(&mut self, ctx: &mut ClientCtx<'_>, reply: Reply) {
        match reply {
            Reply::Int(t) => {
                self.token = Some(t as u64);
                self.announce(ctx);
            }
            _ => self.release(ctx),
        }
    }

    /// Records `acquired` and goes on.
    pub(super) fn announce(&mut self, ctx: &mut ClientCtx<'_>) {
        ctx.record(LockObs::Acquired {
            lease: self.lease,
            token: self.token,
            validity_ns: self.remaining_ns(ctx),
            deadline_mono_ns: Deadline::Mono(self.deadline_mono_ns),
            servers: self.granted,
        });
        if self.cfg.renew_every_ns > 0 {
            ctx.set_timer(RENEW, self.cfg.renew_every_ns);
        }
        if self.cfg.acquire == Acquire::SetNxThenExpire {
            self.phase = Phase::Expiring;
            let ms = self.cfg.ttl_ns / 1_000_000;
            let server = self.service.servers[0];
            return self.request(ctx, server, |req| Msg::Redis {
                req,
                cmd: Cmd::PExpire { key: Key::Lock, ms },
            });
        }
        self.after_acquired(ctx);
    }

    pub(super) fn backoff(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.service.retry_count > 0 && self.attempt >= self.service.retry_count {
            // The round gives up; the next one starts with a new lease after thinking.
            return self.think(ctx);
        }
        self.phase = Phase::Backoff;
        let base = self.cfg.retry_ns;
        let doubled = base << (self.attempt.saturating_sub(1)).min(2);
        let jitter = uniform(ctx.rng(), 0, base / 2);
        ctx.set_timer(STEP, doubled + jitter);
    }
}

/// The Redis documentation's validity: `ttl - elapsed - drift`, in integer nanoseconds.
/// `elapsed_ns` is negative when a wall clock stepped back more than the acquisition took.
pub fn validity_ns(ttl_ns: u64, elapsed_ns: i64, drift_ns: u64) -> i64 {
    ttl_ns as i64 - elapsed_ns - drift_ns as i64
}

/// Redlock's drift allowance: `ttl * factor + 2 ms`, the factor in parts per million.
pub fn drift_allowance_ns(ttl_ns: u64, factor_ppm: u32) -> u64 {
    (u128::from(ttl_ns) * u128::from(factor_ppm) / 1_000_000) as u64 + 2_000_000
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::time::NS_PER_MS;

    #[test]
    fn redlock_validity_of_the_redis_documentation() {
        // ttl 10000 ms, 50 ms to acquire, drift factor 0.01: 10000 - 50 - (100 + 2) = 9848 ms.
        let drift = drift_allowance_ns(10_000 * NS_PER_MS, 10_000);
        assert_eq!(drift, 102 * NS_PER_MS);
        assert_eq!(
            validity_ns(10_000 * NS_PER_MS, 50 * NS_PER_MS as i64, drift),
            9_848 * NS_PER_MS as i64
        );
        assert!(validity_ns(10_000 * NS_PER_MS, 12_000 * NS_PER_MS as i64, drift) < 0);
        // A wall clock stepped back 5 s during a 50 ms acquisition: 5 s of validity too many.
        assert_eq!(
            validity_ns(10_000 * NS_PER_MS, -4_950 * NS_PER_MS as i64, drift),
            14_848 * NS_PER_MS as i64
        );
    }
}
