//! Holding the lock: read the counter, work, check the lease deadline, write value+1 with
//! the token, release (whatever happened, as a `finally` block would), think; and the
//! renewal watchdog meanwhile.

use super::{ClientCtx, LockClient, Phase, RENEW, RENEW_TIMEOUT, STEP};
use crate::lock::LockObs;
use crate::lock::knobs::{DeadlineCheck, Release, Renew};
use crate::lock::resource::ResourceOp;
use crate::redis::cmd::{Cmd, Key, Reply, Value};
use crate::redis::msg::Msg;

impl LockClient {
    pub(super) fn after_acquired(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.cfg.deadline_check == DeadlineCheck::Once && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline had passed when it checked");
        }
        self.phase = Phase::Reading;
        let resource = self.service.resource;
        self.request(ctx, resource, |req| Msg::Resource {
            req,
            op: ResourceOp::Read,
        });
    }

    pub(super) fn finish_work(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.cfg.deadline_check == DeadlineCheck::BeforeWrite && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline passed before the write");
        }
        let value = self.read_value + 1;
        ctx.record(LockObs::WriteSent {
            token: self.token,
            value,
        });
        self.phase = Phase::Writing;
        let op = ResourceOp::Write {
            token: self.token,
            value,
            based_on: self.read_value,
            lease: self.lease,
        };
        let resource = self.service.resource;
        self.request(ctx, resource, |req| Msg::Resource { req, op });
    }

    pub(super) fn remaining_ns(&self, ctx: &ClientCtx<'_>) -> i64 {
        self.deadline_mono_ns as i64 - ctx.mono_ns() as i64
    }

    /// Records the check; true while the lease is still valid by the monotonic clock.
    pub(super) fn check_deadline(&mut self, ctx: &mut ClientCtx<'_>) -> bool {
        let remaining_ns = self.remaining_ns(ctx);
        let ok = remaining_ns > 0;
        ctx.record(LockObs::DeadlineChecked { remaining_ns, ok });
        ok
    }

    pub(super) fn lose(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        ctx.record(LockObs::LockLost { why: why.into() });
        self.release(ctx);
    }

    pub(super) fn release_cmd(&self) -> Cmd {
        match self.cfg.release {
            Release::CompareAndDelete => Cmd::DelIfEq {
                key: Key::Lock,
                value: Value::Lease(self.lease),
            },
            Release::PlainDel => Cmd::Del { key: Key::Lock },
        }
    }

    pub(super) fn release(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = false;
        self.renew_req = 0;
        ctx.cancel_timer(RENEW);
        ctx.cancel_timer(RENEW_TIMEOUT);
        ctx.cancel_timer(STEP);
        ctx.record(LockObs::Released { lease: self.lease });
        self.phase = Phase::Releasing;
        let cmd = self.release_cmd();
        self.broadcast(ctx, cmd, self.cfg.request_timeout_ns);
    }

    pub(super) fn think(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Thinking;
        ctx.set_timer(STEP, self.cfg.think_ns);
    }

    pub(super) fn renew(&mut self, ctx: &mut ClientCtx<'_>) {
        let ms = self.cfg.ttl_ns / 1_000_000;
        let cmd = match self.cfg.renew {
            Renew::Checked => {
                if self.remaining_ns(ctx) <= 0 {
                    return self.lose(ctx, "its lease deadline passed before it could renew");
                }
                Cmd::PExpireIfEq {
                    key: Key::Lock,
                    value: Value::Lease(self.lease),
                    ms,
                }
            }
            Renew::Blind => Cmd::PExpire { key: Key::Lock, ms },
        };
        self.next_req += 1;
        self.renew_req = self.next_req;
        self.renew_sent_mono_ns = ctx.mono_ns();
        ctx.send(
            self.service.servers[0],
            Msg::Redis {
                req: self.renew_req,
                cmd,
            },
        );
        ctx.set_timer(RENEW_TIMEOUT, self.cfg.request_timeout_ns);
    }

    pub(super) fn on_renew_reply(&mut self, ctx: &mut ClientCtx<'_>, reply: Reply) {
        self.renew_req = 0;
        ctx.cancel_timer(RENEW_TIMEOUT);
        if !self.holding {
            return;
        }
        if reply == Reply::Int(1) {
            self.deadline_mono_ns = self.renew_sent_mono_ns + self.cfg.ttl_ns;
            ctx.record(LockObs::Renewed {
                deadline_mono_ns: self.deadline_mono_ns,
            });
            ctx.set_timer(RENEW, self.cfg.renew_every_ns);
        } else {
            self.lose(ctx, "a renewal found the key no longer ours");
        }
    }
}
