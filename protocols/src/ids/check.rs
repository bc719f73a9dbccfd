//! `unique_ids` (no ID is issued twice) and `id_monotonic` (each generator's IDs strictly
//! increase), over every event whose observation says it issued an ID.

use locksim_sim::History;
use locksim_sim::check::{Invariant, NodeTable, Status, Verdict, Violation, count};
use locksim_sim::time::fmt_secs;

use super::IssuesIds;

pub const UNIQUE_IDS: Invariant = Invariant::new("unique_ids", "no ID is issued twice");
pub const ID_MONOTONIC: Invariant = Invariant::new("id_monotonic", "each generator's IDs strictly increase");

/// What [`check_ids`] judges, in its verdicts' order.
pub const ID_INVARIANTS: &[Invariant] = &[UNIQUE_IDS, ID_MONOTONIC];

/// Both ID checkers.
///
/// `unique_ids` sorts the issued IDs rather than inserting them into a map as it goes: a run
/// issues tens of thousands of IDs, and a sort of one flat vector costs a fraction of as many
/// map insertions. The IDs are gathered per generator, whose IDs normally increase, so the
/// vector is a few sorted runs end to end, which the standard (run-adaptive) sort merges in
/// about linear time. The first violation is the earliest event that repeats an earlier ID.
pub fn check_ids<M, O: IssuesIds>(h: &History<M, O>) -> Vec<Verdict> {
    // Per generator: every ID it issued, with its event index.
    let mut by_node: NodeTable<Vec<(u64, usize)>> = NodeTable::new();
    // Per node: the last ID it issued.
    let mut last: NodeTable<Option<u64>> = NodeTable::new();
    let mut monotonic = None;
    for (index, e, o) in h.observations() {
        let Some(id) = o.issued_id() else { continue };
        by_node.get_mut(e.node).push((id, index));
        let prev = last.get_mut(e.node);
        if monotonic.is_none()
            && let Some(prev) = *prev
            && id <= prev
        {
            monotonic = Some(Violation {
                event: index,
                t_ns: e.t_ns,
                why: format!(
                    "{} issued ID {id:#x} at {} after it had issued {prev:#x}",
                    h.names.of(e.node),
                    fmt_secs(e.t_ns)
                ),
            });
        }
        *prev = Some(id);
    }
    let mut issued_ids: Vec<(u64, usize)> = by_node.into_entries().flat_map(|(_, ids)| ids).collect();
    let issued = issued_ids.len();
    // Sorted by (ID, event index), a repeat sits right after an earlier issue of its ID; the
    // first violation is the repeat with the smallest index, and the ID's first issue is the
    // one before it (every issue of an ID after the first is later than the second).
    // (Pairs are distinct, so a stable sort orders them exactly as any sort would.)
    issued_ids.sort();
    let unique = issued_ids
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .min_by_key(|w| w[1].1)
        .map(|w| {
            let (id, (first, repeat)) = (w[1].0, (&h.events[w[0].1], &h.events[w[1].1]));
            Violation {
                event: w[1].1,
                t_ns: repeat.t_ns,
                why: format!(
                    "{} issued ID {id:#x} at {}, which {} had issued at {}",
                    h.names.of(repeat.node),
                    fmt_secs(repeat.t_ns),
                    h.names.of(first.node),
                    fmt_secs(first.t_ns)
                ),
            }
        });
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

#[cfg(test)]
mod tests {
    use locksim_sim::{Event, Names, NodeId, Stats, What};

    use super::*;

    /// An observation that may carry an issued ID.
    struct Obs(Option<u64>);

    impl IssuesIds for Obs {
        fn issued_id(&self) -> Option<u64> {
            self.0
        }
    }

    /// A history of `(node, id)` observations, one per millisecond.
    fn history(issued: &[(u32, Option<u64>)]) -> History<(), Obs> {
        History {
            names: Names::new(vec!["client-0".into(), "client-1".into()]),
            events: issued
                .iter()
                .enumerate()
                .map(|(i, &(node, id))| Event {
                    t_ns: i as u64 * 1_000_000,
                    node: NodeId(node),
                    wall_ns: 0,
                    mono_ns: 0,
                    what: What::Observe(Obs(id)),
                })
                .collect(),
            clocks: Vec::new(),
            end_ns: 0,
            stats: Stats::default(),
        }
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
