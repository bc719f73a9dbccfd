//! The inside of a JSON string, escaped exactly as `serde_json` escapes it (`"`, `\`, the short
//! escapes `\b \f \n \r \t`, other control characters as `\u00xx`; everything else as is), so
//! a line written by hand is byte for byte the line serde wrote. Text is scanned eight bytes
//! at a time: almost every byte of a trace needs no escape.

use std::fmt::{self, Write};

/// Escapes what is written into the string it holds.
pub(super) struct Escaped<'a>(pub(super) &'a mut String);

impl Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        push_escaped(self.0, s);
        Ok(())
    }
}

/// Escapes, in place, what `out` holds from byte `start` on: text formatted straight into the
/// line (a message's `Display`, a timeline text) is written plain, then scanned once — almost
/// never needing a change — instead of escaping each of the formatter's small pieces.
pub(super) fn escape_tail(out: &mut String, start: usize) {
    let Some(at) = first_escape(&out.as_bytes()[start..]) else {
        return;
    };
    // The byte found is ASCII: the split falls on a character boundary.
    let tail = out.split_off(start + at);
    push_escaped(out, &tail);
}

/// Where the first byte of `bytes` that needs an escape lies, if any.
fn first_escape(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        if needs_escape(u64::from_le_bytes(chunk.try_into().expect("eight bytes"))) {
            break;
        }
        i += 8;
    }
    let rest = &bytes[i..];
    if rest.len() < 8 {
        // The last few bytes as one word too: the last eight of a longer text (some checked
        // already), or a short one padded with spaces, which need no escape.
        let word = match bytes.len().checked_sub(8) {
            Some(last) => u64::from_le_bytes(bytes[last..].try_into().expect("eight bytes")),
            None => rest
                .iter()
                .rev()
                .fold(ONES * u64::from(b' '), |w, &c| (w << 8) | u64::from(c)),
        };
        if !needs_escape(word) {
            return None;
        }
    }
    rest.iter()
        .position(|&c| c < 0x20 || c == b'"' || c == b'\\')
        .map(|at| i + at)
}

/// Appends `s` to `out`, escaped.
pub(super) fn push_escaped(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(at) = first_escape(&bytes[start..]) {
        let i = start + at;
        // The byte escaped is ASCII: both slices end on character boundaries.
        out.push_str(&s[start..i]);
        match bytes[i] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            c => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 15)]));
            }
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes is a control character, `"` or `\` (exact either way: the
/// classic "has a byte less than n" and "has a zero byte" word tests).
fn needs_escape(chunk: u64) -> bool {
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGHS != 0;
    below(chunk, 0x20) || below(chunk ^ (ONES * u64::from(b'"')), 1) || below(chunk ^ (ONES * u64::from(b'\\')), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_as_serde_escapes_it() {
        let pieces = [
            "plain text ",
            "\"",
            "\\",
            "\n",
            "\u{1}",
            "\u{1f}",
            "\u{7f}",
            "é",
            "日本",
            " ",
            "\t\r\u{8}\u{c}",
        ];
        // Every piece at every offset of an eight-byte chunk, alone and in runs; and texts
        // shorter than a chunk, checked as one padded word.
        for (n, a) in pieces.iter().enumerate() {
            for b in &pieces[n..] {
                let short = (0..8).map(|pad| format!("{}{a}{b}", "x".repeat(pad)));
                let long = (0..9).map(|pad| format!("{}{a}{b}{}{a}", "x".repeat(pad), "y".repeat(8 - pad)));
                for text in short.chain(long) {
                    let mut out = String::new();
                    Escaped(&mut out).write_str(&text).unwrap();
                    let serde = serde_json::to_string(&text).unwrap();
                    assert_eq!(format!("\"{out}\""), serde, "{text:?}");
                    // Escaped in place, after what the line held already.
                    let mut line = format!("\"{pieces:?}\"{text}");
                    let start = line.len() - text.len();
                    escape_tail(&mut line, start);
                    assert_eq!(line[start..], out, "{text:?}");
                }
            }
        }
    }
}
