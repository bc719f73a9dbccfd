//! `[[clock]]` entries: a node's clock offset, drift and wall-clock jumps. The jumps become
//! `clock_jump` faults at their times, exactly as if written as `[[fault]]` entries.

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs};
use locksim_sim::clock::{DRIFT_PPM_MAX, DRIFT_PPM_MIN};
use locksim_sim::{ClockSpec, FaultAction, FaultEntry, NodeId, Trigger};

use super::topology::Topology;

/// Ten years: the cap on a clock offset or jump.
const MAX_STEP_MS: i64 = 10 * 365 * 24 * 3_600_000;

/// Where an entry is written, its key and line: for errors found after parsing.
pub type At = (String, usize);

pub struct Clocks {
    pub specs: Vec<(NodeId, ClockSpec)>,
    /// Per spec, its table's key (`clock[0]`) and line, for errors found later.
    pub tables: Vec<At>,
    pub jumps: Vec<FaultEntry>,
    /// Per jump, its `by_ms` key and line, for errors found later.
    pub jump_keys: Vec<At>,
}

pub fn parse(
    items: Vec<locksim_protocols::knobs::KnobEntry>,
    topo: &Topology,
    duration_ms: u64,
) -> Result<Clocks, KnobError> {
    let mut clocks = Clocks {
        specs: Vec::new(),
        tables: Vec::new(),
        jumps: Vec::new(),
        jump_keys: Vec::new(),
    };
    // Each node's table so far, with its index and line: a second one for the same node is
    // an error, not a silent replacement of the first.
    let mut tables: Vec<(NodeId, usize, usize)> = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let section = format!("clock[{i}]");
        let KnobValue::Table(entries) = item.value else {
            return Err(KnobError {
                key: section,
                line: Some(item.line),
                message: "must be a table ([[clock]])".into(),
            });
        };
        let mut k = Knobs::new(section, Some(item.line), entries);
        let node = topo.node(&mut k, "node", "the node whose clock this is")?;
        if let Some((j, line)) = tables.iter().find(|(n, _, _)| *n == node).map(|(_, j, l)| (*j, *l)) {
            return Err(k.error(
                "node",
                format!(
                    "{} already has a [[clock]] (clock[{j}], line {line}); a node has one clock: \
                     put its offset, drift and jumps in one table",
                    topo.name(node)
                ),
            ));
        }
        tables.push((node, i, item.line));
        let offset_ms = k.int(
            "offset_ms",
            0,
            -MAX_STEP_MS,
            MAX_STEP_MS,
            "wall clock reading at true time 0",
        )?;
        let drift_ppm = k.int(
            "drift_ppm",
            0,
            i64::from(DRIFT_PPM_MIN),
            i64::from(DRIFT_PPM_MAX),
            "rate error of both clocks in parts per million; positive runs fast",
        )?;
        for (jump, at) in jumps(&mut k, i, node, duration_ms)? {
            clocks.jumps.push(jump);
            clocks.jump_keys.push(at);
        }
        k.finish()?;
        clocks.tables.push((format!("clock[{i}]"), item.line));
        clocks.specs.push((
            node,
            ClockSpec {
                offset_ns: offset_ms * 1_000_000,
                drift_ppm: drift_ppm as i32,
            },
        ));
    }
    Ok(clocks)
}

/// `jumps` of clock `i` (of `node`): each a wall-clock step at a true time, as the
/// `clock_jump` fault it becomes, with its `by_ms` key and line.
fn jumps(k: &mut Knobs, i: usize, node: NodeId, duration_ms: u64) -> Result<Vec<(FaultEntry, At)>, KnobError> {
    let Some(jumps) = k.raw("jumps", "array of { at_ms, by_ms }", "wall-clock steps") else {
        return Ok(Vec::new());
    };
    let KnobValue::List(jumps) = jumps else {
        return Err(k.error("jumps", "must be an array of { at_ms, by_ms } tables"));
    };
    let mut out = Vec::new();
    for (j, jump) in jumps.into_iter().enumerate() {
        let section = format!("clock[{i}].jumps[{j}]");
        let KnobValue::Table(entries) = jump.value else {
            return Err(KnobError {
                key: section,
                line: Some(jump.line),
                message: "must be a table { at_ms, by_ms }".into(),
            });
        };
        let mut jk = Knobs::new(section, Some(jump.line), entries);
        for key in ["at_ms", "by_ms"] {
            if !jk.has(key) {
                return Err(jk.error(key, format!("missing: a jump needs `{key}`")));
            }
        }
        let at_ns = jk.millis("at_ms", 0, 0, duration_ms, "true time of the jump")?;
        let by_ms = jk.int("by_ms", 0, -MAX_STEP_MS, MAX_STEP_MS, "signed size of the jump")?;
        jk.finish()?;
        out.push((
            FaultEntry {
                trigger: Trigger::At { at_ns },
                action: FaultAction::ClockJump {
                    node,
                    by_ns: by_ms * 1_000_000,
                },
            },
            (format!("clock[{i}].jumps[{j}].by_ms"), jump.line),
        ));
    }
    Ok(out)
}
