//! `lost_update`: every accepted counter write was computed from the value current at
//! acceptance. A write computed from an older value silently drops whatever was written since.

use crate::history::History;
use crate::lock_obs::LockObs;
use crate::time::fmt_secs;

use super::{LockFacts, Status, Violation};

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts) -> Status {
    let mut writes = 0;
    for f in &facts.all {
        let LockObs::WriteApplied {
            client,
            value,
            based_on,
            prev_value,
            ..
        } = f.obs
        else {
            continue;
        };
        writes += 1;
        if based_on != prev_value {
            return Status::Violated(Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "the resource accepted {}'s write of {value} at {}, computed from {based_on}, over the current value {prev_value}: an update was lost",
                    h.names.of(*client),
                    fmt_secs(f.t_ns)
                ),
            });
        }
    }
    if writes == 0 {
        Status::NotApplicable("no write was accepted".into())
    } else {
        Status::Held(format!("{writes} accepted writes, each from the current value"))
    }
}
