//! What each row draws: each diagram item (`diagram.rs`) on a row of its own, as a note over
//! its node's column (its lines wrapped to the columns), a message arrow between two columns,
//! or a fold's band across them all — with the true time it stands for and each node's state
//! after it, for its lifeline. Where the rows go down the page is [`super::place`]'s.

use locksim_sim::trace::TraceEvent;

use super::place::{Break, Slot, Tick, place, ticks};
use super::wrap::wrap;
use super::{ARROW_H, BAND_H, GAP, Grid, HEAD_H, LINE, MARGIN, PAD, TimeAxis, text_width};
use crate::render::diagram::{
    Emphasis, Item, arrow_label, describe, drawn_as_arrow, emphasis, fold_text, items, local_clocks, network_nodes,
};
use crate::render::life::{Life, Lives};
use crate::render::look::{Look, look};
use crate::render::messages::{Arrow, Fate};
use crate::render::{Marks, NETWORK, secs};

/// Everything placed: rows top to bottom and the size they need.
pub(super) struct Layout {
    pub(super) rows: Vec<Placed>,
    /// The long quiet spans folded out of a time-proportional axis, and its scale's ticks.
    pub(super) breaks: Vec<Break>,
    pub(super) ticks: Vec<Tick>,
    /// Where the lane headers stand.
    pub(super) top: i32,
    /// The rightmost x anything reaches.
    pub(super) right: i32,
    /// Below the last row.
    pub(super) end: i32,
}

/// One row: where it stands, what it draws, and each node's state after it.
pub(super) struct Placed {
    pub(super) y: i32,
    pub(super) h: i32,
    /// True time, in the gutter (a fold prints its own span).
    pub(super) t_ns: Option<u64>,
    /// The true time its top and its bottom stand for: a fold spans its hidden events'.
    pub(super) span_ns: (u64, u64),
    pub(super) shape: Shape,
    pub(super) lives: Vec<Life>,
}

pub(super) enum Shape {
    Note(Note),
    Band(String),
    Message(Message),
}

pub(super) struct Note {
    pub(super) x: i32,
    pub(super) w: i32,
    /// The lifeline it belongs to, marked with a dot: a box wider than its column covers
    /// other lifelines too.
    pub(super) owner: Option<i32>,
    pub(super) look: Look,
    pub(super) lines: Vec<(String, Tone)>,
    pub(super) title: String,
}

/// How a line of a note is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Tone {
    Plain,
    /// Local clock readings.
    Quiet,
    /// The invariants it violates.
    Alarm,
}

pub(super) struct Message {
    pub(super) x1: i32,
    pub(super) x2: i32,
    pub(super) fate: Fate,
    pub(super) label: String,
    pub(super) label_x: i32,
    pub(super) title: String,
}

impl Shape {
    fn right(&self) -> i32 {
        match self {
            Shape::Note(n) => n.x + n.w,
            Shape::Band(text) => MARGIN + 2 * PAD + text_width(text),
            Shape::Message(m) => m.label_x + text_width(&m.label),
        }
    }
}

/// Places each diagram item (`diagram.rs`) on its own row, the first below the lane headers
/// at `top`, down the page as `axis` has it.
pub(super) fn layout(
    events: &[TraceEvent],
    marks: &Marks,
    names: &[&str],
    lock_servers: &[String],
    grid: &Grid,
    top: i32,
    axis: TimeAxis,
) -> Layout {
    let column = |name: &str| names.iter().position(|n| *n == name);
    let mut lives = Lives::new(events, names);
    let mut now = vec![Life::Running; names.len()];
    let mut rows = Vec::new();
    let mut right = grid.right();
    for item in items(events, marks) {
        let (span_ns, t_ns, shape, h) = match item {
            Item::Event(e) => {
                if drawn_as_arrow(e, marks) {
                    continue;
                }
                let Some(span) = span(e, &column, names.len()) else {
                    continue;
                };
                now = lives.advance(e.index).to_vec();
                let note = note(e, marks, lock_servers, span, grid);
                let h = i32::try_from(note.lines.len()).unwrap_or(1) * LINE + 2 * PAD;
                ((e.t_ns, e.t_ns), Some(e.t_ns), Shape::Note(note), h)
            }
            Item::Fold(f) => {
                now = lives.advance(f.last_index).to_vec();
                ((f.first_t_ns, f.last_t_ns), None, Shape::Band(fold_text(&f)), BAND_H)
            }
            Item::Arrow(a) => {
                let (Some(from), Some(to)) = (column(&a.from), column(&a.to)) else {
                    continue;
                };
                (
                    (a.t_ns, a.t_ns),
                    Some(a.t_ns),
                    Shape::Message(message(&a, from, to, grid)),
                    ARROW_H,
                )
            }
        };
        right = right.max(shape.right());
        rows.push(Placed {
            y: 0,
            h,
            t_ns,
            span_ns,
            shape,
            lives: now.clone(),
        });
    }
    let mut slots: Vec<Slot> = rows
        .iter()
        .map(|r| Slot {
            y: 0,
            h: r.h,
            span_ns: r.span_ns,
            stretches: matches!(r.shape, Shape::Band(_)),
        })
        .collect();
    let (breaks, end) = place(&mut slots, top + HEAD_H + 2 * GAP, axis);
    for (r, s) in rows.iter_mut().zip(&slots) {
        (r.y, r.h) = (s.y, s.h);
    }
    let ticks = match axis {
        TimeAxis::Rows => Vec::new(),
        TimeAxis::Proportional => ticks(&slots),
    };
    Layout {
        rows,
        breaks,
        ticks,
        top,
        right,
        end,
    }
}

/// The columns a note stands over: its node's; a failover's primary, a delay's link; else —
/// a partition, loss — every column.
fn span(e: &TraceEvent, column: &impl Fn(&str) -> Option<usize>, columns: usize) -> Option<(usize, usize)> {
    if e.node != NETWORK {
        return column(&e.node).map(|c| (c, c));
    }
    let everyone = (0, columns.checked_sub(1)?);
    let Some((first, second)) = network_nodes(e) else {
        return Some(everyone);
    };
    let Some(a) = column(first) else {
        return Some(everyone);
    };
    let b = second.and_then(column).unwrap_or(a);
    Some((a.min(b), a.max(b)))
}

fn note(e: &TraceEvent, marks: &Marks, lock_servers: &[String], (a, b): (usize, usize), grid: &Grid) -> Note {
    let emphasis = emphasis(e, marks);
    let mut lines = Vec::new();
    let clocks = local_clocks(e);
    if !clocks.is_empty() {
        lines.push((format!("local {}", clocks.join(" · ")), Tone::Quiet));
    }
    lines.extend(describe(e, lock_servers).into_iter().map(|l| (l, Tone::Plain)));
    if let Some(Emphasis::Violation(ids)) = &emphasis {
        lines.push((format!("VIOLATES {ids}"), Tone::Alarm));
    }
    // Each line wrapped to the columns: a long note grows down, not out of the window.
    let lines: Vec<(String, Tone)> = lines
        .into_iter()
        .flat_map(|(l, tone)| wrap(&l, grid.note_w() - 2 * PAD).into_iter().map(move |l| (l, tone)))
        .collect();
    let text = lines.iter().map(|(l, _)| text_width(l)).max().unwrap_or(0);
    let spread = if a == b {
        0
    } else {
        grid.centre(b) - grid.centre(a) + grid.column / 2
    };
    let w = (text + 2 * PAD).max(spread);
    let x = grid.fit((grid.centre(a) + grid.centre(b)) / 2 - w / 2, w);
    Note {
        x,
        w,
        owner: (a == b).then(|| grid.centre(a)),
        look: look(e, emphasis.as_ref()),
        lines,
        title: format!("event #{} on {} at {} s", e.index, e.node, secs(e.t_ns as i64)),
    }
}

fn message(a: &Arrow, from: usize, to: usize, grid: &Grid) -> Message {
    let (x1, x2) = (grid.centre(from), grid.centre(to));
    let label = arrow_label(a);
    let w = text_width(&label);
    let label_x = if from != to {
        grid.fit((x1 + x2) / 2 - w / 2, w)
    } else if x1 + 30 + w <= grid.right() {
        // Right of the loop a message to itself draws...
        x1 + 30
    } else {
        // ...or left of its lifeline, in the last columns.
        grid.fit(x1 - 8 - w, w)
    };
    Message {
        x1,
        x2,
        fate: a.fate.clone(),
        title: format!("{} -> {}: {label}", a.from, a.to),
        label,
        label_x,
    }
}
