//! The document: lifelines under everything, header and footer boxes, each placed row (a
//! note, a band, an arrow with its label), the legend. Integer coordinates only, so the same
//! run draws the same bytes.

use super::layout::{Layout, Message, Note, Placed, Shape, Tone};
use super::look::legend;
use super::place::{BREAK_H, Break, Tick};
use super::{
    ALARM, BAND, BAND_H, DROPPED, FONT, GAP, Grid, HEAD_H, INK, LIFELINE, LINE, MARGIN, PAD, PAUSED, QUIET, escape,
    text_width,
};
use crate::render::life::Life;
use crate::render::messages::Fate;
use crate::render::secs;

/// The document: the caption (`heading`, drawn), lifelines under everything, then header and
/// footer boxes, the rows, the breaks and time scale of a proportional axis, the legend. Its
/// size is a `viewBox` and a width of 100%: it scales to the window or slide it is shown in.
pub(super) fn draw(names: &[&str], grid: &Grid, layout: &Layout, heading: &str, title: &str) -> String {
    let width = layout.right.max(grid.right()) + MARGIN;
    let foot_y = layout.end + GAP;
    let (legend, legend_h) = legend(width, foot_y + HEAD_H + 2 * GAP);
    let height = foot_y + HEAD_H + 2 * GAP + legend_h + MARGIN;
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100%\" style=\"width: 100%; height: auto\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" \
         font-size=\"{FONT}\">\n<title>{}</title>\n",
        escape(title)
    );
    out.push_str(DEFS);
    out.push_str(&format!(
        "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"rgb(255, 255, 255)\"/>\n"
    ));
    out.push_str(heading);
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{QUIET}\">true time</text>\n",
        grid.gutter - 8,
        layout.top + HEAD_H / 2 + 5
    ));
    for i in 0..names.len() {
        out.push_str(&lifeline(grid.centre(i), i, &layout.rows, layout.top + HEAD_H, foot_y));
    }
    for b in &layout.breaks {
        out.push_str(&draw_break(b, grid, width));
    }
    for (i, name) in names.iter().enumerate() {
        out.push_str(&lane_box("lane-head", name, grid.centre(i), layout.top));
        out.push_str(&lane_box("lane-foot", name, grid.centre(i), foot_y));
    }
    for row in &layout.rows {
        out.push_str(&draw_row(row, grid, width));
    }
    // Over the rows, so that a fold's band does not hide the seconds it spans.
    if grid.scale {
        out.push_str(&scale(&layout.ticks, layout.top + HEAD_H + GAP, layout.end));
    }
    out.push_str(&legend);
    out.push_str("</svg>\n");
    out
}

/// Where the time scale's line stands, in the gutter left of the rows' times.
fn scale_x() -> i32 {
    MARGIN + 52
}

/// The time scale: a line down the gutter, a tick and a label at each whole second.
fn scale(ticks: &[Tick], top: i32, bottom: i32) -> String {
    let x = scale_x();
    let mut out = format!(
        "<g class=\"time-scale\"><line x1=\"{x}\" y1=\"{top}\" x2=\"{x}\" y2=\"{bottom}\" stroke=\"{LIFELINE}\" stroke-width=\"2\"/>"
    );
    for t in ticks {
        out.push_str(&format!(
            "<line x1=\"{}\" y1=\"{y}\" x2=\"{x}\" y2=\"{y}\" stroke=\"{QUIET}\" stroke-width=\"2\"/>\
             <text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"start\" font-size=\"12\" fill=\"{QUIET}\">{} s</text>",
            x - 7,
            MARGIN,
            t.y + 4,
            t.s,
            y = t.y
        ));
    }
    out.push_str("</g>\n");
    out
}

/// A folded quiet span: a zigzag across the picture where time was cut out, and its length.
fn draw_break(b: &Break, grid: &Grid, width: i32) -> String {
    let (top, bottom) = (b.y + 8, b.y + BREAK_H - 8);
    let zigzag = |y: i32| {
        let mut d = format!("M {MARGIN} {y}");
        let mut x = MARGIN;
        let mut up = true;
        while x + 8 <= width - MARGIN {
            x += 8;
            d.push_str(&format!(" L {x} {}", if up { y - 4 } else { y }));
            up = !up;
        }
        d
    };
    // To the nearest tenth of a second.
    let tenths = (b.quiet_ns + 50_000_000) / 100_000_000;
    let text = format!("≈ {}.{} s quiet", tenths / 10, tenths % 10);
    format!(
        "<g class=\"break\"><rect x=\"{MARGIN}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"rgb(255, 255, 255)\"/>\
         <path d=\"{} {}\" fill=\"none\" stroke=\"{QUIET}\" stroke-width=\"1\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-style=\"italic\" font-weight=\"bold\" fill=\"{QUIET}\">{}</text></g>\n",
        top - 4,
        width - 2 * MARGIN,
        bottom - top + 4,
        zigzag(top),
        zigzag(bottom),
        (grid.gutter + grid.right()) / 2,
        (top + bottom) / 2 + 3,
        escape(&text)
    )
}

/// Arrowheads: filled for a delivered message, open for one still in flight.
const DEFS: &str = "<defs>\n\
<marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">\
<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"rgb(34, 34, 34)\"/></marker>\n\
<marker id=\"open\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\">\
<path d=\"M 0 0 L 10 5 L 0 10\" fill=\"none\" stroke=\"rgb(102, 102, 102)\" stroke-width=\"1\"/></marker>\n\
</defs>\n";

/// A node's header or footer box.
fn lane_box(class: &str, name: &str, cx: i32, y: i32) -> String {
    let w = (text_width(name) + 4 * PAD).max(110);
    format!(
        "<g class=\"{class}\"><rect x=\"{}\" y=\"{y}\" width=\"{w}\" height=\"{HEAD_H}\" rx=\"3\" \
         fill=\"rgb(243, 244, 246)\" stroke=\"{INK}\" stroke-width=\"1\"/>\
         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"{INK}\">{}</text></g>\n",
        cx - w / 2,
        y + HEAD_H / 2 + 5,
        escape(name)
    )
}

/// Column `i`'s lifeline, at `x`, from `top` to `bottom`: solid while the node runs, dotted
/// from the middle of the row that paused it, absent while it is down.
fn lifeline(x: i32, i: usize, rows: &[Placed], top: i32, bottom: i32) -> String {
    let mut segments = Vec::new();
    let (mut from, mut life) = (top, Life::Running);
    for r in rows {
        let next = r.lives.get(i).copied().unwrap_or(Life::Running);
        if next != life {
            let mid = r.y + r.h / 2;
            segments.push((from, mid, life));
            (from, life) = (mid, next);
        }
    }
    segments.push((from, bottom, life));
    let mut out = String::new();
    for (y1, y2, life) in segments {
        let style = match life {
            Life::Running => format!("stroke=\"{LIFELINE}\" stroke-width=\"1\""),
            Life::Paused => format!("stroke=\"{PAUSED}\" stroke-width=\"2\" stroke-dasharray=\"2,4\""),
            Life::Crashed => continue,
        };
        out.push_str(&format!(
            "<line class=\"lifeline\" x1=\"{x}\" y1=\"{y1}\" x2=\"{x}\" y2=\"{y2}\" {style}/>\n"
        ));
    }
    out
}

fn draw_row(row: &Placed, grid: &Grid, width: i32) -> String {
    let time = |y: i32| match row.t_ns {
        Some(t) => format!(
            "<text x=\"{}\" y=\"{y}\" text-anchor=\"end\" fill=\"{QUIET}\">{} s</text>",
            grid.gutter - 8,
            secs(t as i64)
        ),
        None => String::new(),
    };
    match &row.shape {
        Shape::Note(n) => draw_note(n, row.y, &time(row.y + PAD + 13)),
        Shape::Band(text) => format!(
            "<g class=\"fold\"><rect x=\"{MARGIN}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{BAND}\" fill-opacity=\"0.6\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-style=\"italic\" fill=\"{QUIET}\">{}</text></g>\n",
            row.y,
            width - 2 * MARGIN,
            row.h,
            width / 2,
            row.y + BAND_H / 2 + 5,
            escape(text)
        ),
        Shape::Message(m) => draw_message(m, row.y, &time(row.y + 26)),
    }
}

fn draw_note(n: &Note, y: i32, time: &str) -> String {
    let look = n.look;
    let h = i32::try_from(n.lines.len()).unwrap_or(1) * LINE + 2 * PAD;
    let mut out = format!(
        "<g class=\"{}\"><title>{}</title>{time}<rect x=\"{}\" y=\"{y}\" width=\"{}\" height=\"{h}\" rx=\"3\" \
         fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
        look.class,
        escape(&n.title),
        n.x,
        n.w,
        look.fill,
        look.stroke,
        look.stroke_width
    );
    if let Some(cx) = n.owner {
        out.push_str(&format!(
            "<circle cx=\"{cx}\" cy=\"{y}\" r=\"3\" fill=\"{}\"/>",
            look.stroke
        ));
    }
    let mut baseline = y + PAD + 13;
    for (line, tone) in &n.lines {
        let style = match tone {
            Tone::Plain => format!("fill=\"{INK}\""),
            Tone::Quiet => format!("fill=\"{QUIET}\" font-size=\"13\""),
            Tone::Alarm => format!("fill=\"{ALARM}\" font-weight=\"bold\""),
        };
        out.push_str(&format!(
            "<text x=\"{}\" y=\"{baseline}\" {style}>{}</text>",
            n.x + PAD,
            escape(line)
        ));
        baseline += LINE;
    }
    out.push_str("</g>\n");
    out
}

fn draw_message(m: &Message, y: i32, time: &str) -> String {
    let line_y = y + 22;
    let (class, stroke) = match m.fate {
        Fate::Delivered => ("arrow delivered", format!("stroke=\"{INK}\" marker-end=\"url(#head)\"")),
        Fate::Dropped(_) => (
            "arrow dropped",
            format!("stroke=\"{DROPPED}\" stroke-dasharray=\"6,4\""),
        ),
        Fate::InFlight => (
            "arrow in-flight",
            format!("stroke=\"{QUIET}\" stroke-dasharray=\"2,3\" marker-end=\"url(#open)\""),
        ),
    };
    // Where the arrow ends: on the receiver's lifeline, or back on the sender's for a message
    // to itself (a small loop to the right).
    let (path, end) = if m.x1 == m.x2 {
        (
            format!("M {} {} h 24 v 8 h -22", m.x1, line_y - 4),
            (m.x1 + 2, line_y + 4),
        )
    } else {
        (format!("M {} {line_y} L {} {line_y}", m.x1, m.x2), (m.x2, line_y))
    };
    let mut out = format!(
        "<g class=\"{class}\"><title>{}</title>{time}<path d=\"{path}\" fill=\"none\" stroke-width=\"1\" {stroke}/>",
        escape(&m.title)
    );
    if matches!(m.fate, Fate::Dropped(_)) {
        // The x where it was lost.
        let (x, y) = end;
        out.push_str(&format!(
            "<path d=\"M {} {} L {} {} M {} {} L {} {}\" stroke=\"{DROPPED}\" stroke-width=\"2\"/>",
            x - 5,
            y - 5,
            x + 5,
            y + 5,
            x - 5,
            y + 5,
            x + 5,
            y - 5
        ));
    }
    let fill = match m.fate {
        Fate::Delivered => INK,
        Fate::Dropped(_) => DROPPED,
        Fate::InFlight => QUIET,
    };
    // On a white ground, so the lifelines it crosses do not run through the letters.
    out.push_str(&format!(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"17\" fill=\"rgb(255, 255, 255)\"/>\
         <text x=\"{}\" y=\"{}\" fill=\"{fill}\">{}</text></g>\n",
        m.label_x - 2,
        y,
        text_width(&m.label) + 4,
        m.label_x,
        y + 13,
        escape(&m.label)
    ));
    out
}
