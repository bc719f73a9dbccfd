//! A history of issued IDs for the ID judges' tests: two generators, one observation a
//! millisecond, each carrying an ID or not.

use locksim_sim::{Event, History, Names, NodeId, Stats, What};

use super::{HexId, IssuesIds};

/// An observation that may carry an issued ID.
pub(super) struct Obs(pub(super) Option<u64>);

impl IssuesIds for Obs {
    type Id = HexId;

    fn issued_id(&self) -> Option<HexId> {
        self.0.map(HexId)
    }
}

/// A history of `(node, id)` observations by `client-0` and `client-1`, one per millisecond.
pub(super) fn history(issued: &[(u32, Option<u64>)]) -> History<(), Obs> {
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
