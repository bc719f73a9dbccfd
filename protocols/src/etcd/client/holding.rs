//! Holding the lock: announce it, read the counter, work, check the deadline, write value+1
//! with the token, and release by revoking the lease (whatever happened).

use super::{ClientCtx, EtcdClient, Phase, STEP};
use crate::etcd::msg::Request;
use crate::lock::LockObs;
use crate::lock::knobs::{DeadlineCheck, FencingTokens};
use crate::lock::obs::Deadline;
use crate::lock::resource::ResourceOp;

impl EtcdClient {
    pub(super) fn announce(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = true;
        if self.cfg.fencing_tokens == FencingTokens::Revision {
            // The lock key's create revision is the fencing token (the leader recorded it as
            // issued when it committed the key).
            self.token = Some(self.my_rev as u64);
        }
        self.record(
            ctx,
            LockObs::Acquired {
                lease: self.lease as u64,
                token: self.token,
                validity_ns: self.deadline_mono_ns as i64 - ctx.mono_ns() as i64,
                deadline_mono_ns: Deadline::Mono(self.deadline_mono_ns),
                servers: 0,
            },
        );
        if self.cfg.deadline_check == DeadlineCheck::Once && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline had passed when it checked");
        }
        self.phase = Phase::Reading;
        if self.etcd.txn_resource {
            self.ask(ctx, Request::ReadCounter);
        } else {
            self.ask_resource(ctx, ResourceOp::Read);
        }
    }

    pub(super) fn read(&mut self, ctx: &mut ClientCtx<'_>, value: u64) {
        if self.phase != Phase::Reading {
            return;
        }
        self.read_value = value;
        self.record(ctx, LockObs::ReadDone { value });
        self.phase = Phase::Working;
        ctx.set_timer(STEP, self.cfg.work_ns);
    }

    pub(super) fn finish_work(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.cfg.deadline_check == DeadlineCheck::BeforeWrite && !self.check_deadline(ctx) {
            return self.lose(ctx, "its lease deadline passed before the write");
        }
        let value = self.read_value + 1;
        self.record(
            ctx,
            LockObs::WriteSent {
                token: self.token,
                value,
            },
        );
        self.phase = Phase::Writing;
        if self.etcd.txn_resource {
            self.ask(
                ctx,
                Request::WriteCounter {
                    lease: self.lease,
                    my_rev: self.my_rev,
                    value,
                    based_on: self.read_value,
                },
            );
        } else {
            self.ask_resource(
                ctx,
                ResourceOp::Write {
                    token: self.token,
                    value,
                    based_on: self.read_value,
                    lease: self.lease as u64,
                },
            );
        }
    }

    pub(super) fn written(&mut self, ctx: &mut ClientCtx<'_>, ok: bool, max: u64) {
        if self.phase != Phase::Writing {
            return;
        }
        let obs = if ok {
            LockObs::WriteAccepted {
                value: self.read_value + 1,
            }
        } else {
            LockObs::WriteRejected { token: self.token, max }
        };
        self.record(ctx, obs);
        self.release(ctx);
    }

    pub(super) fn check_deadline(&mut self, ctx: &mut ClientCtx<'_>) -> bool {
        let remaining_ns = self.deadline_mono_ns as i64 - ctx.mono_ns() as i64;
        let ok = remaining_ns > 0;
        self.record(ctx, LockObs::DeadlineChecked { remaining_ns, ok });
        ok
    }

    pub(super) fn lose(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        self.record(ctx, LockObs::LockLost { why: why.into() });
        self.release(ctx);
    }

    /// Unlock by closing the session: revoking the lease deletes the lock key with it.
    pub(super) fn release(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = false;
        self.record(
            ctx,
            LockObs::Released {
                lease: self.lease as u64,
            },
        );
        self.close_session(ctx);
    }

    pub(super) fn think(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Thinking;
        self.lease = 0;
        ctx.set_timer(STEP, self.cfg.think_ns);
    }
}
