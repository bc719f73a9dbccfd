//! One run of a loaded scenario, judged against its `[expect]`, and its JSON result
//! (DESIGN section 6: `scenario`, `seed`, `protocol`, `verdicts`, `violations`, `events`,
//! `trace_sha256`; locksim adds `file`, `expect`, `as_expected`, `stats` and `unfired_faults`).

use locksim_protocols::{Expected, Outcome, run};
use locksim_sim::time::fmt_secs;
use locksim_sim::trace::{TraceHash, TraceSink};
use locksim_sim::{Invariant, Recording, Status, Trigger};
use serde_json::{Map, Value, json};

use crate::load::{LoadedScenario, fault_lines};

/// One run's result: the loaded scenario, the seed, what the run recorded and judged, and
/// the trace's hash (`locksim report` is another thing: the catalogue's matrix).
pub struct RunResult<'a> {
    pub loaded: &'a LoadedScenario,
    pub seed: u64,
    pub outcome: Outcome,
    /// `None` for a run that wrote no trace line ([`RunResult::untraced`]).
    pub trace_sha256: Option<String>,
}

/// An expectation the run did not meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub invariant: Invariant,
    pub expected: Expected,
    pub got: &'static str,
}

/// A fault of the scenario's own plan that never fired: the run did not test what the file
/// says it tests, so its verdicts cannot meet the `[expect]` written for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfiredFault {
    /// Its index in the plan: `fault[index]`, as load errors name it.
    pub index: usize,
    /// The line of its `[[fault]]` table; `None` for a `[[clock]]` jump.
    pub line: Option<usize>,
    pub kind: &'static str,
    pub node: Option<String>,
    pub trigger: Trigger,
    /// How many times the `after` event was recorded (fewer than `nth`).
    pub seen: u32,
}

impl UnfiredFault {
    /// Where it is written: `fault[0] (line 9)`.
    pub fn label(&self) -> String {
        match self.line {
            Some(line) => format!("fault[{}] (line {line})", self.index),
            None => format!("fault plan entry {} (a [[clock]] jump)", self.index),
        }
    }

    /// What it would have done and why it did not: `pause of client-0 after the 1st
    /// client-0:write_rejected, which client-0 recorded 0 times`.
    pub fn describe(&self, names: &locksim_sim::Names) -> String {
        let what = match &self.node {
            Some(node) => format!("{} of {node}", self.kind),
            None => self.kind.to_string(),
        };
        match &self.trigger {
            Trigger::At { at_ns } => format!("{what} at {}, which the run never reached", fmt_secs(*at_ns)),
            Trigger::After { node, event, nth } => {
                let node = names.of(*node);
                let seen = match self.seen {
                    1 => "once".to_string(),
                    n => format!("{n} times"),
                };
                format!(
                    "{what} after the {} {node}:{event}, which {node} recorded {seen}",
                    ordinal(*nth)
                )
            }
        }
    }

    pub fn json(&self, names: &locksim_sim::Names) -> Value {
        let trigger = match &self.trigger {
            Trigger::At { at_ns } => json!({"at_ns": at_ns}),
            Trigger::After { node, event, nth } => json!({
                "after": format!("{}:{event}", names.of(*node)),
                "nth": nth,
                "seen": self.seen,
            }),
        };
        json!({
            "index": self.index,
            "line": self.line,
            "kind": self.kind,
            "node": self.node,
            "trigger": trigger,
        })
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, `11th`, `21st`, ...
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl<'a> RunResult<'a> {
    /// Runs the scenario with `seed` (its own seed when `None`), recording everything and
    /// hashing its trace as it goes.
    pub fn run(loaded: &'a LoadedScenario, seed: Option<u64>) -> Self {
        Self::run_into(loaded, seed, &mut ())
    }

    /// Runs the scenario as [`RunResult::run`] does, handing each event to `sink` as well
    /// (a trace file, a timeline's selection...) the moment it happens.
    pub fn run_into(loaded: &'a LoadedScenario, seed: Option<u64>, sink: &mut dyn TraceSink) -> Self {
        let seed = seed.unwrap_or(loaded.scenario.seed);
        let mut hash = TraceHash::default();
        let outcome = run(&loaded.scenario, seed, Recording::Traced(&mut (&mut hash, sink)));
        RunResult {
            loaded,
            seed,
            outcome,
            trace_sha256: Some(hash.hex()),
        }
    }

    /// Runs the scenario with every event counted and judged as in a trace, but no trace line
    /// written: for a caller that needs neither the lines nor their hash.
    pub fn untraced(loaded: &'a LoadedScenario, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or(loaded.scenario.seed);
        RunResult {
            loaded,
            seed,
            outcome: run(&loaded.scenario, seed, Recording::Full),
            trace_sha256: None,
        }
    }

    pub fn status(&self, invariant: Invariant) -> Option<&Status> {
        self.outcome
            .verdicts
            .iter()
            .find(|v| v.invariant == invariant)
            .map(|v| &v.status)
    }

    pub fn mismatches(&self) -> Vec<Mismatch> {
        self.loaded
            .scenario
            .expect
            .iter()
            .filter_map(|&(invariant, expected)| {
                let got = self.status(invariant).map_or("not_applicable", Status::word);
                (got != expected.word()).then_some(Mismatch {
                    invariant,
                    expected,
                    got,
                })
            })
            .collect()
    }

    /// The faults of the scenario's plan that never fired, in plan order.
    pub fn unfired(&self) -> Vec<UnfiredFault> {
        let lines = fault_lines(&self.loaded.source);
        let names = self.names();
        self.outcome
            .unfired_faults
            .iter()
            .map(|u| {
                let index = u.fault as usize;
                let entry = &self.loaded.scenario.faults.entries[index];
                UnfiredFault {
                    index,
                    line: lines.get(index).copied(),
                    kind: entry.action.kind(),
                    node: entry.action.node().map(|n| names.of(n).to_string()),
                    trigger: entry.trigger.clone(),
                    seen: u.seen,
                }
            })
            .collect()
    }

    /// The scenario's node names, for naming a fault's nodes.
    pub fn names(&self) -> locksim_sim::Names {
        self.loaded.scenario.names()
    }

    /// Exit 0 material: every fault of the scenario fired, and with `[expect]` the run matched
    /// it; without, nothing was violated.
    pub fn as_expected(&self) -> bool {
        if !self.outcome.unfired_faults.is_empty() {
            return false;
        }
        if self.loaded.scenario.expect.is_empty() {
            !self
                .outcome
                .verdicts
                .iter()
                .any(|v| matches!(v.status, Status::Violated(_)))
        } else {
            self.mismatches().is_empty()
        }
    }

    pub fn json(&self) -> Value {
        let s = &self.loaded.scenario;
        let names = self.names();
        let mut verdicts = Map::new();
        let mut violations = Vec::new();
        for v in &self.outcome.verdicts {
            verdicts.insert(v.invariant.id().into(), v.status.word().into());
            if let Status::Violated(x) = &v.status {
                violations.push(json!({
                    "invariant": v.invariant.id(),
                    "t_ns": x.t_ns,
                    "event": x.event,
                    "why": x.why,
                }));
            }
        }
        let expect: Map<String, Value> = s
            .expect
            .iter()
            .map(|(i, e)| (i.id().to_string(), e.word().into()))
            .collect();
        json!({
            "scenario": s.name,
            "file": self.loaded.file,
            "seed": self.seed,
            "protocol": s.protocol.kind(),
            "verdicts": verdicts,
            "violations": violations,
            "expect": expect,
            "as_expected": self.as_expected(),
            "events": self.outcome.events,
            "stats": self.outcome.stats,
            "trace_sha256": self.trace_sha256,
            "unfired_faults": self.unfired().iter().map(|u| u.json(&names)).collect::<Vec<_>>(),
        })
    }
}
