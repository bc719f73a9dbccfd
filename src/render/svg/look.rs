//! How each note is drawn — a colour per kind of fault, amber for a refused write, red for a
//! violation — and the legend that names every look and arrow.

use locksim_sim::trace::{Happening, TraceEvent};

use super::{ALARM, DROPPED, INK, LINE, MARGIN, PAUSED, QUIET, escape, text_width};
use crate::render::diagram::{Emphasis, REFUSAL_RGB, VIOLATION_RGB};

/// How a note is drawn: its classes (for readers of the file and for tests), fill, border and
/// what the legend calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Look {
    pub(super) class: &'static str,
    pub(super) fill: &'static str,
    pub(super) stroke: &'static str,
    pub(super) stroke_width: u8,
    pub(super) legend: &'static str,
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

/// Emphasis first (as in the Mermaid diagram), then the kind of fault, so that each fault
/// reads as what it is.
pub(super) fn look(e: &TraceEvent, emphasis: Option<&Emphasis>) -> Look {
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

/// The legend at `top`, wrapped to `width`: a swatch per kind of note, a sample of each
/// arrow. Returns the drawing and its height.
pub(super) fn legend(width: i32, top: i32) -> (String, i32) {
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
