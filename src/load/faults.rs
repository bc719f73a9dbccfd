//! `[[fault]]` entries (DESIGN section 3 and the scenario-file table of section 6).

use locksim_protocols::knobs::{KnobEntry, KnobError, KnobValue, Knobs};
use locksim_sim::{FaultAction, FaultEntry, NodeId, Trigger};

use super::topology::Topology;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Kind {
    Pause,
    Crash,
    Partition,
    Isolate,
    ClockJump,
    Delay,
    Loss,
    Duplicate,
    Failover,
}

const KINDS: &[(&str, Kind)] = &[
    ("pause", Kind::Pause),
    ("crash", Kind::Crash),
    ("partition", Kind::Partition),
    ("isolate", Kind::Isolate),
    ("clock_jump", Kind::ClockJump),
    ("delay", Kind::Delay),
    ("loss", Kind::Loss),
    ("duplicate", Kind::Duplicate),
    ("failover", Kind::Failover),
];

/// Fault kinds with their fields, for `locksim list`.
pub const FAULT_DOCS: &[(&str, &str)] = &[
    (
        "pause",
        "node, duration_ms, suspend (default false: GC / SIGSTOP; true: VM suspend, monotonic clock stops)",
    ),
    (
        "crash",
        "node, restart_after_ms (absent: never restarts); volatile state is lost",
    ),
    (
        "partition",
        "groups (lists of node names), one_way (default false; true drops only what the first group sends to the others, while they still reach it), heal_after_ms (absent: never)",
    ),
    ("isolate", "node, heal_after_ms: cuts every link to and from the node"),
    ("clock_jump", "node, by_ms (signed): steps the wall clock only"),
    (
        "delay",
        "from, to, window_ms, extra_ms: messages sent in the window arrive extra_ms later",
    ),
    (
        "loss",
        "from, to (both optional: all links), probability (0..1), window_ms (absent: for ever)",
    ),
    (
        "duplicate",
        "from, to (optional), probability (0..1), window_ms: messages arrive twice",
    ),
    (
        "failover",
        "node: promote the replica of a replicated store (needs a protocol with a replica)",
    ),
];

/// Thirty days, in ms: the cap on every fault duration.
const MAX_FAULT_MS: u64 = 30 * 24 * 3_600_000;

/// The most entries a fault plan may hold, `[[fault]]` tables and `[[clock]]` jumps
/// together: the catalogue's largest has 2, and every entry costs the loader and the run
/// (233,000 of them, a 16 MiB file, took 780 MB and struck all at one instant).
pub const MAX_PLAN_ENTRIES: usize = 10_000;

/// Refuses a plan of more than [`MAX_PLAN_ENTRIES`], at the entry past the limit: a
/// `[[fault]]` table (its line in `fault_lines`) or a `[[clock]]` jump (its key and line).
pub fn check_plan_size(fault_lines: &[usize], clock_jumps: &[(String, usize)]) -> Result<(), KnobError> {
    if fault_lines.len() + clock_jumps.len() <= MAX_PLAN_ENTRIES {
        return Ok(());
    }
    let (key, line) = match fault_lines.get(MAX_PLAN_ENTRIES) {
        Some(&line) => (format!("fault[{MAX_PLAN_ENTRIES}]"), line),
        None => clock_jumps[MAX_PLAN_ENTRIES - fault_lines.len()].clone(),
    };
    Err(KnobError {
        key,
        line: Some(line),
        message: format!(
            "the fault plan has {} entries ([[fault]] tables and [[clock]] jumps); at most {MAX_PLAN_ENTRIES} are taken",
            fault_lines.len() + clock_jumps.len()
        ),
    })
}

pub fn parse(items: Vec<KnobEntry>, topo: &Topology, duration_ms: u64) -> Result<Vec<FaultEntry>, KnobError> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let section = format!("fault[{i}]");
            let KnobValue::Table(entries) = item.value else {
                return Err(KnobError {
                    key: section,
                    line: Some(item.line),
                    message: "must be a table ([[fault]])".into(),
                });
            };
            let mut k = Knobs::new(section, Some(item.line), entries);
            let entry = parse_one(&mut k, topo, duration_ms)?;
            k.finish()?;
            Ok(entry)
        })
        .collect()
}

fn parse_one(k: &mut Knobs, topo: &Topology, duration_ms: u64) -> Result<FaultEntry, KnobError> {
    if !k.has("kind") {
        let kinds: Vec<&str> = KINDS.iter().map(|(n, _)| *n).collect();
        return Err(k.error(
            "kind",
            format!("missing: every fault needs a kind ({})", kinds.join(", ")),
        ));
    }
    let kind = k.choice("kind", KINDS, Kind::Pause, "what the fault does")?;
    // The fault's own node, when it has one: `after = "acquired"` refers to it.
    let own = match kind {
        Kind::Pause | Kind::Crash | Kind::Isolate | Kind::ClockJump | Kind::Failover => {
            Some(topo.node(k, "node", "the node the fault strikes")?)
        }
        _ => None,
    };
    let trigger = trigger(k, topo, own, duration_ms)?;
    let action = action(k, topo, kind, own)?;
    Ok(FaultEntry { trigger, action })
}

/// What a fault of `kind` does, read from its table; `own` is its node, when it has one.
fn action(k: &mut Knobs, topo: &Topology, kind: Kind, own: Option<NodeId>) -> Result<FaultAction, KnobError> {
    Ok(match kind {
        Kind::Pause => FaultAction::Pause {
            node: own.expect("pause has a node"),
            duration_ns: required_millis(k, "duration_ms", 1, "how long the node runs nothing")?,
            suspend: k.bool("suspend", false, "VM suspend: the monotonic clock stops too")?,
        },
        Kind::Crash => FaultAction::Crash {
            node: own.expect("crash has a node"),
            restart_after_ns: optional_millis(k, "restart_after_ms", 0, "restart this long after the crash")?,
        },
        Kind::Partition => partition(k, topo)?,
        Kind::Isolate => FaultAction::Isolate {
            node: own.expect("isolate has a node"),
            heal_after_ns: optional_millis(k, "heal_after_ms", 1, "heal this long after the cut")?,
        },
        Kind::ClockJump => {
            if !k.has("by_ms") {
                return Err(k.error("by_ms", "missing: a clock jump needs `by_ms`"));
            }
            let max = MAX_FAULT_MS as i64;
            FaultAction::ClockJump {
                node: own.expect("clock_jump has a node"),
                by_ns: k.int("by_ms", 0, -max, max, "signed size of the wall-clock step")? * 1_000_000,
            }
        }
        Kind::Delay => FaultAction::Delay {
            from: topo.node(k, "from", "sender")?,
            to: topo.node(k, "to", "receiver")?,
            window_ns: required_millis(k, "window_ms", 1, "messages sent within this window are delayed")?,
            extra_ns: required_millis(k, "extra_ms", 1, "added latency")?,
        },
        Kind::Loss | Kind::Duplicate => {
            if !k.has("probability") {
                return Err(k.error("probability", "missing: give a probability between 0 and 1"));
            }
            FaultAction::Loss {
                from: topo.optional_node(k, "from", "sender (absent: any)")?,
                to: topo.optional_node(k, "to", "receiver (absent: any)")?,
                ppm: k.fraction_ppm("probability", 0, "per-message probability")?,
                window_ns: optional_millis(k, "window_ms", 1, "how long the links stay lossy")?,
                duplicate: kind == Kind::Duplicate,
            }
        }
        Kind::Failover => {
            let node = own.expect("failover has a node");
            if !topo.can_fail_over(node) {
                return Err(k.error(
                    "node",
                    format!(
                        "failover promotes a replica, and {} has none (single-redis: set replicas = 1)",
                        topo.name(node)
                    ),
                ));
            }
            FaultAction::Failover { node }
        }
    })
}

fn required_millis(k: &mut Knobs, key: &str, min_ms: u64, doc: &'static str) -> Result<u64, KnobError> {
    if !k.has(key) {
        return Err(k.error(key, format!("missing: this fault needs `{key}`")));
    }
    k.millis(key, min_ms, min_ms, MAX_FAULT_MS, doc)
}

fn optional_millis(k: &mut Knobs, key: &str, min_ms: u64, doc: &'static str) -> Result<Option<u64>, KnobError> {
    if !k.has(key) {
        return Ok(None);
    }
    k.millis(key, min_ms, min_ms, MAX_FAULT_MS, doc).map(Some)
}

/// `at_ms`, or `after` (+ `nth`): exactly one of them.
fn trigger(k: &mut Knobs, topo: &Topology, own: Option<NodeId>, duration_ms: u64) -> Result<Trigger, KnobError> {
    match (k.has("at_ms"), k.has("after")) {
        (true, true) => Err(k.error("after", "give either `at_ms` or `after`, not both")),
        (false, false) => Err(k.error("at_ms", "missing: a fault needs `at_ms` or `after`")),
        (true, false) => {
            if k.has("nth") {
                return Err(k.error(
                    "nth",
                    "`nth` counts occurrences of an `after` event; it does not go with `at_ms`",
                ));
            }
            let at_ns = k.millis("at_ms", 0, 0, duration_ms, "true time at which the fault fires")?;
            Ok(Trigger::At { at_ns })
        }
        (false, true) => {
            let after = k.text(
                "after",
                "",
                "the event (`event` or `node:event`) the fault fires right after",
            )?;
            let (node, event) = match after.split_once(':') {
                Some((node, event)) => (topo.resolve(k, "after", node)?, event),
                None => match own {
                    Some(n) => (topo.resolve(k, "after", topo.name(n))?, after.as_str()),
                    None => return Err(k.error("after", "this fault has no node of its own: write `node:event`")),
                },
            };
            let event = event.to_string();
            if !topo.events(node).contains(&event.as_str()) {
                return Err(k.error(
                    "after",
                    format!(
                        "{} records no event \"{event}\"; its events are {}",
                        topo.name(node),
                        topo.events(node).join(", ")
                    ),
                ));
            }
            let nth = k.uint("nth", 1, 1, 1_000_000, "which occurrence of the event")? as u32;
            Ok(Trigger::After { node, event, nth })
        }
    }
}

fn partition(k: &mut Knobs, topo: &Topology) -> Result<FaultAction, KnobError> {
    let Some(KnobValue::List(groups)) = k.raw("groups", "array of arrays of node names", "the sides of the partition")
    else {
        return Err(k.error(
            "groups",
            "missing or not an array: give `groups = [[\"client-0\"], [\"server-0\"]]`",
        ));
    };
    if groups.len() < 2 {
        return Err(k.error("groups", "a partition needs at least two groups"));
    }
    let mut seen = vec![false; topo.len()];
    let mut sides = Vec::new();
    for group in groups {
        let KnobValue::List(names) = group.value else {
            return Err(k.error("groups", "each group must be an array of node names"));
        };
        if names.is_empty() {
            return Err(k.error("groups", "a group cannot be empty"));
        }
        let mut side = Vec::new();
        for name in names {
            let KnobValue::Str(name) = name.value else {
                return Err(k.error("groups", "node names must be strings"));
            };
            let node = topo.resolve(k, "groups", &name)?;
            if std::mem::replace(&mut seen[node.index()], true) {
                return Err(k.error("groups", format!("node \"{name}\" is in two groups")));
            }
            side.push(node);
        }
        sides.push(side);
    }
    Ok(FaultAction::Partition {
        groups: sides,
        one_way: k.bool("one_way", false, "cut only messages from the first group to the others")?,
        heal_after_ns: optional_millis(k, "heal_after_ms", 1, "heal this long after the cut")?,
    })
}
