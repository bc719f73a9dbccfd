//! The inside of a JSON string, escaped exactly as `serde_json` escapes it (`"`, `\`, the short
//! escapes `\b \f \n \r \t`, other control characters as `\u00xx`; everything else as is), so
//! a trace line written by hand is byte for byte the line serde wrote. Text is scanned sixteen
//! bytes at a time: almost every byte of a trace needs no escape.

use std::fmt::{self, Write};

/// Escapes what is written into the string it holds.
pub(crate) struct Escaped<'a>(pub(crate) &'a mut String);

impl Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        push_escaped(self.0, s);
        Ok(())
    }
}

/// Escapes, in place, what `out` holds from byte `start` on: text formatted straight into the
/// line (a message's `Display`, a timeline text) is written plain, then scanned once — almost
/// never needing a change — instead of escaping each of the formatter's small pieces.
pub(crate) fn escape_tail(out: &mut String, start: usize) {
    let Some(at) = first_escape(&out.as_bytes()[start..]) else {
        return;
    };
    // The byte found is ASCII: the split falls on a character boundary.
    let tail = out.split_off(start + at);
    push_escaped(out, &tail);
}

/// Where the first byte of `bytes` that needs an escape lies, if any.
fn first_escape(bytes: &[u8]) -> Option<usize> {
    if bytes.len() < CHUNK {
        // A short text (a key, an event name) tested as one chunk padded with spaces: a copy
        // and a few compares rather than a loop over its bytes.
        let mut padded = [b' '; CHUNK];
        padded[..bytes.len()].copy_from_slice(bytes);
        if !any_escape(&padded) {
            return None;
        }
    }
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + CHUNK) {
        if any_escape(chunk) {
            break;
        }
        i += CHUNK;
    }
    // The last few bytes of a longer text as the last chunk (some checked already).
    if bytes.len() - i < CHUNK && bytes.len() >= CHUNK && !any_escape(&bytes[bytes.len() - CHUNK..]) {
        return None;
    }
    bytes[i..].iter().position(|&c| escapes(c)).map(|at| i + at)
}

/// Bytes tested at once.
const CHUNK: usize = 16;

/// Whether any byte of a chunk needs an escape. Every byte is tested, with no early exit, so
/// the compiler makes the test a handful of SIMD compares (SSE2 on x86_64: about one
/// instruction a byte, where a loop stopping at the first hit takes five); no `unsafe`.
#[inline(always)]
fn any_escape(chunk: &[u8]) -> bool {
    let chunk: &[u8; CHUNK] = chunk.try_into().expect("a chunk");
    chunk.iter().fold(false, |any, &c| any | escapes(c))
}

/// Whether JSON spells `c` with an escape: a control character, `"` or `\`.
#[inline(always)]
fn escapes(c: u8) -> bool {
    (c < 0x20) | (c == b'"') | (c == b'\\')
}

/// Appends `s` to `out`, escaped.
pub(crate) fn push_escaped(out: &mut String, s: &str) {
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
        // Every piece at every offset of a chunk and of the one after it, alone, in runs, before
        // a long plain tail (a hit in an early chunk, none in the last) and after a long plain
        // head (a hit only in the last few bytes); and texts shorter than a chunk.
        for (n, a) in pieces.iter().enumerate() {
            for b in &pieces[n..] {
                let short = (0..CHUNK).map(|pad| format!("{}{a}{b}", "x".repeat(pad)));
                let long = (0..=2 * CHUNK).flat_map(|pad| {
                    [
                        format!("{}{a}{b}{}{a}", "x".repeat(pad), "y".repeat(2 * CHUNK - pad)),
                        format!("{}{a}{}", "x".repeat(pad), "y".repeat(3 * CHUNK)),
                        format!("{}{a}{b}", "y".repeat(CHUNK + pad)),
                    ]
                });
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
