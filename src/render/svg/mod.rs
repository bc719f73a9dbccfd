//! The run as a standalone SVG 1.1 picture of a sequence diagram: a caption (the scenario's
//! name, seed, description and the command that replays it), a column per node (a header box
//! and a lifeline — dotted while the node is paused, missing while it is down), the shown items
//! top to bottom with their true time in a left gutter, messages as arrows (a dropped one
//! dashed, in its own orange, ending in an x), events as boxes on their node's lifeline (faults
//! in a colour per kind, expiries lime, refused writes amber, violations red with the invariant
//! ids), and each folded stretch as a grey band across the diagram.
//!
//! Why a picture besides the Mermaid text: a Mermaid diagram needs Mermaid (a GitHub page, a
//! browser with its script) to be seen at all, and lays itself out as it likes; an SVG file
//! opens in any browser or image viewer, goes into slides and bug reports as it is, and puts
//! true time beside every row. It draws exactly the items of the Mermaid diagram (`diagram.rs`):
//! the two views never disagree on what happened.
//!
//! It fits its container: a `viewBox` and a width of 100%, so it scales to the browser window
//! or the slide, and columns sized so that the 8 nodes of a Redlock story fit a 1,400 px window
//! at a 14 px font; a note wraps to the columns rather than widening the picture. Rows are one
//! after another ([`TimeAxis::Rows`]) or placed by true time ([`TimeAxis::Proportional`]).
//!
//! The file stands alone (no fonts, scripts or style sheets to fetch: a generic monospace font
//! and presentation attributes) and is deterministic: integer coordinates, no hash-map order.
//! Text widths are estimated (8.4 px a character of a 14 px monospace font), since no font
//! metrics are at hand.

use locksim_sim::trace::TraceEvent;

use super::cast::Cast;
use super::look::{ALARM, PAUSED};
use super::markup::escape;
use super::{Marks, nodes};

mod draw;
mod heading;
mod layout;
mod look;
mod place;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_time;
mod wrap;

use draw::draw;
use layout::layout;

/// How rows go down the page.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum TimeAxis {
    /// One row after another, whatever the time between them: the most compact.
    #[default]
    Rows,
    /// Rows placed by true time (a 15 s pause looks long next to a 1 ms step), long quiet
    /// spans folded into a marked break, a time scale in the gutter.
    Proportional,
}

/// Margin around everything.
const MARGIN: i32 = 10;
/// Where the first column starts with rows one after another; true time is printed left of it.
const GUTTER: i32 = 96;
/// What a time scale adds to the gutter, left of the rows' times.
const SCALE_W: i32 = 56;
/// The window the picture is sized for: its columns share what the gutter leaves of it.
const FIT_W: i32 = 1380;
/// The narrowest and widest a node's column gets.
const MIN_COLUMN: i32 = 120;
const MAX_COLUMN: i32 = 240;
/// The base font size, px: readable when projected.
const FONT: i32 = 14;
/// Height of a node's header (and footer) box.
const HEAD_H: i32 = 32;
/// Height of a line of text.
const LINE: i32 = 18;
/// Padding inside boxes.
const PAD: i32 = 7;
/// Space between rows.
const GAP: i32 = 8;
/// Height of a message row: its label above its arrow.
const ARROW_H: i32 = 30;
/// Height of a fold's band.
const BAND_H: i32 = 26;
/// Ink colours: text and delivered arrows, quiet text, lifelines.
const INK: &str = "rgb(34, 34, 34)";
const QUIET: &str = "rgb(90, 90, 90)";
const LIFELINE: &str = "rgb(153, 153, 153)";
/// A dropped message: orange, its own colour — not a violation's red, since a lost message
/// is the fault, not the harm.
const DROPPED: &str = "rgb(234, 88, 12)";
const BAND: &str = "rgb(229, 229, 229)";

/// The SVG diagram of `events` of a run with `cast`, violations marked, one row after another.
pub fn svg(events: &[TraceEvent], cast: &Cast, marks: &Marks) -> String {
    svg_on(events, cast, marks, TimeAxis::Rows)
}

/// The SVG diagram of `events`, its rows placed on `axis`.
pub fn svg_on(events: &[TraceEvent], cast: &Cast, marks: &Marks, axis: TimeAxis) -> String {
    let names = nodes(events);
    let grid = Grid::new(names.len(), axis);
    let (heading, heading_h) = heading::heading(cast.caption(), grid.width());
    let layout = layout(
        events,
        marks,
        &names,
        cast.lock_servers(),
        &grid,
        MARGIN + heading_h,
        axis,
    );
    draw(&names, &grid, &layout, &heading, &cast.caption().title())
}

/// Where the columns are: after the gutter, as wide as the window allows for their number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Grid {
    gutter: i32,
    column: i32,
    columns: usize,
    /// Whether the gutter has a time scale.
    scale: bool,
}

impl Grid {
    fn new(columns: usize, axis: TimeAxis) -> Self {
        let scale = axis == TimeAxis::Proportional;
        let gutter = GUTTER + if scale { SCALE_W } else { 0 };
        let share = (FIT_W - gutter - MARGIN) / i32::try_from(columns.max(1)).unwrap_or(i32::MAX);
        Grid {
            gutter,
            column: share.clamp(MIN_COLUMN, MAX_COLUMN),
            columns,
            scale,
        }
    }

    /// The x of column `i`'s lifeline.
    fn centre(&self, i: usize) -> i32 {
        self.gutter + self.column / 2 + i32::try_from(i).unwrap_or(0) * self.column
    }

    /// Where the columns end.
    fn right(&self) -> i32 {
        self.gutter + i32::try_from(self.columns).unwrap_or(0) * self.column
    }

    /// The picture's width when nothing is wider than the columns.
    fn width(&self) -> i32 {
        self.right() + MARGIN
    }

    /// The widest a note gets before it wraps: the columns' width.
    fn note_w(&self) -> i32 {
        (self.right() - self.gutter).max(self.column)
    }

    /// Where something `w` wide that would start at `x` starts instead: moved left to stay
    /// within the columns, and right to stay out of the gutter — out of the columns on the
    /// right only when it is wider than all of them.
    fn fit(&self, x: i32, w: i32) -> i32 {
        x.min(self.right() - w).max(self.gutter)
    }
}

/// Estimated width of `text` in the 14 px monospace font: 8.4 px a character, rounded up.
fn text_width(text: &str) -> i32 {
    let chars = i32::try_from(text.chars().count()).unwrap_or(i32::MAX / 42);
    (chars * 42 + 4) / 5
}
