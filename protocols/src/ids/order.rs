//! `id_global_order`: every ID is greater than every ID issued before it, by any generator.
//!
//! No scheme here promises it, and that is why it is judged: seed 001 warns that with segment
//! IDs "a smaller number is not an earlier one" (two processes on adjacent segments), and that
//! UUIDv7's time order follows each node's clock, not the order of events. A scenario expects
//! it `violated` to show the limit, not a bug; its meaning says so in `locksim list`.

use locksim_sim::check::{Invariant, Status, Verdict, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{ClockTrack, Event, NodeId, RunEnd, What};

use super::{ID_MONOTONIC, IdJudge, IssuesIds, UNIQUE_IDS};
use crate::judge::Judge;

pub const ID_GLOBAL_ORDER: Invariant = Invariant::new(
    "id_global_order",
    "IDs increase in the order they are issued, across all generators: NOT promised by segment IDs or UUIDv7 (seed 001: a smaller ID is not an earlier one); judged to show where the order breaks",
);

/// What [`OrderedIdJudge`] judges, in its verdicts' order.
pub const ORDERED_ID_INVARIANTS: &[Invariant] = &[UNIQUE_IDS, ID_MONOTONIC, ID_GLOBAL_ORDER];

/// The two ID checkers and `id_global_order`, fed one event at a time.
///
/// The order check keeps the largest ID issued so far and the first ID below it: two IDs'
/// worth, whatever the run's length.
pub struct OrderedIdJudge<I> {
    ids: IdJudge<I>,
    issued: usize,
    highest: Option<Issued<I>>,
    /// The first ID issued after a larger one, with that larger one.
    first_inversion: Option<(Issued<I>, Issued<I>)>,
}

impl<I> Default for OrderedIdJudge<I> {
    fn default() -> Self {
        OrderedIdJudge {
            ids: IdJudge::default(),
            issued: 0,
            highest: None,
            first_inversion: None,
        }
    }
}

/// One issued ID, where and when.
#[derive(Copy, Clone)]
struct Issued<I> {
    id: I,
    index: usize,
    t_ns: u64,
    node: NodeId,
}

impl<M, O: IssuesIds> Judge<M, O> for OrderedIdJudge<O::Id> {
    fn see(&mut self, index: usize, e: &Event<M, O>, clocks: &[ClockTrack]) {
        self.ids.see(index, e, clocks);
        let What::Observe(o) = &e.what else { return };
        let Some(id) = o.issued_id() else { return };
        self.issued += 1;
        let here = Issued {
            id,
            index,
            t_ns: e.t_ns,
            node: e.node,
        };
        match self.highest {
            Some(high) if id <= high.id => {
                self.first_inversion.get_or_insert((high, here));
            }
            _ => self.highest = Some(here),
        }
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        let mut verdicts = Judge::<M, O>::verdicts(self.ids, end);
        let names = &end.names;
        let status = match (self.issued, self.first_inversion) {
            (0, _) => Status::NotApplicable("no ID was issued".into()),
            (_, Some((high, low))) => Status::Violated(Violation {
                event: low.index,
                t_ns: low.t_ns,
                why: format!(
                    "{} issued ID {} at {}, after {} had issued {} {} at {}: a smaller ID is not an earlier one",
                    names.of(low.node),
                    low.id,
                    fmt_secs(low.t_ns),
                    names.of(high.node),
                    if low.id == high.id { "the same" } else { "the larger" },
                    high.id,
                    fmt_secs(high.t_ns)
                ),
            }),
            (n, None) => Status::Held(format!("{} issued, increasing in issue order", count(n, "ID"))),
        };
        verdicts.push(Verdict {
            invariant: ID_GLOBAL_ORDER,
            status,
        });
        verdicts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::test_history::history;
    use crate::judge::judge_history;

    fn judge(issued: &[(u32, Option<u64>)]) -> Vec<Verdict> {
        judge_history(OrderedIdJudge::default(), &history(issued))
    }

    fn words(v: &[Verdict]) -> Vec<&'static str> {
        v.iter().map(|v| v.status.word()).collect()
    }

    #[test]
    fn adjacent_segments_interleaved_are_unique_and_monotonic_but_not_in_global_order() {
        // client-0 holds (10, 20], client-1 (20, 30]; client-1's 21 goes out before client-0's 12.
        let v = judge(&[
            (0, Some(11)),
            (1, Some(21)),
            (0, Some(12)),
            (1, Some(22)),
            (0, Some(13)),
        ]);
        assert_eq!(
            v.iter().map(|v| v.invariant.id()).collect::<Vec<_>>(),
            ["unique_ids", "id_monotonic", "id_global_order"]
        );
        assert_eq!(words(&v), ["held", "held", "violated"]);
        let Status::Violated(x) = &v[2].status else { panic!() };
        assert_eq!(x.event, 2, "the first ID below one issued before it");
        assert_eq!(
            x.why,
            "client-0 issued ID 0xc at 0.002 s, after client-1 had issued the larger 0x15 at 0.001 s: a smaller ID is not an earlier one"
        );
    }

    #[test]
    fn ids_rising_in_issue_order_hold_and_none_is_not_applicable() {
        let v = judge(&[(0, Some(1)), (1, Some(2)), (0, None), (1, Some(3))]);
        assert_eq!(words(&v), ["held", "held", "held"]);
        assert_eq!(
            v[2].status,
            Status::Held("3 IDs issued, increasing in issue order".into())
        );
        assert_eq!(words(&judge(&[(0, None)]))[2], "not_applicable");
        // A repeat is not an increase either.
        assert_eq!(
            words(&judge(&[(0, Some(4)), (1, Some(4))])),
            ["violated", "held", "violated"]
        );
    }
}
