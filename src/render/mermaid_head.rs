//! The top of a Mermaid diagram: how it is drawn for a projector (`%%{init}%%`: larger fonts,
//! notes that let their colour through) and what it is about (its caption: title, the
//! scenario's description as a note over everyone and as the accessible description).

use super::caption::Caption;
use super::mermaid_text::escape;

/// Mermaid's settings for a classroom: 18 px text (its default, 14 px, shrinks to ~9 px on a
/// projected eight-participant page), white notes made translucent so the band of colour
/// behind a fault's, an expiry's or a refusal's note shows through instead of Mermaid's yellow.
pub(crate) const INIT: &str = "%%{init: {\"themeVariables\": {\"fontSize\": \"18px\", \"noteBkgColor\": \"#ffffff\"}, \
\"themeCSS\": \".note { fill-opacity: 0.35; }\", \"sequence\": {\"actorFontSize\": 20, \"noteFontSize\": 18, \
\"messageFontSize\": 18}}}%%";

/// Longest line of the caption note, in characters: a description wraps at word ends.
const CAPTION_LINE: usize = 72;

/// The lines before the participants: settings, the diagram type, its title and accessible
/// description.
pub(crate) fn head(caption: &Caption) -> String {
    let mut out = format!("{INIT}\nsequenceDiagram\n    title {}\n", title_text(&caption.title()));
    if !caption.description.is_empty() {
        out.push_str(&format!("    accDescr: {}\n", one_line(&caption.description)));
    }
    out
}

/// The note over everyone that opens the diagram: the description, and the seed that draws
/// the run again. None without a description (a diagram drawn without its scenario).
pub(crate) fn caption_note(caption: &Caption) -> Option<String> {
    if caption.description.is_empty() {
        return None;
    }
    let mut lines = wrap(&caption.description, CAPTION_LINE);
    lines.push(format!(
        "seed {} (--seed {} draws this run again)",
        caption.seed, caption.seed
    ));
    Some(lines.iter().map(|l| escape(l)).collect::<Vec<_>>().join("<br>"))
}

/// A title as Mermaid's grammar takes it: to the end of the line, with no `#` or `;`.
fn title_text(text: &str) -> String {
    one_line(text).replace(['#', ';'], " ")
}

fn one_line(text: &str) -> String {
    text.replace(['\n', '\r', '\t'], " ")
}

/// `text` cut into lines of at most `max` characters at spaces (a longer word stands alone).
fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in one_line(text).split(' ').filter(|w| !w.is_empty()) {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caption_names_the_run_and_wraps_its_description() {
        let caption = Caption {
            name: "clock-jump".into(),
            description: "client-0 holds {0,1,2}; server-2's wall clock jumps forward and expires its key; \
                          client-1 acquires {2,3,4}: two majorities at once."
                .into(),
            seed: 7,
            file: String::new(),
        };
        let head = head(&caption);
        assert!(head.starts_with("%%{init: "), "{head}");
        assert!(head.contains("\nsequenceDiagram\n    title clock-jump, seed 7\n    accDescr: client-0 holds"));
        let note = caption_note(&caption).unwrap();
        assert_eq!(
            note,
            "client-0 holds {0,1,2}#59; server-2's wall clock jumps forward and expires<br>\
             its key#59; client-1 acquires {2,3,4}: two majorities at once.<br>\
             seed 7 (--seed 7 draws this run again)"
        );
        assert_eq!(caption_note(&Caption::default()), None);
        assert_eq!(title_text("a#b;c\nd"), "a b c d");
    }
}
