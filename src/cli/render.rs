//! `locksim render`: a trace file drawn as one view, from what it recorded.

use std::path::PathBuf;

use crate::render::Marks;
use crate::trace_file;

use super::view::View;
use super::{BAD_INPUT, OK, out};

/// Renders a trace file: its recorded events and the violations its result names. Nothing is
/// re-run, so a trace from another engine version renders as it was recorded.
pub(super) fn render(path: PathBuf, view: View) -> u8 {
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
    let cast = match trace.cast() {
        Ok(cast) => cast,
        Err(e) => {
            eprintln!("error: {}: the embedded scenario: {e}", path.display());
            return BAD_INPUT;
        }
    };
    let events = match trace.timeline_events(&cast) {
        Ok(events) => events,
        Err(e) => {
            eprintln!("error: {}: {e}", path.display());
            return BAD_INPUT;
        }
    };
    out(&view.render(&events, &cast, &marks));
    OK
}
