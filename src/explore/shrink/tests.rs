//! Shrinking: smaller plans and simpler entries, the budget, and a finding kept throughout.

use super::*;
use crate::load::parse_scenario;
use locksim_sim::{FaultEntry, NodeId};

fn pause(at_ms: u64, duration_ms: u64) -> FaultEntry {
    FaultEntry {
        trigger: Trigger::At {
            at_ns: at_ms * NS_PER_MS,
        },
        action: FaultAction::Pause {
            node: NodeId(0),
            duration_ns: duration_ms * NS_PER_MS,
            suspend: false,
        },
    }
}

fn times(entries: &[FaultEntry]) -> Vec<(u64, u64)> {
    entries
        .iter()
        .map(|e| match (&e.trigger, &e.action) {
            (Trigger::At { at_ns }, FaultAction::Pause { duration_ns, .. }) => {
                (at_ns / NS_PER_MS, duration_ns / NS_PER_MS)
            }
            other => panic!("a timed pause, not {other:?}"),
        })
        .collect()
}

#[test]
fn smaller_values_come_halved_then_by_quarters_then_rounded() {
    assert_eq!(smaller(9631, [1_000, 100]), [4815, 7224, 9000, 9600]);
    assert_eq!(smaller(9000, [1_000, 100]), [4500, 6750]);
    assert_eq!(smaller(2, [1_000, 100]), [1, 0]);
    assert_eq!(smaller(1, [1_000, 100]), [0]);
    assert!(smaller(0, [1_000, 100]).is_empty());
    assert!(shorter(NS_PER_MS, 1).is_empty(), "a pause is at least 1 ms long");
}

#[test]
fn times_and_magnitudes_shrink_past_a_failed_halving() {
    let got = times(&simplify(&pause(4537, 9631)));
    let expected = [
        (2268, 9631),
        (3403, 9631),
        (4000, 9631),
        (4500, 9631),
        (4537, 4815),
        (4537, 7224),
        (4537, 9000),
        (4537, 9600),
    ];
    assert_eq!(got, expected);
}

/// The GC-pause story: halving alone left a 9631 ms pause at 4537 ms where 9 s at 3 s
/// does. Here the "run" is a predicate: the pause must outlast 8.2 s and start after 3 s.
#[test]
fn a_pause_shrinks_to_round_values_when_halving_overshoots() {
    let base = parse_scenario(
        "s.toml",
        "name = \"s\"\n[protocol]\nkind = \"single-redis\"\nclients = 1\n",
    )
    .expect("loads");
    let start = Candidate {
        plan: Plan {
            faults: vec![pause(4537, 9631)],
            drifts: vec![(NodeId(0), 1_234)],
        },
        overrides: Overrides::default(),
    };
    let keeps = |c: &Candidate| {
        c.plan.faults.len() == 1
            && times(&c.plan.faults)[0].0 >= 3_000
            && times(&c.plan.faults)[0].1 >= 8_200
            && c.plan.drifts.first().is_some_and(|(_, ppm)| *ppm >= 1_000)
    };
    let shrunk = shrink_while(&base, start, 200, keeps);
    assert_eq!(times(&shrunk.candidate.plan.faults), [(3_000, 9_000)]);
    assert_eq!(shrunk.candidate.plan.drifts, [(NodeId(0), 1_000)]);
}
