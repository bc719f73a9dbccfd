//! A story run for event-by-event tests: the verdicts and the full trace as JSON values, with
//! the lookups every family's story tests make (which event violated, what a node recorded).
//! Each `tests/stories*.rs` adds the lookups only its own model needs.

use locksim::load::load_file;
use locksim::protocols::{Scenario, run};
use locksim::sim::trace::TraceEvent;
use locksim::sim::{Invariant, Recording, Status};
use serde_json::Value;

pub struct Run {
    pub verdicts: Vec<(Invariant, Status)>,
    pub events: Vec<Value>,
}

/// A catalogue scenario (path under `scenarios/`) at `seed`, every event recorded.
pub fn run_story(rel: &str, seed: u64) -> Run {
    run_scenario(&load_file(&super::scenario(rel)).unwrap().scenario, seed)
}

pub fn run_scenario(s: &Scenario, seed: u64) -> Run {
    let mut trace: Vec<TraceEvent> = Vec::new();
    let o = run(s, seed, Recording::Traced(&mut trace));
    Run {
        verdicts: o.verdicts.into_iter().map(|v| (v.invariant, v.status)).collect(),
        events: trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
    }
}

impl Run {
    pub fn status(&self, i: Invariant) -> &Status {
        &self.verdicts.iter().find(|(x, _)| *x == i).unwrap().1
    }

    pub fn held(&self, i: Invariant) -> bool {
        matches!(self.status(i), Status::Held(_))
    }

    /// The event the checker named as the first violation of `i` (panics when `i` held).
    pub fn violated_at(&self, i: Invariant) -> &Value {
        match self.status(i) {
            Status::Violated(v) => &self.events[v.event],
            other => panic!("{i} not violated: {other:?}"),
        }
    }

    /// Every event of `kind` that `node` recorded, in order.
    pub fn all(&self, node: &str, kind: &str) -> Vec<&Value> {
        self.events
            .iter()
            .filter(|e| e["node"] == node && e["kind"] == kind)
            .collect()
    }

    /// Every event of `kind`, whichever node recorded it.
    pub fn kind(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["kind"] == kind).collect()
    }

    pub fn first(&self, node: &str, kind: &str) -> &Value {
        self.all(node, kind)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{node} never recorded {kind}"))
    }
}

/// An event's true time in nanoseconds.
pub fn t(e: &Value) -> u64 {
    e["t_ns"].as_u64().unwrap()
}

/// Verdicts a story claims beyond its `[expect]` — `(scenario under scenarios/, invariant,
/// "held" | "violated" | "not_applicable")` — checked for seeds 0..100 as the catalogue is.
pub fn claims_hold_for_seeds_0_to_100(claims: &[(&str, Invariant, &str)]) {
    for (rel, invariant, expected) in claims {
        let s = load_file(&super::scenario(rel)).unwrap().scenario;
        for seed in 0..100 {
            let o = run(&s, seed, Recording::Facts);
            let got = o
                .verdicts
                .iter()
                .find(|v| v.invariant == *invariant)
                .unwrap()
                .status
                .word();
            assert_eq!(got, *expected, "{rel} seed {seed}: {invariant}");
        }
    }
}
