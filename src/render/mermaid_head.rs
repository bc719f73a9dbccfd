//! The top of a Mermaid diagram: how it is drawn for a projector (`%%{init}%%`: larger fonts,
//! notes that let their colour through) and what it is about (its caption: title, the
//! scenario's description as a note over everyone and as the accessible description).

use super::caption::Caption;
use super::mermaid_text::{escape, wrap};

/// Mermaid's settings for a classroom: 18 px text (its default, 14 px, shrinks to ~9 px on a
/// projected eight-participant page), white notes made translucent so the band of colour
/// behind a fault's, an expiry's or a refusal's note shows through instead of Mermaid's yellow.
/// Participant boxes 110 px wide (a name grows its box) 30 px apart, instead of 150 and 50:
/// with notes and messages cut short (`mermaid_text::LINE_CHARS`), eight participants fit in
/// ~1,470 px, so a 1,400 px window shows the text at ~17 px (measured with Mermaid 11).
pub(crate) const INIT: &str = "%%{init: {\"themeVariables\": {\"fontSize\": \"18px\", \"noteBkgColor\": \"#ffffff\"}, \
\"themeCSS\": \".note { fill-opacity: 0.35; }\", \"sequence\": {\"width\": 110, \"actorMargin\": 30, \
\"actorFontSize\": 20, \"noteFontSize\": 18, \"messageFontSize\": 18}}}%%";

/// Longest line of the caption note, in characters: a description wraps at word ends. The note
/// spans every participant, but Mermaid still widens the gap before the last one by half the
/// note's width: at 72 characters that adds ~80 px to an eight-participant diagram.
const CAPTION_LINE: usize = 44;

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
            "client-0 holds {0,1,2}#59; server-2's wall<br>\
             clock jumps forward and expires its key#59;<br>\
             client-1 acquires {2,3,4}: two majorities at<br>\
             once.<br>\
             seed 7 (--seed 7 draws this run again)"
        );
        assert_eq!(caption_note(&Caption::default()), None);
        assert_eq!(title_text("a#b;c\nd"), "a b c d");
    }
}
