//! What Mermaid's sequence grammar cannot take verbatim, and how locksim writes it instead.
//!
//! Checked against Mermaid 11's own parser (`tests/mermaid/parse.mjs`): after the `:` of a
//! message or note, the text runs to the end of the line, but `;` ends the statement and `#`
//! starts an entity code. A `<` before a letter would open an HTML tag that the renderer's
//! sanitizer removes. Mermaid's documented escape is its entity code (`#59;`, `#lt;`), which it
//! turns back into the character only after sanitising, so the reader sees exactly the
//! simulator's text ("token 1 < max 5").

/// `text` made safe for the text part of a message or note (one line).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ';' => out.push_str("#59;"),
            '#' => out.push_str("#35;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Longest line of a note over one participant or of a message, in characters. Mermaid
/// widens a participant's column to fit the widest note over it and the gap after a message's
/// sender to fit its text, so one-line texts of ~50 characters spread an eight-participant
/// diagram to ~2,400 px, shrunk to ~9 px text in a 1,400 px window. Cut at 26, columns stay at
/// Mermaid's minimum and the text at ~15 px or more.
pub(crate) const LINE_CHARS: usize = 26;

/// `text` cut into lines of at most `max` characters at spaces (a longer word stands alone),
/// never between a number and its unit ("20.000 s" stays whole).
pub(crate) fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split([' ', '\n', '\r', '\t']).filter(|w| !w.is_empty()) {
        match words.last_mut() {
            Some(number) if is_unit(word) && number.ends_with(|c: char| c.is_ascii_digit()) => {
                number.push(' ');
                number.push_str(word);
            }
            _ => words.push(word.to_string()),
        }
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in &words {
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

/// A unit of time as the simulator writes it after a number, maybe followed by punctuation.
fn is_unit(word: &str) -> bool {
    matches!(
        word.trim_end_matches([')', ',', ';', '.', ':']),
        "s" | "ms" | "us" | "µs" | "ns"
    )
}

/// `text` as the lines of a note or message: cut at [`LINE_CHARS`], each line escaped, joined
/// with `<br>` (Mermaid's line break in both).
pub(crate) fn narrow(text: &str) -> String {
    wrap(text, LINE_CHARS)
        .iter()
        .map(|l| escape(l))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Words the sequence grammar reads as keywords where a participant id stands.
const RESERVED: &[&str] = &[
    "activate",
    "actor",
    "alt",
    "and",
    "as",
    "autonumber",
    "box",
    "break",
    "create",
    "critical",
    "deactivate",
    "destroy",
    "else",
    "end",
    "left",
    "link",
    "links",
    "loop",
    "note",
    "opt",
    "over",
    "par",
    "participant",
    "properties",
    "rect",
    "right",
    "title",
];

/// Participant ids for node names (`client-0` -> `client_0`): a `-` would be read as the start
/// of an arrow. The diagram shows the real name through `participant client_0 as client-0`.
pub(crate) fn participant_ids(names: &[&str]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        let mut id: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
            .collect();
        if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
            id.insert_str(0, "n_");
        }
        if RESERVED.contains(&id.to_ascii_lowercase().as_str()) {
            id.push('_');
        }
        let base = id.clone();
        let mut n = 2;
        while ids.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        ids.push(id);
    }
    ids
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_the_grammar_cannot_take() {
        assert_eq!(escape("token 1 < max 5; #3"), "token 1 #lt; max 5#59; #35;3");
        assert_eq!(escape("0 -> 1\nnext"), "0 -#gt; 1 next");
        assert_eq!(escape("{0,1,2} — ok: fine"), "{0,1,2} — ok: fine");
    }

    #[test]
    fn ids_are_plain_unique_and_not_keywords() {
        assert_eq!(
            participant_ids(&["client-0", "server-0", "resource", "end", "client_0", "9x"]),
            ["client_0", "server_0", "resource", "end_", "client_0_2", "n_9x"]
        );
    }

    #[test]
    fn long_texts_are_cut_at_spaces_into_short_lines() {
        let text = "answers in: granted by {0,1,2}, answered by {0,1,2}; next";
        assert_eq!(
            narrow(text),
            "answers in: granted by<br>{0,1,2}, answered by<br>{0,1,2}#59; next"
        );
        assert!(wrap(text, LINE_CHARS).iter().all(|l| l.chars().count() <= LINE_CHARS));
        assert_eq!(
            wrap("a-word-longer-than-the-limit x", 5),
            ["a-word-longer-than-the-limit", "x"]
        );
        assert_eq!(narrow("OK"), "OK");
        assert_eq!(
            wrap("wall clock JUMPS by 20.000 s", LINE_CHARS),
            ["wall clock JUMPS by", "20.000 s"]
        );
        assert_eq!(
            wrap("lease caa5 (expires at 10.002 s)", 28),
            ["lease caa5 (expires at", "10.002 s)"]
        );
        assert_eq!(wrap("answers s", 7), ["answers", "s"]);
    }
}
