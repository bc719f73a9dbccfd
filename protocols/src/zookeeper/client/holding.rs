//! Holding the lock: announce it (with the lock node's czxid as the fencing token), read the
//! counter, work, check the connection, write value+1, and release by deleting my node.

use super::{ClientCtx, Phase, STEP, Suspended, TIMEOUT, ZkClient};
use crate::lock::LockObs;
use crate::lock::knobs::{DeadlineCheck, FencingTokens};
use crate::lock::obs::Deadline;
use crate::lock::resource::ResourceOp;
use crate::zookeeper::msg::Op;

impl ZkClient {
    /// Until when the holder believes it holds: the read timeout after it last heard from its
    /// server, when it would see `SUSPENDED` — or no end, if `SUSPENDED` does not count.
    pub(super) fn deadline(&self) -> Deadline {
        match self.zk.suspended {
            Suspended::Lost => Deadline::Mono(self.last_heard_ns + self.read_timeout_ns()),
            Suspended::Holding => Deadline::Untracked,
        }
    }

    pub(super) fn announce(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = true;
        if self.cfg.fencing_tokens == FencingTokens::Revision {
            self.token = self.mine.as_ref().and_then(|(_, czxid)| *czxid);
        }
        let deadline = self.deadline();
        let validity_ns = deadline.mono_ns().map_or(i64::MAX, |d| d as i64 - ctx.mono_ns() as i64);
        self.record(
            ctx,
            LockObs::Acquired {
                lease: self.lease,
                token: self.token,
                validity_ns,
                deadline_mono_ns: deadline,
                servers: 0,
            },
        );
        if self.cfg.deadline_check == DeadlineCheck::Once && !self.check_deadline(ctx) {
            return self.lose(ctx, "its connection was SUSPENDED when it checked");
        }
        self.phase = Phase::Reading;
        self.ask_resource(ctx, ResourceOp::Read);
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
            return self.lose(ctx, "its connection was SUSPENDED before the write");
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
        self.ask_resource(
            ctx,
            ResourceOp::Write {
                token: self.token,
                value,
                based_on: self.read_value,
                lease: self.lease,
            },
        );
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

    /// The check before acting: time left before `SUSPENDED` would be seen. A client for which
    /// `SUSPENDED` changes nothing has nothing to check.
    pub(super) fn check_deadline(&mut self, ctx: &mut ClientCtx<'_>) -> bool {
        let Some(deadline) = self.deadline().mono_ns() else {
            return true;
        };
        let remaining_ns = deadline as i64 - ctx.mono_ns() as i64;
        let ok = remaining_ns > 0 && self.connected;
        self.record(ctx, LockObs::DeadlineChecked { remaining_ns, ok });
        ok
    }

    pub(super) fn lose(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        self.record(ctx, LockObs::LockLost { why: why.into() });
        self.release(ctx);
    }

    pub(super) fn release(&mut self, ctx: &mut ClientCtx<'_>) {
        self.holding = false;
        self.record(ctx, LockObs::Released { lease: self.lease });
        self.delete_mine(ctx);
    }

    /// Deletes my lock node, retrying until the leader answers (a node left behind would
    /// block every waiter until my session ended); nothing to delete without a session.
    pub(super) fn delete_mine(&mut self, ctx: &mut ClientCtx<'_>) {
        ctx.cancel_timer(STEP);
        match (&self.mine, self.session) {
            (Some((name, _)), Some(_)) => {
                let name = name.clone();
                self.phase = Phase::Releasing;
                self.ask(ctx, Op::Delete { name });
            }
            _ => self.think(ctx),
        }
    }

    pub(super) fn think(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Thinking;
        self.mine = None;
        self.req = 0;
        ctx.cancel_timer(TIMEOUT);
        ctx.set_timer(STEP, self.cfg.think_ns);
    }
}
