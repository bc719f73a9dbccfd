//! A worker (`client-<i>`): runs the slots it is handed, one at a time in arrival order,
//! against the job store (`resource`), with the dedup the scenario configures:
//!
//! - `same-tx`: one transaction (`Tx`) inserts the `(job, slot)` key and, only if inserted,
//!   commits the effect; the worker records `effect_committed` then `marked_done` together.
//! - `mark-after`: check the done-mark; if absent, commit the effect (`effect_committed`), then
//!   write the mark in a second request (`marked_done`). A crash placed
//!   `after = "effect_committed"` loses the mark request.
//! - `none`: commit the effect every time.
//!
//! When the slot's done-mark is seen (or, without dedup, its effect), the worker reports the
//! slot done to the instance that sent it. Its inbox is volatile: a crash forgets every slot it
//! held, and only the instances' re-sends bring them back.

use std::collections::VecDeque;

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::obs::{SchedMsg, SchedObs};
use super::store::Dedup;

const TIMEOUT: TimerTag = 0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    Tx,
    Check,
    Effect,
    Mark,
}

#[derive(Copy, Clone, Debug)]
struct Busy {
    from: NodeId,
    slot: i64,
    req: u64,
    step: Step,
}

pub struct Worker {
    dedup: Dedup,
    store: NodeId,
    request_timeout_ns: u64,
    /// Never reused, even across a restart: a late reply to the old process is not mistaken
    /// for an answer to the new one.
    next_req: u64,
    // Volatile.
    inbox: VecDeque<(NodeId, i64)>,
    busy: Option<Busy>,
}

type WorkerCtx<'a> = Ctx<'a, SchedMsg, SchedObs>;

impl Worker {
    pub fn new(dedup: Dedup, store: NodeId, request_timeout_ns: u64) -> Self {
        Worker {
            dedup,
            store,
            request_timeout_ns,
            next_req: 1,
            inbox: VecDeque::new(),
            busy: None,
        }
    }

    pub fn on_crash(&mut self) {
        self.inbox.clear();
        self.busy = None;
    }

    /// Sends the current job's next store request.
    fn request(&mut self, ctx: &mut WorkerCtx<'_>, from: NodeId, slot: i64, step: Step) {
        let req = self.next_req;
        self.next_req += 1;
        let msg = match step {
            Step::Tx => SchedMsg::Tx { req, slot },
            Step::Check => SchedMsg::CheckMark { req, slot },
            Step::Effect => SchedMsg::Effect { req, slot },
            Step::Mark => SchedMsg::Mark { req, slot },
        };
        ctx.send(self.store, msg);
        ctx.set_timer(TIMEOUT, self.request_timeout_ns);
        self.busy = Some(Busy { from, slot, req, step });
    }

    fn start_next(&mut self, ctx: &mut WorkerCtx<'_>) {
        if self.busy.is_some() {
            return;
        }
        let Some((from, slot)) = self.inbox.pop_front() else {
            return;
        };
        let first = match self.dedup {
            Dedup::SameTx => Step::Tx,
            Dedup::MarkAfter => Step::Check,
            Dedup::None => Step::Effect,
        };
        self.request(ctx, from, slot, first);
    }

    /// The slot is done as far as this worker can tell: report it and take the next.
    fn finish(&mut self, ctx: &mut WorkerCtx<'_>, from: NodeId, slot: i64) {
        self.busy = None;
        ctx.cancel_timer(TIMEOUT);
        ctx.send(from, SchedMsg::Done { slot });
        self.start_next(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut WorkerCtx<'_>, tag: TimerTag) {
        if tag == TIMEOUT
            && let Some(b) = self.busy.take()
        {
            ctx.record(SchedObs::JobAbandoned { slot: b.slot });
            self.start_next(ctx);
        }
    }

    pub fn on_msg(&mut self, ctx: &mut WorkerCtx<'_>, from: NodeId, msg: SchedMsg) {
        if let SchedMsg::Run { slot } = msg {
            ctx.record(SchedObs::JobReceived { slot, from });
            self.inbox.push_back((from, slot));
            self.start_next(ctx);
            return;
        }
        let Some(b) = self.busy else { return };
        match (b.step, msg) {
            (Step::Tx, SchedMsg::TxReply { req, applied }) if req == b.req => {
                if applied {
                    ctx.record(SchedObs::EffectCommitted {
                        slot: b.slot,
                        with_key: true,
                    });
                    ctx.record(SchedObs::MarkedDone {
                        slot: b.slot,
                        in_tx: true,
                    });
                } else {
                    ctx.record(SchedObs::AlreadyDone { slot: b.slot });
                }
                self.finish(ctx, b.from, b.slot);
            }
            (Step::Check, SchedMsg::MarkState { req, done }) if req == b.req => {
                ctx.record(SchedObs::MarkChecked { slot: b.slot, done });
                if done {
                    self.finish(ctx, b.from, b.slot);
                } else {
                    self.request(ctx, b.from, b.slot, Step::Effect);
                }
            }
            (Step::Effect, SchedMsg::EffectReply { req }) if req == b.req => {
                ctx.record(SchedObs::EffectCommitted {
                    slot: b.slot,
                    with_key: false,
                });
                if self.dedup == Dedup::MarkAfter {
                    self.request(ctx, b.from, b.slot, Step::Mark);
                } else {
                    self.finish(ctx, b.from, b.slot);
                }
            }
            (Step::Mark, SchedMsg::MarkReply { req }) if req == b.req => {
                ctx.record(SchedObs::MarkedDone {
                    slot: b.slot,
                    in_tx: false,
                });
                self.finish(ctx, b.from, b.slot);
            }
            _ => {}
        }
    }
}
