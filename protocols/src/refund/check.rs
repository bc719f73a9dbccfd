//! The refund's invariants, judged as the run goes: `single_charge` (the provider paid each
//! refund out at most once) and `single_ledger_row` (the ledger holds at most one row per
//! refund). Seed 004 9.10's point is that they are different promises kept by different
//! protections: a fence or a unique index keeps the second, only the provider's idempotency
//! key keeps the first.
//!
//! Kept: per refund that happened at all, its first charge and its first row (where, when,
//! for whom) — bounded by the refunds of the run, not its events — the first repeat of each
//! kind, and the counts the verdicts report.

use std::collections::BTreeMap;

use locksim_sim::check::count;
use locksim_sim::time::fmt_secs;
use locksim_sim::{ClockTrack, Event, Invariant, Names, NodeId, RunEnd, Status, Verdict, Violation, What};

use super::msg::{RefundMsg, intent_name};
use super::obs::RefundObs;
use crate::judge::Judge;

pub const SINGLE_CHARGE: Invariant = Invariant::new(
    "single_charge",
    "the payment provider pays each refund out at most once",
);
pub const SINGLE_LEDGER_ROW: Invariant =
    Invariant::new("single_ledger_row", "the ledger holds at most one row per refund");

/// What [`RefundJudge`] judges, in its verdicts' order.
pub const REFUND_INVARIANTS: &[Invariant] = &[SINGLE_CHARGE, SINGLE_LEDGER_ROW];

/// One payment or row: when, for which intent, for whom.
#[derive(Copy, Clone, Debug)]
struct Seen {
    index: usize,
    t_ns: u64,
    intent: u64,
    worker: NodeId,
}

/// One invariant's state: the first occurrence per refund, the first repeat, and the counts.
#[derive(Default)]
struct AtMostOnce {
    first: BTreeMap<u64, Seen>,
    repeat: Option<(u64, Seen, Seen)>,
    total: usize,
}

impl AtMostOnce {
    fn see(&mut self, refund: u64, seen: Seen) {
        self.total += 1;
        match self.first.get(&refund) {
            None => {
                self.first.insert(refund, seen);
            }
            Some(&first) if self.repeat.is_none() => self.repeat = Some((refund, first, seen)),
            Some(_) => {}
        }
    }

    /// The verdict: `what` names one occurrence ("payout", "ledger row"), `again` says what a
    /// repeat is ("the provider made a second payout").
    fn status(&self, names: &Names, what: &str, again_is: &str, others: &str) -> Status {
        if let Some((refund, first, again)) = self.repeat {
            return Status::Violated(Violation {
                event: again.index,
                t_ns: again.t_ns,
                why: format!(
                    "{again_is} of refund {refund} at {} ({}, for {}); the first was at {} ({}, for {})",
                    fmt_secs(again.t_ns),
                    intent_name(refund, again.intent),
                    names.of(again.worker),
                    fmt_secs(first.t_ns),
                    intent_name(refund, first.intent),
                    names.of(first.worker),
                ),
            });
        }
        if self.total == 0 {
            return Status::NotApplicable(format!("no {what} was made"));
        }
        Status::Held(format!(
            "{} of {}, one each; {others}",
            count(self.total, what),
            count(self.first.len(), "refund")
        ))
    }
}

/// Both refund invariants, fed one event at a time.
#[derive(Default)]
pub struct RefundJudge {
    charges: AtMostOnce,
    rows: AtMostOnce,
    replayed: usize,
    refused: usize,
}

impl Judge<RefundMsg, RefundObs> for RefundJudge {
    fn see(&mut self, index: usize, e: &Event<RefundMsg, RefundObs>, _clocks: &[ClockTrack]) {
        let What::Observe(o) = &e.what else { return };
        let at = |intent: u64, worker: NodeId| Seen {
            index,
            t_ns: e.t_ns,
            intent,
            worker,
        };
        match o {
            RefundObs::ChargeMade {
                refund, intent, worker, ..
            } => self.charges.see(*refund, at(*intent, *worker)),
            RefundObs::RowInserted {
                refund, intent, worker, ..
            } => self.rows.see(*refund, at(*intent, *worker)),
            RefundObs::ChargeReplayed { .. } => self.replayed += 1,
            RefundObs::InsertRefused { .. } => self.refused += 1,
            _ => {}
        }
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        let names = &end.names;
        let replayed = format!("{} answered from the idempotency key", count(self.replayed, "call"));
        let refused = format!("{} refused", count(self.refused, "insert"));
        vec![
            Verdict {
                invariant: SINGLE_CHARGE,
                status: self
                    .charges
                    .status(names, "payout", "the provider made a second payout", &replayed),
            },
            Verdict {
                invariant: SINGLE_LEDGER_ROW,
                status: self
                    .rows
                    .status(names, "ledger row", "the ledger inserted a second row", &refused),
            },
        ]
    }
}
