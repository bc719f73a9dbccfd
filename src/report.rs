//! One run of a loaded scenario, judged against its `[expect]`, and its JSON result
//! (DESIGN section 6: `scenario`, `seed`, `protocol`, `verdicts`, `violations`, `events`,
//! `trace_sha256`; locksim adds `file`, `expect`, `as_expected` and `stats`).

use locksim_protocols::{Expected, Outcome, run};
use locksim_sim::trace::sha256_hex;
use locksim_sim::{Invariant, Level, Status};
use serde_json::{Map, Value, json};

use crate::load::LoadedScenario;

pub struct RunReport<'a> {
    pub loaded: &'a LoadedScenario,
    pub seed: u64,
    pub outcome: Outcome,
    pub trace_sha256: String,
}

/// An expectation the run did not meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub invariant: Invariant,
    pub expected: Expected,
    pub got: &'static str,
}

impl<'a> RunReport<'a> {
    /// Runs the scenario with `seed` (its own seed when `None`), recording everything.
    pub fn run(loaded: &'a LoadedScenario, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or(loaded.scenario.seed);
        let outcome = run(&loaded.scenario, seed, Level::Full);
        let trace_sha256 = sha256_hex(outcome.trace.iter().map(|e| e.json.as_str()));
        RunReport {
            loaded,
            seed,
            outcome,
            trace_sha256,
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

    /// Exit 0 material: with `[expect]`, the run matched it; without, nothing was violated.
    pub fn as_expected(&self) -> bool {
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
            "events": self.outcome.trace.len(),
            "stats": self.outcome.stats,
            "trace_sha256": self.trace_sha256,
        })
    }
}
