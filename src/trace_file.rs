//! Trace files (DESIGN section 6): versioned JSON holding the scenario as run (its text), the
//! seed, the engine version, every event — one per line, so traces diff well — and the result
//! (written as the run goes: [`crate::trace_write`]). `replay` re-runs the embedded scenario
//! and reports the first event that differs, or else what the recorded result states that the
//! replay does not give.

use std::path::Path;

use locksim_sim::trace::{Passing, TraceEvent, TraceSink};
use serde_json::Value;

use crate::load::{LoadError, LoadedScenario, parse_with_space};
use crate::render::{Cast, NETWORK};
use crate::run_result::RunResult;

pub const FORMAT: &str = "locksim-trace";
pub const VERSION: u64 = 1;

/// A trace read back.
#[derive(Clone, Debug)]
pub struct TraceFile {
    pub scenario_file: String,
    pub scenario_text: String,
    pub seed: u64,
    pub engine: String,
    pub result: Value,
    pub events: Vec<Value>,
}

/// Reads a trace file; the error says what is wrong with it.
pub fn read(path: &Path) -> Result<TraceFile, String> {
    let text =
        crate::input_file::read_text(path).map_err(|e| format!("{}: cannot read the trace: {e}", path.display()))?;
    let doc: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}:{}: not a JSON trace: {e}", path.display(), e.line()))?;
    let field = |key: &str| {
        doc.get(key)
            .ok_or_else(|| format!("{}: key `{key}`: missing from the trace", path.display()))
    };
    if field("format")?.as_str() != Some(FORMAT) {
        return Err(format!(
            "{}: key `format`: not a locksim trace (expected \"{FORMAT}\")",
            path.display()
        ));
    }
    if field("version")?.as_u64() != Some(VERSION) {
        return Err(format!(
            "{}: key `version`: unsupported trace version (this locksim reads {VERSION})",
            path.display()
        ));
    }
    let text_of = |key: &str| -> Result<String, String> {
        field(key)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("{}: key `{key}`: must be a string", path.display()))
    };
    Ok(TraceFile {
        scenario_file: text_of("scenario_file")?,
        scenario_text: text_of("scenario")?,
        engine: text_of("engine")?,
        seed: field("seed")?
            .as_u64()
            .ok_or_else(|| format!("{}: key `seed`: must be an unsigned integer", path.display()))?,
        result: field("result")?.clone(),
        events: field("events")?
            .as_array()
            .cloned()
            .ok_or_else(|| format!("{}: key `events`: must be an array", path.display()))?,
    })
}

impl TraceFile {
    /// The recorded events, typed, as the live run gave them, checked for what the views rely
    /// on — each an object, numbered in order, in true-time order, on a node of `cast` (the
    /// embedded scenario's) or the network — so an edited trace is refused, naming the event,
    /// rather than drawn wrong.
    pub fn timeline_events(&self, cast: &Cast) -> Result<Vec<TraceEvent>, String> {
        let mut events: Vec<TraceEvent> = Vec::with_capacity(self.events.len());
        for (i, line) in self.events.iter().enumerate() {
            let at = |what: String| format!("key `events[{i}]`: {what}");
            if !line.is_object() {
                return Err(at(format!("must be an event (a JSON object), not {line}")));
            }
            let e = TraceEvent::from_line(line).map_err(|err| at(err.to_string()))?;
            if e.index != i {
                return Err(at(format!("`i` is {}: events are numbered in order from 0", e.index)));
            }
            if let Some(before) = events.last().filter(|b| b.t_ns > e.t_ns) {
                return Err(at(format!(
                    "`t_ns` {} is before the previous event's {}: events are in true-time order",
                    e.t_ns, before.t_ns
                )));
            }
            if e.node != NETWORK && cast.role(&e.node).is_none() {
                return Err(at(format!(
                    "`node` {:?} is not a node of the embedded scenario",
                    e.node
                )));
            }
            events.push(e);
        }
        Ok(events)
    }

    /// The roles of the recorded run's nodes, from the scenario the trace embeds.
    pub fn cast(&self) -> Result<Cast, LoadError> {
        let (scenario, _) = parse_with_space(&self.scenario_file, &self.scenario_text)?;
        Ok(Cast::of(&scenario))
    }
}

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

/// Re-runs the trace's scenario with its seed and compares every event, then the result the
/// trace states against the replayed one. The embedded scenario is named by the trace's
/// `scenario_file` label, which is compared too (the result records it as `file`).
pub fn replay(trace: &TraceFile, max_events: u64) -> Result<Replay, LoadError> {
    let (mut scenario, space) = parse_with_space(&trace.scenario_file, &trace.scenario_text)?;
    scenario.max_events = max_events;
    let loaded = LoadedScenario {
        scenario,
        space,
        file: trace.scenario_file.clone(),
        source: trace.scenario_text.clone(),
    };
    let mut compared = Compared {
        recorded: &trace.events,
        replayed: 0,
        first: None,
    };
    let replayed_run = RunResult::run_into(&loaded, Some(trace.seed), &mut compared);
    if let Some(stop) = replayed_run.outcome.stopped {
        return Ok(Replay::Stopped {
            explained: crate::run_stop::explain(&loaded, &format!("seed {}", trace.seed), stop),
        });
    }
    let n = compared.replayed.max(trace.events.len());
    if let Some(diverged) = compared.first {
        return Ok(diverged);
    }
    if compared.replayed < trace.events.len() {
        return Ok(Replay::Diverged {
            index: compared.replayed,
            recorded: trace.events.get(compared.replayed).cloned(),
            replayed: None,
        });
    }
    let differences = result_differences(&trace.result, &replayed_run.json());
    if !differences.is_empty() {
        return Ok(Replay::ResultDiffers { differences });
    }
    Ok(Replay::Identical { events: n })
}

/// Compares each replayed event with the recorded one as the replay goes, keeping only the
/// first difference.
struct Compared<'a> {
    recorded: &'a [Value],
    replayed: usize,
    first: Option<Replay>,
}

impl TraceSink for Compared<'_> {
    fn take(&mut self, e: &Passing<'_>) {
        self.replayed += 1;
        if self.first.is_some() {
            return;
        }
        let replayed: Value = serde_json::from_str(e.line).expect("trace lines are JSON");
        let recorded = self.recorded.get(e.index);
        if recorded != Some(&replayed) {
            self.first = Some(Replay::Diverged {
                index: e.index,
                recorded: recorded.cloned(),
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
