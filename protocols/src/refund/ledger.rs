//! The ledger database (`ledger`): `refund_ledger(refund_id, intent_id, fence)`. Its two
//! protections, each a knob: a fence per refund (`INSERT ... WHERE max_fence < :token`, the
//! strict check of seed 004 9.6.2: an equal token is refused too, so a holder's own retry with
//! its token fails) and a unique index on the intent id (seed 004 9.10.2: it stops a second row
//! of the same intent, not of a new one). Durable: a crash loses nothing committed.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::{Ctx, NodeId};

use super::msg::RefundMsg;
use super::obs::RefundObs;

/// The ledger's fence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LedgerFence {
    None,
    /// Accept a row only with a token above every one accepted for the refund.
    Strict,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LedgerConfig {
    pub fence: LedgerFence,
    pub unique_index: bool,
}

pub struct Ledger {
    cfg: LedgerConfig,
    /// Refunds with at least one row.
    refunded: BTreeSet<u64>,
    intents: BTreeSet<u64>,
    max_fence: BTreeMap<u64, u64>,
}

type RefundCtx<'a> = Ctx<'a, RefundMsg, RefundObs>;

impl Ledger {
    pub fn new(cfg: LedgerConfig) -> Self {
        Ledger {
            cfg,
            refunded: BTreeSet::new(),
            intents: BTreeSet::new(),
            max_fence: BTreeMap::new(),
        }
    }

    pub fn on_msg(&mut self, ctx: &mut RefundCtx<'_>, from: NodeId, msg: RefundMsg) {
        match msg {
            RefundMsg::LedgerGet { req, refund } => {
                let done = self.refunded.contains(&refund);
                ctx.send(from, RefundMsg::LedgerState { req, done });
            }
            RefundMsg::Insert {
                req,
                refund,
                intent,
                token,
            } => {
                let refused = self.refusal(refund, intent, token);
                match refused {
                    Some(why) => ctx.record(RefundObs::InsertRefused {
                        refund,
                        token,
                        worker: from,
                        why,
                    }),
                    None => {
                        self.refunded.insert(refund);
                        self.intents.insert(intent);
                        let max = self.max_fence.entry(refund).or_insert(0);
                        *max = (*max).max(token);
                        ctx.record(RefundObs::RowInserted {
                            refund,
                            intent,
                            token,
                            worker: from,
                        });
                    }
                }
                let why = refused.unwrap_or("");
                ctx.send(
                    from,
                    RefundMsg::Inserted {
                        req,
                        ok: refused.is_none(),
                        why,
                    },
                );
            }
            _ => {}
        }
    }

    /// Why the insert is refused, if it is.
    fn refusal(&self, refund: u64, intent: u64, token: u64) -> Option<&'static str> {
        let max = self.max_fence.get(&refund).copied().unwrap_or(0);
        if self.cfg.fence == LedgerFence::Strict && token <= max {
            Some("stale fence: not above the refund's max fence")
        } else if self.cfg.unique_index && self.intents.contains(&intent) {
            Some("duplicate key value violates unique constraint on intent_id")
        } else {
            None
        }
    }
}
