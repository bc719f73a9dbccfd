//! The interactive trace viewer (`--view html`): one self-contained HTML page — inline CSS and
//! script, the trace's events as compact JSON, no network and no external font — with a lane per
//! node on a true-time axis, each client's lease as it believes it beside each server's key, the
//! nodes' clocks at a cursor stepped with the keyboard, zoom, filters by salience, and the
//! verdicts linked to their events. The same trace gives the same bytes.
//!
//! The page's DOM is a contract the browser test reads (`tests/browser.rs`): `#viewer` carries
//! `data-cursor` (the cursor's event index) and `data-zoom`; each event's mark and list row carry
//! `data-event-index`; each node's clocks are `#clock-<node>` with `data-wall-ns`,
//! `data-mono-ns` and `data-as-of` (the event they are read from); the verdicts are `#verdicts`,
//! each violation a `a.violation` with `data-event-index`; the filters are `#filter-<salience>`.

mod clock_map;
mod data;
mod page;
mod spans;
mod support;
#[cfg(test)]
mod tests;

use locksim_sim::trace::TraceEvent;

pub use page::{Page, VerdictRow};

use super::Cast;
use super::markup::escape;

const SKELETON: &str = include_str!("viewer.html");
const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");

/// The viewer page of `events`.
pub fn html(events: &[TraceEvent], cast: &Cast, page: &Page) -> String {
    let data = serde_json::to_string(&data::data(events, cast, page)).expect("the viewer's data serializes");
    // `<` only occurs inside JSON strings, where `\u003c` means the same: no `</script>` can
    // end the script early.
    let data = data.replace('<', "\\u003c");
    let title = escape(&format!("{} (seed {}) — locksim", page.name, page.seed));
    // The skeleton's three holes, filled in order, so nothing inserted is searched again.
    let script = format!("const TRACE = {data};\n{SCRIPT}");
    let mut out = String::with_capacity(SKELETON.len() + STYLE.len() + script.len() + title.len());
    let mut rest = SKELETON;
    for (hole, fill) in [
        ("{{TITLE}}", title.as_str()),
        ("{{STYLE}}", STYLE),
        ("{{SCRIPT}}", &script),
    ] {
        let (before, after) = rest
            .split_once(hole)
            .expect("the skeleton has each hole once, in order");
        out.push_str(before);
        out.push_str(fill);
        rest = after;
    }
    out.push_str(rest);
    out
}
