//! Many seeds, on threads (one madsim runtime per thread, each seed a runtime of its own), and
//! the summary `locksim explore --format json` prints; one seed written as a trace file.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use locksim::load::LoadedScenario;
use locksim::run_result::RunResult;
use locksim::trace_write::TraceWriter;
use locksim_sim::trace::{Page, Passing, TraceHash, TraceSink};
use locksim_sim::{Level, Status};
use serde_json::{Map, Value, json};

use crate::run::{ClientFn, run};

/// The seed a user gave madsim's way: `MADSIM_TEST_SEED`, if set (an error if not a number).
pub fn seed_from_env() -> Result<Option<u64>, String> {
    match std::env::var("MADSIM_TEST_SEED") {
        Ok(s) => s
            .parse()
            .map(Some)
            .map_err(|_| format!("MADSIM_TEST_SEED={s:?} is not a seed (an unsigned integer)")),
        Err(_) => Ok(None),
    }
}

/// What a set of seeds found: per invariant, how many seeds violated it and the first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub seeds: u64,
    pub violations: BTreeMap<&'static str, (u64, u64)>,
    /// The model's invariants in verdict order.
    pub judged: Vec<&'static str>,
}

impl Summary {
    /// The invariants violated in at least one seed.
    pub fn violated(&self) -> Vec<&'static str> {
        self.violations.keys().copied().collect()
    }

    /// The JSON `locksim explore --format json` prints (`seeds`, `violations` with `count`
    /// and `first_seed`, `never_violated`), with the scenario and its file.
    pub fn json(&self, loaded: &LoadedScenario) -> Value {
        let violations: Map<String, Value> = self
            .violations
            .iter()
            .map(|(i, (count, first))| (i.to_string(), json!({"count": count, "first_seed": first})))
            .collect();
        let never: Vec<&str> = self
            .judged
            .iter()
            .filter(|i| !self.violations.contains_key(*i))
            .copied()
            .collect();
        json!({
            "scenario": loaded.scenario.name,
            "file": loaded.file,
            "front_end": "madsim",
            "seeds": self.seeds,
            "first_failing_seed": self.violations.values().map(|(_, first)| *first).min(),
            "violations": violations,
            "never_violated": never,
        })
    }
}

/// A seed and the invariants it violated.
type SeedResult = (u64, Vec<&'static str>);

/// The violated invariants of one seed, judged at the checkers' level.
fn violated(loaded: &LoadedScenario, seed: u64, client: &ClientFn) -> Result<Vec<&'static str>, String> {
    let r = run(&loaded.scenario, seed, Level::Facts, None, client)?;
    Ok(r.outcome
        .verdicts
        .iter()
        .filter(|v| matches!(v.status, Status::Violated(_)))
        .map(|v| v.invariant.id())
        .collect())
}

/// Runs `seeds` on `jobs` threads and sums them up; the summary does not depend on `jobs`.
pub fn explore(loaded: &LoadedScenario, seeds: Range<u64>, jobs: usize, client: &ClientFn) -> Result<Summary, String> {
    let jobs = jobs.clamp(1, 64) as u64;
    let results: Vec<Result<Vec<SeedResult>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|t| {
                let (seeds, first) = (seeds.clone(), seeds.start);
                scope.spawn(move || {
                    seeds
                        .filter(|s| (s - first) % jobs == t)
                        .map(|s| violated(loaded, s, client).map(|v| (s, v)))
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a seed's run panicked".into())))
            .collect()
    });
    let mut per_seed = Vec::new();
    for r in results {
        per_seed.extend(r?);
    }
    per_seed.sort();
    let mut summary = Summary {
        seeds: per_seed.len() as u64,
        judged: loaded
            .scenario
            .protocol
            .spec()
            .invariants
            .iter()
            .map(|i| i.id())
            .collect(),
        ..Summary::default()
    };
    for (seed, invariants) in per_seed {
        for i in invariants {
            summary.violations.entry(i).or_insert((0, seed)).0 += 1;
        }
    }
    Ok(summary)
}

/// A trace sink the caller keeps a handle on: the run owns one box, the caller reads the
/// sink back when the run is over.
pub struct SharedSink<T>(pub Arc<Mutex<T>>);

impl<T: TraceSink> TraceSink for SharedSink<T> {
    fn take(&mut self, e: &Passing<'_>) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take(e);
    }

    fn take_page(&mut self, page: &Page<'_>) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take_page(page);
    }

    fn takes_each(&self) -> bool {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).takes_each()
    }
}

/// Runs one seed and writes its trace to `path` (the native trace format: header with the
/// scenario, every event's line, the result); returns the result JSON.
pub fn run_traced(loaded: &LoadedScenario, seed: u64, path: &Path, client: &ClientFn) -> Result<Value, String> {
    let file = File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let writer =
        TraceWriter::begin(BufWriter::new(file), loaded, seed).map_err(|e| format!("{}: {e}", path.display()))?;
    let sink = Arc::new(Mutex::new((TraceHash::default(), writer)));
    let r = run(
        &loaded.scenario,
        seed,
        Level::Full,
        Some(Box::new(SharedSink(sink.clone()))),
        client,
    )?;
    drop(r.trace);
    let (hash, writer) = Arc::try_unwrap(sink)
        .map_err(|_| "the trace sink is still in use".to_string())?
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let result = RunResult {
        loaded,
        seed,
        outcome: r.outcome,
        trace_sha256: Some(hash.hex()),
    };
    let json = result.json();
    writer.finish(&json).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(json)
}
