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

use locksim_sim::trace::{Happening, TraceEvent};

use super::cast::Cast;
use super::diagram::{
    Emphasis, Item, REFUSAL_RGB, VIOLATION_RGB, arrow_label, describe, drawn_as_arrow, emphasis, fold_text, items,
    local_clocks, network_nodes,
};
use super::life::{Life, Lives};
use super::messages::{Arrow, Fate};
use super::{Marks, NETWORK, nodes, secs};

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
const ALARM: &str = "rgb(204, 0, 0)";
const DROPPED: &str = "rgb(185, 28, 28)";
const PAUSED: &str = "rgb(37, 99, 235)";
const BAND: &str = "rgb(229, 229, 229)";

/// How a note is drawn: its classes (for readers of the file and for tests), fill, border and
/// what the legend calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Look {
    class: &'static str,
    fill: &'static str,
    stroke: &'static str,
    stroke_width: u8,
    legend: &'static str,
}

const PLAIN: Look = Look {
    class: "event",
    fill: "rgb(255, 255, 255)",
    stroke: "rgb(136, 136, 136)",
    stroke_width: 1,
    legend: "event",
};
/// Mermaid's colours, so both diagrams read alike.
const VIOLATION: Look = Look {
    class: "event violation",
    fill: VIOLATION_RGB,
    stroke: ALARM,
    stroke_width: 2,
    legend: "violates an invariant",
};
const REFUSAL: Look = Look {
    class: "event refusal",
    fill: REFUSAL_RGB,
    stroke: "rgb(217, 119, 6)",
    stroke_width: 2,
    legend: "write refused",
};
const PAUSE: Look = Look {
    class: "event fault pause",
    fill: "rgb(219, 234, 254)",
    stroke: PAUSED,
    stroke_width: 1,
    legend: "pause, resume",
};
const CRASH: Look = Look {
    class: "event fault crash",
    fill: "rgb(212, 212, 212)",
    stroke: "rgb(38, 38, 38)",
    stroke_width: 2,
    legend: "crash, restart",
};
const CLOCK: Look = Look {
    class: "event fault clock",
    fill: "rgb(237, 233, 254)",
    stroke: "rgb(124, 58, 237)",
    stroke_width: 1,
    legend: "clock jump",
};
const NETWORK_FAULT: Look = Look {
    class: "event fault network",
    fill: "rgb(204, 251, 241)",
    stroke: "rgb(13, 148, 136)",
    stroke_width: 1,
    legend: "partition, delay, loss",
};
const FAILOVER: Look = Look {
    class: "event fault failover",
    fill: "rgb(252, 231, 243)",
    stroke: "rgb(219, 39, 119)",
    stroke_width: 1,
    legend: "failover",
};
const LEGEND: [Look; 8] = [PLAIN, PAUSE, CRASH, CLOCK, NETWORK_FAULT, FAILOVER, REFUSAL, VIOLATION];

/// The SVG diagram of `events` of a run with `cast`, violations marked.
pub fn svg(events: &[TraceEvent], cast: &Cast, marks: &Marks) -> String {
    let names = nodes(events);
    let layout = layout(events, marks, &names, cast.lock_servers());
    draw(&names, &layout)
}

/// `text` as XML character data or attribute value: the five markup characters as entities,
/// and the control characters XML 1.0 forbids (and line breaks, which would not show) as
/// spaces.
pub(crate) fn escape(text: &str) -> String {
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

/// Everything placed: rows top to bottom and the size they need.
struct Layout {
    rows: Vec<Placed>,
    /// The rightmost x anything reaches.
    right: i32,
    /// Below the last row.
    end: i32,
}

/// One row: where it stands, what it draws, and each node's state after it.
struct Placed {
    y: i32,
    h: i32,
    /// True time, in the gutter (a fold prints its own span).
    t_ns: Option<u64>,
    shape: Shape,
    lives: Vec<Life>,
}

enum Shape {
    Note(Note),
    Band(String),
    Message(Message),
}

struct Note {
    x: i32,
    w: i32,
    /// The lifeline it belongs to, marked with a dot: a box wider than its column covers
    /// other lifelines too.
    owner: Option<i32>,
    look: Look,
    lines: Vec<(String, Tone)>,
    title: String,
}

/// How a line of a note is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tone {
    Plain,
    /// Local clock readings.
    Quiet,
    /// The invariants it violates.
    Alarm,
}

struct Message {
    x1: i32,
    x2: i32,
    fate: Fate,
    label: String,
    label_x: i32,
    title: String,
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

/// Places each diagram item (`diagram.rs`) on its own row.
fn layout(events: &[TraceEvent], marks: &Marks, names: &[&str], servers: &[String]) -> Layout {
    let column = |name: &str| names.iter().position(|n| *n == name);
    let mut lives = Lives::new(events, names);
    let mut now = vec![Life::Running; names.len()];
    let mut rows = Vec::new();
    let mut y = MARGIN + HEAD_H + 2 * GAP;
    let mut right = centre(names.len()) - COLUMN / 2;
    for item in items(events, marks) {
        let (t_ns, shape, h) = match item {
            Item::Event(e) => {
                if drawn_as_arrow(e, marks) {
                    continue;
                }
                let Some(span) = span(e, &column, names.len()) else {
                    continue;
                };
                now = lives.advance(e.index).to_vec();
                let note = note(e, marks, servers, span, names.len());
                let h = i32::try_from(note.lines.len()).unwrap_or(1) * LINE + 2 * PAD;
                (Some(e.t_ns), Shape::Note(note), h)
            }
            Item::Fold(f) => {
                now = lives.advance(f.last_index).to_vec();
                (None, Shape::Band(fold_text(&f)), BAND_H)
            }
            Item::Arrow(a) => {
                let (Some(from), Some(to)) = (column(&a.from), column(&a.to)) else {
                    continue;
                };
                (
                    Some(a.t_ns),
                    Shape::Message(message(&a, from, to, names.len())),
                    ARROW_H,
                )
            }
        };
        right = right.max(shape.right());
        rows.push(Placed {
            y,
            h,
            t_ns,
            shape,
            lives: now.clone(),
        });
        y += h + GAP;
    }
    Layout { rows, right, end: y }
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

fn note(e: &TraceEvent, marks: &Marks, servers: &[String], (a, b): (usize, usize), columns: usize) -> Note {
    let emphasis = emphasis(e, marks);
    let mut lines = Vec::new();
    let clocks = local_clocks(e);
    if !clocks.is_empty() {
        lines.push((format!("local {}", clocks.join(" · ")), Tone::Quiet));
    }
    lines.extend(describe(e, servers).into_iter().map(|l| (l, Tone::Plain)));
    if let Some(Emphasis::Violation(ids)) = &emphasis {
        lines.push((format!("VIOLATES {ids}"), Tone::Alarm));
    }
    let text = lines.iter().map(|(l, _)| text_width(l)).max().unwrap_or(0);
    let spread = if a == b { 0 } else { centre(b) - centre(a) + COLUMN / 2 };
    let w = (text + 2 * PAD).max(spread);
    let x = fit((centre(a) + centre(b)) / 2 - w / 2, w, columns);
    Note {
        x,
        w,
        owner: (a == b).then(|| centre(a)),
        look: look(e, emphasis.as_ref()),
        lines,
        title: format!("event #{} on {} at {} s", e.index, e.node, secs(e.t_ns as i64)),
    }
}

/// Emphasis first (as in the Mermaid diagram), then the kind of fault, so that each fault
/// reads as what it is.
fn look(e: &TraceEvent, emphasis: Option<&Emphasis>) -> Look {
    match emphasis {
        Some(Emphasis::Violation(_)) => VIOLATION,
        Some(Emphasis::Refusal) => REFUSAL,
        None => match e.what {
            Happening::Pause { .. } | Happening::Resume => PAUSE,
            Happening::Crash { .. } | Happening::Restart => CRASH,
            Happening::ClockJump { .. } => CLOCK,
            Happening::Partition { .. }
            | Happening::Heal { .. }
            | Happening::Delay { .. }
            | Happening::Lossy { .. }
            | Happening::WindowEnd { .. } => NETWORK_FAULT,
            Happening::Failover { .. } => FAILOVER,
            _ => PLAIN,
        },
    }
}

fn message(a: &Arrow, from: usize, to: usize, columns: usize) -> Message {
    let (x1, x2) = (centre(from), centre(to));
    let label = arrow_label(a);
    let label_x = if from == to {
        x1 + 30
    } else {
        let w = text_width(&label);
        fit((x1 + x2) / 2 - w / 2, w, columns)
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

/// The document: lifelines under everything, then header and footer boxes, the rows, the
/// legend.
fn draw(names: &[&str], layout: &Layout) -> String {
    let width = layout.right + MARGIN;
    let foot_y = layout.end + GAP;
    let (legend, legend_h) = legend(width, foot_y + HEAD_H + 2 * GAP);
    let height = foot_y + HEAD_H + 2 * GAP + legend_h + MARGIN;
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" \
         font-size=\"12\">\n<title>locksim sequence diagram</title>\n"
    );
    out.push_str(DEFS);
    out.push_str(&format!(
        "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"rgb(255, 255, 255)\"/>\n"
    ));
    out.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{QUIET}\">true time</text>\n",
        GUTTER - 8,
        MARGIN + HEAD_H / 2 + 4
    ));
    for i in 0..names.len() {
        out.push_str(&lifeline(i, &layout.rows, MARGIN + HEAD_H, foot_y));
    }
    for (i, name) in names.iter().enumerate() {
        out.push_str(&lane_box("lane-head", name, centre(i), MARGIN));
        out.push_str(&lane_box("lane-foot", name, centre(i), foot_y));
    }
    for row in &layout.rows {
        out.push_str(&draw_row(row, width));
    }
    out.push_str(&legend);
    out.push_str("</svg>\n");
    out
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
    let w = (text_width(name) + 4 * PAD).max(96);
    format!(
        "<g class=\"{class}\"><rect x=\"{}\" y=\"{y}\" width=\"{w}\" height=\"{HEAD_H}\" rx=\"3\" \
         fill=\"rgb(243, 244, 246)\" stroke=\"{INK}\" stroke-width=\"1\"/>\
         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-weight=\"bold\" fill=\"{INK}\">{}</text></g>\n",
        cx - w / 2,
        y + HEAD_H / 2 + 4,
        escape(name)
    )
}

/// Column `i`'s lifeline from `top` to `bottom`: solid while the node runs, dotted from the
/// middle of the row that paused it, absent while it is down.
fn lifeline(i: usize, rows: &[Placed], top: i32, bottom: i32) -> String {
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
    let x = centre(i);
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

fn draw_row(row: &Placed, width: i32) -> String {
    let time = |y: i32| match row.t_ns {
        Some(t) => format!(
            "<text x=\"{}\" y=\"{y}\" text-anchor=\"end\" fill=\"{QUIET}\">{} s</text>",
            GUTTER - 8,
            secs(t as i64)
        ),
        None => String::new(),
    };
    match &row.shape {
        Shape::Note(n) => draw_note(n, row.y, &time(row.y + PAD + 11)),
        Shape::Band(text) => format!(
            "<g class=\"fold\"><rect x=\"{MARGIN}\" y=\"{}\" width=\"{}\" height=\"{BAND_H}\" fill=\"{BAND}\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-style=\"italic\" fill=\"{QUIET}\">{}</text></g>\n",
            row.y,
            width - 2 * MARGIN,
            width / 2,
            row.y + 15,
            escape(text)
        ),
        Shape::Message(m) => draw_message(m, row.y, &time(row.y + 22)),
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
    let mut baseline = y + PAD + 11;
    for (line, tone) in &n.lines {
        let style = match tone {
            Tone::Plain => format!("fill=\"{INK}\""),
            Tone::Quiet => format!("fill=\"{QUIET}\" font-size=\"11\""),
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
    let line_y = y + 18;
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
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"rgb(255, 255, 255)\"/>\
         <text x=\"{}\" y=\"{}\" fill=\"{fill}\">{}</text></g>\n",
        m.label_x - 2,
        y,
        text_width(&m.label) + 4,
        m.label_x,
        y + 11,
        escape(&m.label)
    ));
    out
}

/// The legend at `top`, wrapped to `width`: a swatch per kind of note, a sample of each
/// arrow. Returns the drawing and its height.
fn legend(width: i32, top: i32) -> (String, i32) {
    let entries: Vec<(String, i32)> = LEGEND
        .iter()
        .map(|look| {
            let swatch = format!(
                "<rect x=\"0\" y=\"-10\" width=\"24\" height=\"12\" rx=\"2\" fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
                look.fill, look.stroke, look.stroke_width
            );
            (swatch, look.legend)
        })
        .chain([
            (
                format!("<path d=\"M 0 -4 L 24 -4\" stroke=\"{INK}\" stroke-width=\"1\" marker-end=\"url(#head)\"/>"),
                "delivered",
            ),
            (
                format!(
                    "<path d=\"M 0 -4 L 21 -4\" stroke=\"{DROPPED}\" stroke-width=\"1\" stroke-dasharray=\"6,4\"/>\
                     <path d=\"M 16 -9 L 26 1 M 16 1 L 26 -9\" stroke=\"{DROPPED}\" stroke-width=\"2\"/>"
                ),
                "dropped",
            ),
            (
                format!(
                    "<path d=\"M 0 -4 L 24 -4\" stroke=\"{QUIET}\" stroke-width=\"1\" stroke-dasharray=\"2,3\" marker-end=\"url(#open)\"/>"
                ),
                "in flight at the end",
            ),
            (
                format!("<path d=\"M 12 -12 L 12 4\" stroke=\"{PAUSED}\" stroke-width=\"2\" stroke-dasharray=\"2,4\"/>"),
                "paused lifeline",
            ),
        ])
.map(|(sample, label)| {
            let w = 32 + text_width(label);
            (
                format!("{sample}<text x=\"32\" y=\"0\" fill=\"{INK}\">{}</text>", escape(label)),
                w,
            )
        })
        .collect();
    let mut out = String::from("<g class=\"legend\">\n");
    let (mut x, mut y) = (MARGIN, top + 12);
    for (entry, w) in entries {
        if x > MARGIN && x + w > width - MARGIN {
            (x, y) = (MARGIN, y + LINE + 6);
        }
        out.push_str(&format!("<g transform=\"translate({x},{y})\">{entry}</g>\n"));
        x += w + 18;
    }
    out.push_str("</g>\n");
    (out, y + 6 - top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;
    use locksim_sim::history::DropReason;
    use locksim_sim::trace::{Observed, Stamp};

    #[test]
    fn escapes_markup_and_forbidden_characters() {
        assert_eq!(escape("token 1 < max 5 & 6 > 4"), "token 1 &lt; max 5 &amp; 6 &gt; 4");
        assert_eq!(escape(r#"say "hi" it's"#), "say &quot;hi&quot; it&apos;s");
        assert_eq!(escape("a\nb\u{0}c\td"), "a b c d");
        assert_eq!(escape("&amp;"), "&amp;amp;", "escaped text is escaped again");
        assert_eq!(escape("{0,1,2} — ok · …"), "{0,1,2} — ok · …");
        assert_eq!(escape("\u{FFFE}"), "\u{FFFD}");
    }

    #[test]
    fn escaped_text_parses_back_to_itself() {
        let nasty = "<b>&amp; \"quoted\" 'single' ]]> --> <!-- \u{1}";
        let doc = format!("<r a=\"{0}\" b='{0}'>{0}</r>", escape(nasty));
        let parsed = roxmltree::Document::parse(&doc).expect("well-formed");
        let expected = nasty.replace('\u{1}', " ");
        assert_eq!(parsed.root_element().text(), Some(expected.as_str()));
        assert_eq!(parsed.root_element().attribute("a"), Some(expected.as_str()));
        assert_eq!(parsed.root_element().attribute("b"), Some(expected.as_str()));
    }

    #[test]
    fn widths_round_up() {
        assert_eq!(text_width(""), 0);
        assert_eq!(text_width("a"), 8);
        assert_eq!(text_width("abcde"), 36);
        assert_eq!(text_width("ééééé"), 36, "characters, not bytes");
    }

    fn ev(index: usize, t_ms: u64, node: &str, what: Happening, text: &str) -> TraceEvent {
        let at = Stamp {
            t_ns: t_ms * 1_000_000,
            node: node.into(),
            wall_ns: (t_ms * 1_000_000) as i64,
            mono_ns: t_ms * 1_000_000,
        };
        let salience = match what {
            Happening::Send { .. } | Happening::Deliver { .. } | Happening::Drop { .. } => Salience::Chatter,
            _ => Salience::Salient,
        };
        TraceEvent::new(index, at, what, text.into(), salience)
    }

    /// A model's event, with fields no renderer reads.
    fn obs(event: &str) -> Happening {
        Happening::Observe(Observed {
            event: event.into(),
            fields: Default::default(),
        })
    }

    fn send(to: &str, msg_id: u64, msg: &str) -> Happening {
        Happening::Send {
            msg: msg.into(),
            msg_id,
            to: to.into(),
        }
    }

    /// A small story with text that needs escaping, a pause, a drop and a violation: the
    /// document parses, the text reads back as the simulator wrote it, and the pause dots
    /// the lifeline.
    #[test]
    fn a_small_story_is_well_formed_and_readable() {
        let pause = Happening::Pause {
            duration_ns: 1_000_000_000,
            suspend: false,
        };
        let events = vec![
            ev(0, 0, "client-0", Happening::Start, "starts"),
            ev(1, 0, "server-0", Happening::Start, "starts"),
            ev(2, 1, "client-0", send("server-0", 1, "SET <k> & \"v\""), ""),
            ev(
                3,
                2,
                "server-0",
                Happening::Deliver {
                    from: "client-0".into(),
                    msg: "SET <k> & \"v\"".into(),
                    msg_id: 1,
                },
                "",
            ),
            ev(4, 2, "server-0", obs("set"), "key <k> := 'v' & more"),
            ev(5, 3, "client-0", pause, "PAUSED for 1 s"),
            ev(6, 3, "server-0", obs("reply"), "replies"),
            ev(7, 3, "server-0", send("client-0", 2, "OK"), ""),
            ev(
                8,
                3,
                "server-0",
                Happening::Drop {
                    from: "server-0".into(),
                    msg: "OK".into(),
                    msg_id: 2,
                    reason: DropReason::Loss,
                    to: "client-0".into(),
                },
                "",
            ),
            ev(9, 4, "client-0", Happening::Resume, "resumes"),
            ev(10, 4, "client-0", send("server-0", 3, "DEL"), ""),
        ];
        let mut marks = Marks::default();
        marks.add(4, "stale_write");
        let text = svg(&events, &Cast::default(), &marks);
        let doc = roxmltree::Document::parse(&text).expect("well-formed");
        let root = doc.root_element();
        assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        let groups = |class: &str| -> Vec<roxmltree::Node<'_, '_>> {
            doc.descendants()
                .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').any(|w| w == class)))
                .collect()
        };
        let texts = |n: roxmltree::Node<'_, '_>| -> Vec<String> {
            n.descendants()
                .filter(|d| d.has_tag_name("text"))
                .filter_map(|d| d.text().map(str::to_string))
                .collect()
        };
        let heads: Vec<Vec<String>> = groups("lane-head").into_iter().map(texts).collect();
        assert_eq!(heads, [["client-0"], ["server-0"]]);
        let violation = groups("violation");
        assert_eq!(violation.len(), 1);
        assert_eq!(
            texts(violation[0]),
            ["0.002 s", "key <k> := 'v' & more", "VIOLATES stale_write"]
        );
        assert_eq!(groups("delivered").len(), 1);
        assert_eq!(texts(groups("delivered")[0])[1], "SET <k> & \"v\"");
        let dropped = groups("dropped");
        assert_eq!(dropped.len(), 1);
        assert_eq!(texts(dropped[0])[1], "OK (lost)");
        assert_eq!(texts(groups("in-flight")[0])[1], "DEL (still in flight at the end)");
        assert_eq!(groups("pause").len(), 2, "the pause and the resume");
        // client-0's lifeline: solid, dotted while paused, solid again.
        let dashes: Vec<Option<&str>> = groups("lifeline")
            .iter()
            .filter(|l| l.attribute("x1") == Some(&centre(0).to_string()))
            .map(|l| l.attribute("stroke-dasharray"))
            .collect();
        assert_eq!(dashes, [None, Some("2,4"), None]);
    }

    #[test]
    fn no_events_still_make_a_document() {
        let text = svg(&[], &Cast::default(), &Marks::default());
        let doc = roxmltree::Document::parse(&text).expect("well-formed");
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }
}
