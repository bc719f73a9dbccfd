//! The caption at the top of the picture: which run it draws (the scenario's name and seed),
//! what the scenario is about, and the command that runs it again. A picture is shown away
//! from the command that made it — projected, in a slide, in a bug report — so it says all
//! this itself, in the picture rather than only in its `<title>`.

use super::wrap::wrap;
use super::{FONT, INK, LINE, MARGIN, QUIET, escape};
use crate::render::Caption;

/// The title's font size and line height, px.
const TITLE_FONT: i32 = 20;
const TITLE_LINE: i32 = 26;

/// The caption drawn for a picture `width` wide, and the height it takes.
pub(super) fn heading(caption: &Caption, width: i32) -> (String, i32) {
    let text_w = width - 2 * MARGIN;
    let mut out = String::from("<g class=\"caption\">");
    let mut y = MARGIN + TITLE_FONT;
    out.push_str(&format!(
        "<text class=\"caption-title\" x=\"{MARGIN}\" y=\"{y}\" font-size=\"{TITLE_FONT}\" font-weight=\"bold\" \
         fill=\"{INK}\">{}</text>",
        escape(&caption.title())
    ));
    y += TITLE_LINE - TITLE_FONT;
    let mut line = |class: &str, text: &str, fill: &str| {
        y += LINE;
        out.push_str(&format!(
            "<text class=\"{class}\" x=\"{MARGIN}\" y=\"{y}\" fill=\"{fill}\">{}</text>",
            escape(text)
        ));
    };
    for words in caption.description.lines().filter(|l| !l.trim().is_empty()) {
        for l in wrap(words.trim(), text_w) {
            line("caption-description", &l, INK);
        }
    }
    if let Some(command) = caption.replay() {
        for l in wrap(&format!("replay: {command}"), text_w) {
            line("caption-replay", &l, QUIET);
        }
    }
    out.push_str("</g>\n");
    (out, y + FONT - MARGIN)
}
