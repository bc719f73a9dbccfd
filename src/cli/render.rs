//! `locksim render`: a trace file drawn as one view, from what it recorded.

use std::path::PathBuf;

use crate::render::svg::TimeAxis;
use crate::render::{Cast, Marks, Page};
use crate::{trace_file, trace_view};

use super::view::View;
use super::{BAD_INPUT, OK, out};

/// The most events a diagram (Mermaid, SVG) is drawn from: it needs them all at once, and
/// far fewer already make a picture no one can read (Mermaid refuses over 50,000 characters).
pub(super) const MAX_DIAGRAM_EVENTS: usize = 100_000;

/// Renders a trace file: its recorded events and the violations its result names. Nothing is
/// re-run, so a trace from another engine version renders as it was recorded. The text view
/// is selected from the events as they are read; a diagram holds them all, so a trace with
/// more than [`MAX_DIAGRAM_EVENTS`] is refused for it.
pub(super) fn render(path: PathBuf, view: View, axis: TimeAxis) -> u8 {
    let trace = match trace_file::read(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let marks = match Marks::from_result(&trace.result) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return BAD_INPUT;
        }
    };
    let scenario = match trace.scenario() {
        Ok(scenario) => scenario,
        Err(e) => {
            eprintln!("error: {}: the embedded scenario: {e}", path.display());
            return BAD_INPUT;
        }
    };
    let cast = Cast::of(&scenario).seeded(trace.seed).from_file(&trace.scenario_file);
    // Only the HTML viewer lists the verdicts: a verdict map it cannot read fails it alone.
    let page = match view {
        View::Html => Page::of_trace(&scenario.name, &scenario.description, trace.seed, &trace.result),
        _ => Ok(Page::default()),
    };
    let page = match page {
        Ok(page) => page,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return BAD_INPUT;
        }
    };
    let drawn = match view {
        View::Text => trace_view::trace_lanes(&trace, &cast, &marks),
        View::Mermaid | View::Svg | View::Html if trace.events > MAX_DIAGRAM_EVENTS => Err(format!(
            "{}: {} events: the {} diagram holds every event at once, so it is drawn from at most \
             {MAX_DIAGRAM_EVENTS}; render the trace with `--view text`, which reads it as a stream",
            path.display(),
            trace.events,
            view.name()
        )),
        View::Mermaid | View::Svg | View::Html => trace
            .timeline_events(&cast)
            .map(|events| view.render(&events, &cast, &marks, axis, &page)),
    };
    match drawn {
        Ok(text) => {
            out(&text);
            OK
        }
        Err(e) => {
            eprintln!("error: {e}");
            BAD_INPUT
        }
    }
}
