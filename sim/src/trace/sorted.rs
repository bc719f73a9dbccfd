//! An observation's JSON with the keys of every object in sorted order — what a
//! `serde_json::Value` (whose maps sort their keys) writes, which is how trace lines have
//! always spelt observations — without building the `Value`: the observation is serialized
//! once, compact, into a reused buffer, and its members are copied out in key order.

use std::borrow::Cow;

/// Appends the compact JSON value starting at byte `at` of `json` (as `serde_json` writes it:
/// no whitespace) to `out`, each object's keys sorted (a repeated key keeps its last value,
/// as a map does); returns where the value ends.
pub(super) fn write_sorted(json: &str, at: usize, out: &mut String) -> usize {
    let b = json.as_bytes();
    match b[at] {
        b'{' => {
            let mut members: Vec<(Cow<'_, str>, usize, usize)> = Vec::new();
            let mut i = at + 1;
            while b[i] != b'}' {
                let key_end = string_end(b, i);
                let value_end = value_end(b, key_end + 1);
                members.push((key(&json[i..key_end]), i, value_end));
                i = value_end;
                if b[i] == b',' {
                    i += 1;
                }
            }
            // Stable: of equal keys, the last one written is the last one kept.
            members.sort_by(|x, y| x.0.cmp(&y.0));
            out.push('{');
            let mut first = true;
            for (n, (key, start, _)) in members.iter().enumerate() {
                if members.get(n + 1).is_some_and(|next| next.0 == *key) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                let key_end = string_end(b, *start);
                out.push_str(&json[*start..=key_end]);
                write_sorted(json, key_end + 1, out);
            }
            out.push('}');
            i + 1
        }
        b'[' => {
            out.push('[');
            let mut i = at + 1;
            while b[i] != b']' {
                if i > at + 1 {
                    out.push(',');
                }
                i = write_sorted(json, i, out);
                if b[i] == b',' {
                    i += 1;
                }
            }
            out.push(']');
            i + 1
        }
        _ => {
            let end = value_end(b, at);
            out.push_str(&json[at..end]);
            end
        }
    }
}

/// A key as a map orders it: its text, unescaped (only a key with an escape needs the work).
fn key(quoted: &str) -> Cow<'_, str> {
    if quoted.contains('\\') {
        Cow::Owned(serde_json::from_str(quoted).expect("serde_json writes valid strings"))
    } else {
        Cow::Borrowed(&quoted[1..quoted.len() - 1])
    }
}

/// Where the string starting (at its quote) at `at` ends: just past its closing quote.
fn string_end(b: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while b[i] != b'"' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    i + 1
}

/// Where the value starting at `at` ends.
fn value_end(b: &[u8], at: usize) -> usize {
    match b[at] {
        b'"' => string_end(b, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match b[i] {
                    b'"' => {
                        i = string_end(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            at + b[at..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']'))
                .unwrap_or(b.len() - at)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// Inputs as `serde_json` writes them (compact, non-ASCII as is).
    #[test]
    fn objects_come_out_as_a_value_writes_them() {
        for json in [
            r#"{"z":1,"a":{"y":[{"q":"}","b":"]\"{"}],"c":null},"m":-1.5e-7,"ab":true,"a!":"x","é":"\\","k\"q":2,"k":3,"k\\":4}"#,
            r#"{"k":1,"j":[],"k":2,"i":{}}"#,
            r#"{"event":"noted","zeta":18446744073709551615,"alpha":null}"#,
            r#"{}"#,
        ] {
            let mut out = String::new();
            assert_eq!(write_sorted(json, 0, &mut out), json.len());
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(out, value.to_string(), "{json}");
        }
    }
}
