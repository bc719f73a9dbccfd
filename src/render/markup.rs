//! Text made safe inside markup, for every page and picture locksim writes (the SVG diagram,
//! the HTML trace viewer, the walkthrough): one escaping, so a name or description that would
//! break one of them breaks none.

/// `text` as XML or HTML character data or attribute value: the five markup characters as entities,
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
