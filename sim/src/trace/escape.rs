//! The inside of a JSON string, escaped exactly as `serde_json` escapes it (`"`, `\`, the short
//! escapes `\b \f \n \r \t`, other control characters as `\u00xx`; everything else as is), so
//! a line written by hand is byte for byte the line serde wrote. Text is scanned eight bytes
//! at a time: almost every byte of a trace needs no escape.

use std::fmt::{self, Write};

/// Escapes what is written into the string it holds.
pub(super) struct Escaped<'a>(pub(super) &'a mut String);

impl Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let bytes = s.as_bytes();
        let (mut start, mut i) = (0, 0);
        while i < bytes.len() {
            if let Some(chunk) = bytes.get(i..i + 8)
                && !needs_escape(u64::from_le_bytes(chunk.try_into().expect("eight bytes")))
            {
                i += 8;
                continue;
            }
            let escape = match bytes[i] {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                c @ 0..0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.0.push_str(&s[start..i]);
                    self.0.push_str("\\u00");
                    self.0.push(char::from(HEX[usize::from(c >> 4)]));
                    self.0.push(char::from(HEX[usize::from(c & 15)]));
                    i += 1;
                    start = i;
                    continue;
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            // The byte escaped is ASCII: both slices end on character boundaries.
            self.0.push_str(&s[start..i]);
            self.0.push_str(escape);
            i += 1;
            start = i;
        }
        self.0.push_str(&s[start..]);
        Ok(())
    }
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
        // Every piece at every offset of an eight-byte chunk, alone and in runs.
        for (n, a) in pieces.iter().enumerate() {
            for b in &pieces[n..] {
                for pad in 0..9 {
                    let text = format!("{}{a}{b}{}{a}", "x".repeat(pad), "y".repeat(8 - pad));
                    let mut out = String::new();
                    Escaped(&mut out).write_str(&text).unwrap();
                    let serde = serde_json::to_string(&text).unwrap();
                    assert_eq!(format!("\"{out}\""), serde, "{text:?}");
                }
            }
        }
    }
}
