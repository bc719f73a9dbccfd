//! The legend that names every look of a note ([`crate::render::look`]) and every arrow.

use super::{DROPPED, INK, LINE, MARGIN, PAUSED, QUIET, escape, text_width};
use crate::render::look::LEGEND;

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
