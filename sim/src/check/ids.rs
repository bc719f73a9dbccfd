//! `unique_ids` (no ID is issued twice) and `id_monotonic` (each generator's IDs strictly
//! increase), over every event whose observation says it issued an ID.

use std::collections::BTreeMap;

use crate::history::History;
use crate::ids::NodeId;
use crate::node::Observation;
use crate::time::fmt_secs;

use super::{Invariant, Status, Verdict, Violation};

/// Both ID checkers.
pub fn check_ids<M, O: Observation>(h: &History<M, O>) -> Vec<Verdict> {
    let mut first: BTreeMap<u64, (NodeId, u64)> = BTreeMap::new();
    let mut last: BTreeMap<NodeId, u64> = BTreeMap::new();
    let (mut unique, mut monotonic) = (None, None);
    let mut issued = 0;
    for (index, e, o) in h.observations() {
        let Some(id) = o.as_issued_id() else { continue };
        issued += 1;
        if unique.is_none() {
            if let Some((node, t_ns)) = first.get(&id) {
                unique = Some(Violation {
                    event: index,
                    t_ns: e.t_ns,
                    why: format!(
                        "{} issued ID {id:#x} at {}, which {} had issued at {}",
                        h.names.of(e.node),
                        fmt_secs(e.t_ns),
                        h.names.of(*node),
                        fmt_secs(*t_ns)
                    ),
                });
            } else {
                first.insert(id, (e.node, e.t_ns));
            }
        }
        if monotonic.is_none()
            && let Some(prev) = last.get(&e.node)
            && id <= *prev
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
        last.insert(e.node, id);
    }
    let verdict = |v: Option<Violation>, held: String| match (issued, v) {
        (0, _) => Status::NotApplicable("no ID was issued".into()),
        (_, Some(v)) => Status::Violated(v),
        (_, None) => Status::Held(held),
    };
    vec![
        Verdict {
            invariant: Invariant::UniqueIds,
            status: verdict(unique, format!("{issued} IDs issued, all distinct")),
        },
        Verdict {
            invariant: Invariant::IdMonotonic,
            status: verdict(monotonic, format!("{issued} IDs issued, increasing per generator")),
        },
    ]
}
