//! Trace files (DESIGN section 6): versioned JSON holding the scenario as run (its text), the
//! seed, the engine version, every event — one per line, so traces diff well — and the result
//! (written as the run goes: [`crate::trace_write`]). A trace is read as a stream
//! ([`crate::trace_stream`]): first every key but the events, then the events one at a time
//! as a reader needs them, so a trace of any length is read in bounded memory.

use std::path::{Path, PathBuf};

use locksim_protocols::Scenario;
use locksim_sim::trace::TraceEvent;
use serde_json::Value;

use crate::load::{LoadError, parse_with_space};
use crate::render::{Cast, NETWORK};
use crate::trace_stream::{self, OnEvent, ReadError};

pub const FORMAT: &str = "locksim-trace";
pub const VERSION: u64 = 1;

/// A trace read back: everything but its events, which are read from `path` when asked for.
#[derive(Clone, Debug)]
pub struct TraceFile {
    pub path: PathBuf,
    pub scenario_file: String,
    pub scenario_text: String,
    pub seed: u64,
    pub engine: String,
    pub result: Value,
    /// How many events the trace holds.
    pub events: usize,
}

/// The keys a trace is read for, besides `events`.
const KEYS: &[&str] = &[
    "format",
    "version",
    "engine",
    "scenario_file",
    "seed",
    "scenario",
    "result",
];

/// Reads a trace file but its events (parsed, counted, and dropped); the error says what is
/// wrong with it.
pub fn read(path: &Path) -> Result<TraceFile, String> {
    let top = trace_stream::header(path, KEYS).map_err(|e| described(path, e))?;
    let field = |key: &str| {
        top.values
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
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
        path: path.to_path_buf(),
        scenario_file: text_of("scenario_file")?,
        scenario_text: text_of("scenario")?,
        engine: text_of("engine")?,
        seed: field("seed")?
            .as_u64()
            .ok_or_else(|| format!("{}: key `seed`: must be an unsigned integer", path.display()))?,
        result: field("result")?.clone(),
        events: top
            .events
            .ok_or_else(|| format!("{}: key `events`: missing from the trace", path.display()))?,
    })
}

/// A reading error as the user reads it: the file, then the line (JSON) or the key.
fn described(path: &Path, e: ReadError) -> String {
    match e {
        ReadError::Open(e) => format!("{}: cannot read the trace: {e}", path.display()),
        ReadError::Json(e) => format!("{}:{}: not a JSON trace: {e}", path.display(), e.line()),
        ReadError::Content(e) => format!("{}: {e}", path.display()),
    }
}

impl TraceFile {
    /// Reads the events again from the file, handing each to `on_event` as it is read; an
    /// error of `on_event` stops the reading and is returned after the file's name.
    pub fn each_event(&self, on_event: OnEvent<'_>) -> Result<(), String> {
        trace_stream::each_event(&self.path, on_event).map_err(|e| described(&self.path, e))
    }

    /// Hands each recorded event, typed as the live run gave it, to `on_event`, checked for
    /// what the views rely on — each an object, numbered in order, in true-time order, on a
    /// node of `cast` (the embedded scenario's) or the network — so an edited trace is
    /// refused, naming the event, rather than drawn wrong.
    pub fn each_timeline_event(&self, cast: &Cast, on_event: &mut dyn FnMut(TraceEvent)) -> Result<(), String> {
        let mut last_t_ns: Option<u64> = None;
        self.each_event(&mut |i, line| {
            let e = checked(cast, i, &line, last_t_ns).map_err(|what| format!("key `events[{i}]`: {what}"))?;
            last_t_ns = Some(e.t_ns);
            on_event(e);
            Ok(())
        })
    }

    /// Every recorded event, typed and checked as [`Self::each_timeline_event`] does: for the
    /// views that need them all at once.
    pub fn timeline_events(&self, cast: &Cast) -> Result<Vec<TraceEvent>, String> {
        let mut events = Vec::with_capacity(self.events);
        self.each_timeline_event(cast, &mut |e| events.push(e))?;
        Ok(events)
    }

    /// The roles of the recorded run's nodes, from the scenario the trace embeds.
    pub fn cast(&self) -> Result<Cast, LoadError> {
        Ok(self.cast_of(&self.scenario()?))
    }

    /// The cast of the recorded run, given its embedded `scenario` already parsed: the
    /// scenario's roles, and a caption naming the recorded seed and scenario file, so a diagram
    /// of the trace is the live run's.
    pub fn cast_of(&self, scenario: &Scenario) -> Cast {
        Cast::of(scenario).seeded(self.seed).from_file(&self.scenario_file)
    }

    /// The scenario the trace embeds, parsed as a scenario file is.
    pub fn scenario(&self) -> Result<Scenario, LoadError> {
        Ok(parse_with_space(&self.scenario_file, &self.scenario_text)?.0)
    }
}

/// Event `i` typed, or what is wrong with it; `before` is the previous event's true time.
fn checked(cast: &Cast, i: usize, line: &Value, before: Option<u64>) -> Result<TraceEvent, String> {
    if !line.is_object() {
        return Err(format!("must be an event (a JSON object), not {line}"));
    }
    let e = TraceEvent::from_line(line).map_err(|err| err.to_string())?;
    if e.index != i {
        return Err(format!("`i` is {}: events are numbered in order from 0", e.index));
    }
    if let Some(before) = before.filter(|b| *b > e.t_ns) {
        return Err(format!(
            "`t_ns` {} is before the previous event's {before}: events are in true-time order",
            e.t_ns
        ));
    }
    if e.node != NETWORK && cast.role(&e.node).is_none() {
        return Err(format!("`node` {:?} is not a node of the embedded scenario", e.node));
    }
    Ok(e)
}
