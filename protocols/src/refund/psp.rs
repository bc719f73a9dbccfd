//! The payment provider (`psp`): it pays out a refund as soon as it accepts the call and
//! answers `latency` later (seed 004, 9.10: a call accepted at t33 is money gone, whatever the
//! caller does next). With an idempotency key, a call whose key it has seen pays nothing and
//! answers with the first call's result (Stripe's "Idempotent requests"). What it paid and the
//! keys it saw are durable; a crash loses only the answers not yet sent.

use std::collections::{BTreeMap, VecDeque};

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::RefundMsg;
use super::obs::RefundObs;

/// The earliest pending answer is due.
const ANSWER: TimerTag = 0;

/// An answer to send: when (provider's monotonic clock), to whom, for which request.
struct Pending {
    due_mono_ns: u64,
    to: NodeId,
    req: u64,
    psp_ref: u64,
}

pub struct Psp {
    latency_ns: u64,
    /// Idempotency key (the intent) -> the refund it paid.
    keys: BTreeMap<u64, u64>,
    paid: u64,
    /// Every call waits the same latency, so answers fall due in arrival order.
    pending: VecDeque<Pending>,
}

type RefundCtx<'a> = Ctx<'a, RefundMsg, RefundObs>;

impl Psp {
    pub fn new(latency_ns: u64) -> Self {
        Psp {
            latency_ns,
            keys: BTreeMap::new(),
            paid: 0,
            pending: VecDeque::new(),
        }
    }

    pub fn on_msg(&mut self, ctx: &mut RefundCtx<'_>, from: NodeId, msg: RefundMsg) {
        let RefundMsg::Charge {
            req,
            refund,
            intent,
            key,
        } = msg
        else {
            return;
        };
        let replayed = key.then(|| self.keys.get(&intent).copied()).flatten();
        let psp_ref = match replayed {
            Some(psp_ref) => {
                ctx.record(RefundObs::ChargeReplayed {
                    refund,
                    intent,
                    psp_ref,
                    worker: from,
                });
                psp_ref
            }
            None => {
                self.paid += 1;
                if key {
                    self.keys.insert(intent, self.paid);
                }
                ctx.record(RefundObs::ChargeMade {
                    refund,
                    intent,
                    psp_ref: self.paid,
                    worker: from,
                });
                self.paid
            }
        };
        if self.pending.is_empty() {
            ctx.set_timer(ANSWER, self.latency_ns);
        }
        self.pending.push_back(Pending {
            due_mono_ns: ctx.mono_ns() + self.latency_ns,
            to: from,
            req,
            psp_ref,
        });
    }

    pub fn on_timer(&mut self, ctx: &mut RefundCtx<'_>) {
        let now = ctx.mono_ns();
        while let Some(p) = self.pending.front().filter(|p| p.due_mono_ns <= now) {
            ctx.send(
                p.to,
                RefundMsg::Charged {
                    req: p.req,
                    psp_ref: p.psp_ref,
                },
            );
            self.pending.pop_front();
        }
        if let Some(next) = self.pending.front() {
            ctx.set_timer(ANSWER, next.due_mono_ns - now);
        }
    }

    pub fn on_crash(&mut self) {
        self.pending.clear();
    }
}
