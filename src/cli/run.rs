//! `locksim run`: one scenario at one seed — verdicts, expectations and a timeline (or one
//! view of the run), and the trace file when asked for.
//!
//! The run streams: each event goes, as it happens, to what this invocation needs of it — the
//! trace file (written as the run goes, renamed into place at the end), the hash the JSON
//! result states, the timeline's selection — and to nothing when nothing needs it.

use std::path::PathBuf;

use locksim_sim::trace::TraceEvent;

use crate::atomic_file::Staged;
use crate::load::load_file;
use crate::render::svg::TimeAxis;
use crate::render::{Cast, Marks, Page};
use crate::run_result::RunResult;
use crate::run_stop::explain;
use crate::timeline::{TimelineMode, render_run, run_with_timeline};
use crate::trace_write::TraceWriter;

use super::view::View;
use super::{BAD_INPUT, FAILED, Format, OK, out};

pub(super) fn run(
    path: PathBuf,
    seed: Option<u64>,
    trace: Option<PathBuf>,
    format: Format,
    timeline: TimelineMode,
    view: Option<(View, TimeAxis)>,
    max_events: u64,
) -> u8 {
    let mut loaded = match load_file(&path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    loaded.scenario.max_events = max_events;
    let seed = seed.unwrap_or(loaded.scenario.seed);
    // The trace file is opened before the run: a target that may not be replaced is refused
    // before any work, and the lines go to disk as they happen.
    let mut file = match &trace {
        None => None,
        Some(trace_path) => match Staged::create(trace_path).and_then(|f| TraceWriter::begin(f, &loaded, seed)) {
            Ok(writer) => Some(writer),
            Err(e) => {
                eprintln!("error: {}: cannot write the trace: {e}", trace_path.display());
                return BAD_INPUT;
            }
        },
    };
    // The views draw from the whole run (lane states, message arrows): they keep its events.
    let mut events: Option<Vec<TraceEvent>> = view.map(|_| Vec::new());
    let text = view.is_none() && format == Format::Text;
    let (result, lines) = if text && timeline != TimelineMode::None {
        run_with_timeline(&loaded, Some(seed), timeline, &mut (&mut file, &mut events))
    } else if text && file.is_none() {
        // Nothing needs a trace line: the text states the count, which the run keeps.
        (RunResult::untraced(&loaded, Some(seed)), Vec::new())
    } else {
        let result = RunResult::run_into(&loaded, Some(seed), &mut (&mut file, &mut events));
        (result, Vec::new())
    };
    if let Some(stop) = result.outcome.stopped {
        eprintln!("error: {}", explain(&loaded, &format!("seed {}", result.seed), stop));
        return BAD_INPUT;
    }
    if let (Some(writer), Some(trace_path)) = (file, &trace)
        && let Err(e) = writer.finish(&result.json()).and_then(Staged::commit)
    {
        eprintln!("error: {}: cannot write the trace: {e}", trace_path.display());
        return BAD_INPUT;
    }
    match (view, format) {
        (Some((view, axis)), _) => out(&view.render(
            events.as_deref().unwrap_or_default(),
            &Cast::of(&loaded.scenario).seeded(result.seed).from_file(&loaded.file),
            &Marks::from_verdicts(&result.outcome.verdicts),
            axis,
            &Page::of_run(
                &loaded.scenario.name,
                &loaded.scenario.description,
                result.seed,
                &result.outcome.verdicts,
            ),
        )),
        (None, Format::Text) => out(&render_run(&result, &lines)),
        (None, Format::Json) => out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&result.json()).expect("json")
        )),
    }
    if result.as_expected() {
        OK
    } else {
        // stderr, so a redirected diagram stays clean; JSON callers read `as_expected`.
        if view.is_some() || format == Format::Text {
            eprintln!("reproduce: locksim run {} --seed {}", loaded.file, result.seed);
        }
        FAILED
    }
}
