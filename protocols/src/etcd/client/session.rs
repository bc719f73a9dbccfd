//! The client's session: what each keep-alive answer tells it of its lease deadline, and
//! closing the session (revoking the lease).

use super::{ClientCtx, DEADLINE_LOOP_NS, EtcdClient, KEEPALIVE, Phase, STEP, SessionDeadline};
use crate::etcd::msg::Request;
use crate::etcd::obs::EtcdEvent;
use crate::lock::LockObs;
use crate::lock::knobs::DeadlineCheck;

impl EtcdClient {
    pub(super) fn kept_alive(&mut self, ctx: &mut ClientCtx<'_>, ttl_ms: i64) {
        let sent_ns = self.keepalives_sent_ns.pop_front();
        if ttl_ms < 0 {
            self.record(
                ctx,
                EtcdEvent::LeaseLost {
                    lease: self.lease as u64,
                },
            );
            ctx.cancel_timer(KEEPALIVE);
            // The session is closed; only an application that looks at it stops.
            if self.holding && self.cfg.deadline_check != DeadlineCheck::Never {
                self.lose(ctx, "its lease is gone (keep-alive answered TTL -1)");
            }
            return;
        }
        if let Some(sent_ns) = sent_ns {
            let deadline = self.session_deadline(sent_ns, ctx.mono_ns(), ttl_ms);
            self.deadline_mono_ns = self.deadline_mono_ns.max(deadline);
            if self.holding {
                self.record(
                    ctx,
                    LockObs::Renewed {
                        deadline_mono_ns: self.deadline_mono_ns,
                    },
                );
            }
        }
    }

    /// The lease deadline a keep-alive (or grant) sent at `sent_ns` and answered at
    /// `received_ns` with `ttl_ms` gives, as the instant the client stops believing it holds.
    pub(super) fn session_deadline(&self, sent_ns: u64, received_ns: u64, ttl_ms: i64) -> u64 {
        let ttl_ns = ttl_ms as u64 * 1_000_000;
        match self.etcd.session_deadline {
            SessionDeadline::FromSend => sent_ns + ttl_ns,
            // `deadlineLoop` closes the session at its first tick with `deadline.Before(now)`.
            SessionDeadline::Clientv3 => ((received_ns + ttl_ns) / DEADLINE_LOOP_NS + 1) * DEADLINE_LOOP_NS,
        }
    }

    pub(super) fn close_session(&mut self, ctx: &mut ClientCtx<'_>) {
        ctx.cancel_timer(KEEPALIVE);
        ctx.cancel_timer(STEP);
        self.phase = Phase::Releasing;
        self.ask(ctx, Request::LeaseRevoke { lease: self.lease });
    }
}
