//! `replay`: re-runs a trace's embedded scenario with its seed and reports the first event
//! that differs, or else what the recorded result states that the replay does not give. The
//! recorded events are read from the file as the replay reaches them.

use std::sync::mpsc::{self, Receiver};

use locksim_sim::trace::{Passing, TraceSink};
use serde_json::Value;

use crate::load::{LoadError, LoadedScenario, parse_with_space};
use crate::run_result::RunResult;
use crate::trace_file::TraceFile;

/// What a replay found.
#[derive(Clone, Debug, PartialEq)]
pub enum Replay {
    /// Every event and everything the recorded result states came out the same.
    Identical { events: usize },
    /// The first event that differs; `None` where one side has no event at that index.
    Diverged {
        index: usize,
        recorded: Option<Value>,
        replayed: Option<Value>,
    },
    /// The events agree but the recorded result does not: its verdicts, its file, its hash...
    /// were edited, or were never this run's.
    ResultDiffers { differences: Vec<Difference> },
    /// The replay stopped short (it stalled, or spent its event budget), explained.
    Stopped { explained: String },
}

/// One place where the recorded result and the replayed one differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// Where, as a path into the result: `verdicts.stale_write`, `violations[0].why`.
    pub path: String,
    /// `None` where that side has no such key.
    pub recorded: Option<Value>,
    pub replayed: Option<Value>,
}

/// DESIGN section 6's keys of a run's result: a trace must state them. locksim's additions may
/// be missing from a trace an earlier locksim wrote; those are compared when it states them.
const DESIGN_RESULT_KEYS: &[&str] = &[
    "scenario",
    "seed",
    "protocol",
    "verdicts",
    "violations",
    "events",
    "trace_sha256",
];

/// Why a trace could not be replayed.
#[derive(Debug)]
pub enum ReplayError {
    /// The embedded scenario does not load.
    Scenario(LoadError),
    /// The events could not be read again (the file changed or vanished since it was read).
    Trace(String),
}

/// Recorded events read ahead of the replay: enough to keep the reader busy, few enough that
/// memory does not depend on the trace's length.
const READ_AHEAD: usize = 64;

/// Re-runs the trace's scenario with its seed and compares every event, then the result the
/// trace states against the replayed one. The embedded scenario is named by the trace's
/// `scenario_file` label, which is compared too (the result records it as `file`).
///
/// The run hands its events to a sink and the file's parser hands its events to a callback,
/// so the recorded events are read on a thread of their own and passed through a bounded
/// channel: each replayed event is compared with the recorded one as it passes, and neither
/// side is held whole. The comparison is in event order whatever the threads' timing.
pub fn replay(trace: &TraceFile, max_events: u64) -> Result<Replay, ReplayError> {
    let (mut scenario, space) =
        parse_with_space(&trace.scenario_file, &trace.scenario_text).map_err(ReplayError::Scenario)?;
    scenario.max_events = max_events;
    let loaded = LoadedScenario {
        scenario,
        space,
        file: trace.scenario_file.clone(),
        source: trace.scenario_text.clone(),
    };
    let (sender, recorded) = mpsc::sync_channel::<Value>(READ_AHEAD);
    std::thread::scope(|scope| {
        let reader = std::thread::Builder::new()
            .name("trace reader".into())
            .spawn_scoped(scope, move || {
                // A send fails only once the replay stopped listening: it has what it needs.
                let mut unheard = false;
                let read = trace.each_event(&mut |_, line| {
                    sender.send(line).map_err(|_| {
                        unheard = true;
                        String::new()
                    })
                });
                if unheard { Ok(()) } else { read }
            })
            .map_err(|e| ReplayError::Trace(format!("cannot start the trace reader: {e}")))?;
        let found = compare(trace, &loaded, recorded);
        match reader.join() {
            Ok(Err(e)) => Err(ReplayError::Trace(e)),
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(Ok(())) => Ok(found),
        }
    })
}

/// The replay of `loaded` against the events `recorded` brings, in order.
fn compare(trace: &TraceFile, loaded: &LoadedScenario, recorded: Receiver<Value>) -> Replay {
    let mut compared = Compared {
        recorded,
        replayed: 0,
        first: None,
    };
    let replayed_run = RunResult::run_into(loaded, Some(trace.seed), &mut compared);
    if let Some(stop) = replayed_run.outcome.stopped {
        return Replay::Stopped {
            explained: crate::run_stop::explain(loaded, &format!("seed {}", trace.seed), stop),
        };
    }
    if let Some(diverged) = compared.first {
        return diverged;
    }
    if let Ok(extra) = compared.recorded.recv() {
        return Replay::Diverged {
            index: compared.replayed,
            recorded: Some(extra),
            replayed: None,
        };
    }
    let differences = result_differences(&trace.result, &replayed_run.json());
    if !differences.is_empty() {
        return Replay::ResultDiffers { differences };
    }
    Replay::Identical {
        events: compared.replayed,
    }
}

/// Compares each replayed event with the recorded one as the replay goes, keeping only the
/// first difference (after it, nothing more is read).
struct Compared {
    recorded: Receiver<Value>,
    replayed: usize,
    first: Option<Replay>,
}

impl TraceSink for Compared {
    fn take(&mut self, e: &Passing<'_>) {
        self.replayed += 1;
        if self.first.is_some() {
            return;
        }
        let replayed: Value = serde_json::from_str(e.line()).expect("trace lines are JSON");
        let recorded = self.recorded.recv().ok();
        if recorded.as_ref() != Some(&replayed) {
            self.first = Some(Replay::Diverged {
                index: e.index,
                recorded,
                replayed: Some(replayed),
            });
        }
    }
}

/// Where `recorded` (a trace's result) and `replayed` differ: every key the recorded result
/// states, and DESIGN's keys whether stated or not.
fn result_differences(recorded: &Value, replayed: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    let (Some(rec), Some(rep)) = (recorded.as_object(), replayed.as_object()) else {
        out.push(Difference {
            path: "result".into(),
            recorded: Some(recorded.clone()),
            replayed: Some(replayed.clone()),
        });
        return out;
    };
    let mut keys: Vec<&str> = rec.keys().map(String::as_str).collect();
    keys.extend(DESIGN_RESULT_KEYS.iter().filter(|k| !rec.contains_key(**k)));
    keys.sort_unstable();
    for key in keys {
        diff(key.to_string(), rec.get(key), rep.get(key), &mut out);
    }
    out
}

/// Walks two values side by side, down objects and arrays, recording each leaf that differs.
fn diff(path: String, a: Option<&Value>, b: Option<&Value>, out: &mut Vec<Difference>) {
    match (a, b) {
        (Some(Value::Object(x)), Some(Value::Object(y))) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                diff(format!("{path}.{k}"), x.get(k), y.get(k), out);
            }
        }
        (Some(Value::Array(x)), Some(Value::Array(y))) => {
            for i in 0..x.len().max(y.len()) {
                diff(format!("{path}[{i}]"), x.get(i), y.get(i), out);
            }
        }
        _ if a == b => {}
        _ => out.push(Difference {
            path,
            recorded: a.cloned(),
            replayed: b.cloned(),
        }),
    }
}
