//! `locksim run`: one scenario at one seed — verdicts, expectations and a timeline (or one
//! view of the run), and the trace file when asked for.

use std::path::PathBuf;

use crate::load::load_file;
use crate::render::{Cast, Marks};
use crate::run_result::RunResult;
use crate::run_stop::explain;
use crate::timeline::{TimelineMode, render_run};
use crate::trace_file;

use super::view::View;
use super::{BAD_INPUT, FAILED, Format, OK, out};

pub(super) fn run(
    path: PathBuf,
    seed: Option<u64>,
    trace: Option<PathBuf>,
    format: Format,
    timeline: TimelineMode,
    view: Option<View>,
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
    let result = RunResult::run(&loaded, seed);
    if let Some(stop) = result.outcome.stopped {
        eprintln!("error: {}", explain(&loaded, &format!("seed {}", result.seed), stop));
        return BAD_INPUT;
    }
    if let Some(trace_path) = &trace
        && let Err(e) = crate::atomic_file::write(trace_path, trace_file::trace_text(&result).as_bytes())
    {
        eprintln!("error: {}: cannot write the trace: {e}", trace_path.display());
        return BAD_INPUT;
    }
    match (view, format) {
        (Some(view), _) => out(&view.render(
            &result.outcome.trace,
            &Cast::of(&loaded.scenario),
            &Marks::from_verdicts(&result.outcome.verdicts),
        )),
        (None, Format::Text) => out(&render_run(&result, timeline)),
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
