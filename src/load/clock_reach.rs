//! How far a scenario can take each wall clock from its epoch: its offset, the run's length
//! at its drift, and the size of every jump on it, added up. A clock reading is `i64`
//! nanoseconds (±292 years); enough 10-year jumps overflowed it (a panic in a debug build, a
//! wall clock silently wrapped to -8.9e9 s in release). Refusing at load, at the entry that
//! crosses the limit, names the clock where the engine could only have wrapped.

use std::collections::BTreeMap;

use locksim_protocols::knobs::KnobError;
use locksim_sim::time::fmt_duration;
use locksim_sim::{FaultAction, FaultEntry, NodeId};

use super::clocks::Clocks;
use super::topology::Topology;

const YEAR_NS: i128 = 365 * 24 * 3_600_000 * 1_000_000;

/// The farthest a wall clock may get from its epoch: 100 years, a third of what an `i64` of
/// nanoseconds holds, so that the faults `explore` adds (32 at most, each at most 30 days)
/// can never take a loaded scenario's clock past it.
const MAX_REACH_NS: i128 = 100 * YEAR_NS;

/// Checks every node's clock reach: its `[[clock]]` table first, then its `clock_jump`
/// faults, then its `[[clock]]` jumps, in file order. The error names the entry at which the
/// reach first passes [`MAX_REACH_NS`]: file line, key and the clock's node.
pub fn check(
    duration_ns: u64,
    clocks: &Clocks,
    plan: &[FaultEntry],
    plan_lines: &[usize],
    topo: &Topology,
) -> Result<(), KnobError> {
    let duration = i128::from(duration_ns);
    let mut reach: BTreeMap<NodeId, i128> = BTreeMap::new();
    let mut add = |node: NodeId, ns: i128, key: String, line: usize| {
        let r = reach.entry(node).or_insert(duration);
        *r += ns;
        if *r <= MAX_REACH_NS {
            return Ok(());
        }
        Err(KnobError {
            key,
            line: Some(line),
            message: format!(
                "the wall clock of {} could get more than {} years from its epoch by this entry (its offset, \
                 the run of {} at its drift, and every jump on it so far, added up), farther than locksim \
                 takes a clock (readings are i64 nanoseconds: about 292 years)",
                topo.name(node),
                MAX_REACH_NS / YEAR_NS,
                fmt_duration(duration_ns),
            ),
        })
    };
    for ((node, spec), (key, line)) in clocks.specs.iter().zip(&clocks.tables) {
        // The run's length at this drift, less the length at none, which every node starts with.
        let drifted = duration * i128::from(spec.drift_ppm) / 1_000_000;
        add(
            *node,
            i128::from(spec.offset_ns).abs() + drifted.max(0),
            format!("{key}.offset_ms"),
            *line,
        )?;
    }
    for (i, (entry, line)) in plan.iter().zip(plan_lines).enumerate() {
        if let FaultAction::ClockJump { node, by_ns } = entry.action {
            add(node, i128::from(by_ns).abs(), format!("fault[{i}].by_ms"), *line)?;
        }
    }
    for (entry, (key, line)) in clocks.jumps.iter().zip(&clocks.jump_keys) {
        if let FaultAction::ClockJump { node, by_ns } = entry.action {
            add(node, i128::from(by_ns).abs(), key.clone(), *line)?;
        }
    }
    Ok(())
}
