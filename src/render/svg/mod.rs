//! The run as a standalone SVG 1.1 picture of a sequence diagram: a column per node (a header
//! box and a lifeline — dotted while the node is paused, missing while it is down), one row per
//! shown item top to bottom with its true time in a left gutter, messages as arrows (a dropped
//! one dashed and ending in an x), events as boxes on their node's lifeline (faults in a colour
//! per kind, refused writes amber, violations red with the invariant ids), and each folded
//! stretch as a grey band across the diagram.
//!
//! Why a picture besides the Mermaid text: a Mermaid diagram needs Mermaid (a GitHub page, a
//! browser with its script) to be seen at all, and lays itself out as it likes; an SVG file
//! opens in any browser or image viewer, goes into slides and bug reports as it is, and puts
//! true time beside every row. It draws exactly the items of the Mermaid diagram (`diagram.rs`),
//! one per row: the two views never disagree on what happened.
//!
//! The file stands alone (no fonts, scripts or style sheets to fetch: a generic monospace font
//! and presentation attributes) and is deterministic: integer coordinates, no hash-map order.
//! Text widths are estimated (7.2 px a character of a 12 px monospace font), since no font
//! metrics are at hand; a row's box may be wider than its column, which is fine because every
//! row has the whole width to itself.

use locksim_sim::trace::TraceEvent;

use super::cast::Cast;
use super::look::{ALARM, PAUSED};
use super::{Marks, nodes};

mod draw;
mod layout;
mod look;
#[cfg(test)]
mod tests;

use draw::draw;
use layout::layout;

/// Margin around everything.
const MARGIN: i32 = 10;
/// Where the first column starts; true time is printed left of it.
const GUTTER: i32 = 84;
/// Width of a node's column.
const COLUMN: i32 = 170;
/// Height of a node's header (and footer) box.
const HEAD_H: i32 = 28;
/// Height of a line of text.
const LINE: i32 = 15;
/// Padding inside boxes.
const PAD: i32 = 6;
/// Space between rows.
const GAP: i32 = 6;
/// Height of a message row: its label above its arrow.
const ARROW_H: i32 = 26;
/// Height of a fold's band.
const BAND_H: i32 = 22;
/// Ink colours: text and delivered arrows, quiet text, lifelines.
const INK: &str = "rgb(34, 34, 34)";
const QUIET: &str = "rgb(102, 102, 102)";
const LIFELINE: &str = "rgb(153, 153, 153)";
const DROPPED: &str = "rgb(185, 28, 28)";
const BAND: &str = "rgb(229, 229, 229)";

/// The SVG diagram of `events` of a run with `cast`, violations marked.
pub fn svg(events: &[TraceEvent], cast: &Cast, marks: &Marks) -> String {
    let names = nodes(events);
    let layout = layout(events, marks, &names, cast.lock_servers());
    draw(&names, &layout, &cast.caption().title())
}

/// `text` as XML character data or attribute value: the five markup characters as entities,
/// and the control characters XML 1.0 forbids (and line breaks, which would not show) as
/// spaces.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() => out.push(' '),
            '\u{FFFE}' | '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Estimated width of `text` in 12 px monospace: 7.2 px a character, rounded up.
fn text_width(text: &str) -> i32 {
    let chars = i32::try_from(text.chars().count()).unwrap_or(i32::MAX / 36);
    (chars * 36 + 4) / 5
}

/// The x of column `i`'s lifeline.
fn centre(i: usize) -> i32 {
    GUTTER + COLUMN / 2 + i32::try_from(i).unwrap_or(0) * COLUMN
}

/// Where something `w` wide that would start at `x` starts instead: moved left to stay within
/// the columns, and right to stay out of the gutter — out of the columns on the right only
/// when it is wider than all of them.
fn fit(x: i32, w: i32, columns: usize) -> i32 {
    x.min(centre(columns) - COLUMN / 2 - w).max(GUTTER)
}
