//! `unique_ids` (no ID is issued twice) and `id_monotonic` (each generator's IDs strictly
//! increase), judged as the run goes from every event whose observation says it issued an ID.

mod chunks;
mod repeat;

use std::fmt;

use locksim_sim::check::{Invariant, NodeTable, Status, Verdict, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{ClockTrack, Event, Names, NodeId, RunEnd, What};

use super::IssuesIds;
use crate::judge::Judge;
use chunks::Chunks;
use repeat::{Issue, Placed, first_repeat};

pub const UNIQUE_IDS: Invariant = Invariant::new("unique_ids", "no ID is issued twice");
pub const ID_MONOTONIC: Invariant = Invariant::new("id_monotonic", "each generator's IDs strictly increase");

/// What [`IdJudge`] judges, in its verdicts' order.
pub const ID_INVARIANTS: &[Invariant] = &[UNIQUE_IDS, ID_MONOTONIC];

/// Both ID checkers, fed one event at a time.
///
/// What it keeps: per generator, every ID it issued with its event index and true time, 24
/// bytes each, in chunks that grow without copying (`chunks.rs`; the last ID is what
/// `id_monotonic` compares the next with); and the first ID that went backwards. That list
/// grows with the IDs issued and with nothing else — inherent to `unique_ids`, since any later
/// ID may repeat any earlier one, and its message names the first issue's generator and time —
/// and it is a third of what the history kept per ID.
///
/// `unique_ids` sorts the issued IDs at the end rather than inserting them into a map as they
/// come: a run issues tens of thousands of IDs, and sorting flat vectors costs a fraction of as
/// many map insertions. The IDs are kept per generator, whose IDs normally increase, so each
/// vector is already sorted or a few sorted runs, which the standard (run-adaptive) sort
/// handles in about linear time; the generators' vectors are then merged in place of being
/// copied into one, or with a few generators whose IDs all increase, compared pair by pair
/// (`repeat.rs`). The first violation is the earliest event that repeats an earlier ID.
pub struct IdJudge<I> {
    /// Per generator: every ID it issued, in issue order.
    issued: NodeTable<Chunks<Issue<I>>>,
    /// The first ID lower than or equal to its generator's previous one.
    backwards: Option<Backwards<I>>,
}

impl<I> Default for IdJudge<I> {
    fn default() -> Self {
        IdJudge {
            issued: NodeTable::new(),
            backwards: None,
        }
    }
}

/// A generator issuing `id` after `prev`.
struct Backwards<I> {
    index: usize,
    t_ns: u64,
    node: NodeId,
    id: I,
    prev: I,
}

impl<M, O: IssuesIds> Judge<M, O> for IdJudge<O::Id> {
    /// Inlined into the runner's recorder, where every event passes: as a call it cost ~9
    /// instructions per event.
    #[inline]
    fn see(&mut self, index: usize, e: &Event<M, O>, _clocks: &[ClockTrack]) {
        let What::Observe(o) = &e.what else { return };
        let Some(id) = o.issued_id() else { return };
        let t_ns = e.t_ns;
        let issued = self.issued.get_mut(e.node);
        if self.backwards.is_none()
            && let Some(&Issue { id: prev, .. }) = issued.last()
            && id <= prev
        {
            let node = e.node;
            self.backwards = Some(Backwards {
                index,
                t_ns,
                node,
                id,
                prev,
            });
        }
        issued.push(Issue { id, index, t_ns });
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        let names = &end.names;
        // With no ID backwards, each generator's IDs strictly increase.
        let increasing = self.backwards.is_none();
        let monotonic = self.backwards.map(|b| Violation {
            event: b.index,
            t_ns: b.t_ns,
            why: format!(
                "{} issued ID {} at {} after it had issued {}",
                names.of(b.node),
                b.id,
                fmt_secs(b.t_ns),
                b.prev
            ),
        });
        let (issued, repeat) = first_repeat(self.issued, increasing);
        let unique = repeat.map(|(first, again)| repeat_violation(names, first, again));
        let verdict = |v: Option<Violation>, held: String| match (issued, v) {
            (0, _) => Status::NotApplicable("no ID was issued".into()),
            (_, Some(v)) => Status::Violated(v),
            (_, None) => Status::Held(held),
        };
        vec![
            Verdict {
                invariant: UNIQUE_IDS,
                status: verdict(unique, format!("{} issued, all distinct", count(issued, "ID"))),
            },
            Verdict {
                invariant: ID_MONOTONIC,
                status: verdict(
                    monotonic,
                    format!("{} issued, increasing per generator", count(issued, "ID")),
                ),
            },
        ]
    }
}

fn repeat_violation<I: fmt::Display>(names: &Names, (first, by): Placed<I>, (again, node): Placed<I>) -> Violation {
    Violation {
        event: again.index,
        t_ns: again.t_ns,
        why: format!(
            "{} issued ID {} at {}, which {} had issued at {}",
            names.of(node),
            again.id,
            fmt_secs(again.t_ns),
            names.of(by),
            fmt_secs(first.t_ns)
        ),
    }
}

#[cfg(test)]
mod tests {
    use locksim_sim::History;

    use super::*;
    use crate::ids::test_history::{Obs, history};
    use crate::judge::judge_history;

    fn check_ids(h: &History<(), Obs>) -> Vec<Verdict> {
        judge_history(IdJudge::default(), h)
    }

    fn words(v: &[Verdict]) -> Vec<(&'static str, &'static str)> {
        v.iter().map(|v| (v.invariant.id(), v.status.word())).collect()
    }

    #[test]
    fn distinct_ids_increasing_per_generator_hold_even_when_interleaved_downwards() {
        // client-1's IDs are below client-0's: monotonic is per generator, not global.
        let h = history(&[(0, Some(10)), (1, Some(3)), (0, None), (0, Some(11)), (1, Some(4))]);
        let v = check_ids(&h);
        assert_eq!(words(&v), [("unique_ids", "held"), ("id_monotonic", "held")]);
        assert_eq!(v[0].status, Status::Held("4 IDs issued, all distinct".into()));
    }

    #[test]
    fn an_id_issued_twice_is_named_with_both_issuers() {
        let h = history(&[(0, Some(5)), (1, Some(5)), (1, Some(7)), (0, Some(7))]);
        let v = check_ids(&h);
        let Status::Violated(x) = &v[0].status else {
            panic!("{:?}", v[0])
        };
        assert_eq!((x.event, x.t_ns), (1, 1_000_000), "the first repeat");
        assert_eq!(
            x.why,
            "client-1 issued ID 0x5 at 0.001 s, which client-0 had issued at 0.000 s"
        );
        // Each generator's own IDs still increase.
        assert_eq!(v[1].status.word(), "held");
    }

    #[test]
    fn the_earliest_repeat_is_reported_not_the_lowest_id_and_names_the_first_issue() {
        // ID 0x14 is repeated at event 2, the lower ID 0x5 only at event 4; 0x14's third
        // issue (event 5) names its first issuer, not its second.
        let h = history(&[
            (0, Some(5)),
            (0, Some(20)),
            (1, Some(20)),
            (1, Some(21)),
            (1, Some(5)),
            (0, Some(20)),
        ]);
        let Status::Violated(x) = &check_ids(&h)[0].status else {
            panic!()
        };
        assert_eq!(x.event, 2);
        assert_eq!(
            x.why,
            "client-1 issued ID 0x14 at 0.002 s, which client-0 had issued at 0.001 s"
        );
        let h = history(&[(1, Some(20)), (0, Some(20)), (0, Some(20))]);
        let Status::Violated(x) = &check_ids(&h)[0].status else {
            panic!()
        };
        assert_eq!(
            (x.event, x.why.as_str()),
            (
                1,
                "client-0 issued ID 0x14 at 0.001 s, which client-1 had issued at 0.000 s"
            )
        );
    }

    #[test]
    fn a_generator_going_back_breaks_monotonic_but_not_uniqueness() {
        let h = history(&[(0, Some(5)), (0, Some(9)), (0, Some(6))]);
        let v = check_ids(&h);
        assert_eq!(v[0].status.word(), "held");
        let Status::Violated(x) = &v[1].status else {
            panic!("{:?}", v[1])
        };
        assert_eq!(x.event, 2);
        assert!(
            x.why.contains("issued ID 0x6 at 0.002 s after it had issued 0x9"),
            "{}",
            x.why
        );
        // Equal counts as not increasing.
        let v = check_ids(&history(&[(1, Some(5)), (1, Some(5))]));
        assert_eq!(words(&v), [("unique_ids", "violated"), ("id_monotonic", "violated")]);
    }

    #[test]
    fn one_id_is_counted_in_the_singular() {
        let v = check_ids(&history(&[(0, Some(1))]));
        assert_eq!(v[0].status, Status::Held("1 ID issued, all distinct".into()));
        assert_eq!(
            v[1].status,
            Status::Held("1 ID issued, increasing per generator".into())
        );
    }

    #[test]
    fn no_id_issued_is_not_applicable() {
        let v = check_ids(&history(&[(0, None)]));
        assert_eq!(
            words(&v),
            [("unique_ids", "not_applicable"), ("id_monotonic", "not_applicable")]
        );
    }
}
