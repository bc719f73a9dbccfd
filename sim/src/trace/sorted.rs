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
            // Members on the stack: an observation's object is small and its keys plain, and
            // a heap list per object cost more than the sort.
            let mut small = [("", 0); SMALL];
            let mut n = 0;
            let mut i = at + 1;
            while b[i] != b'}' {
                let key_end = string_end(b, i);
                let quoted = &json[i..key_end];
                if n == SMALL || quoted.contains('\\') {
                    return write_object(json, at, out);
                }
                small[n] = (&quoted[1..quoted.len() - 1], i);
                n += 1;
                i = value_end(b, key_end + 1);
                if b[i] == b',' {
                    i += 1;
                }
            }
            let members = &mut small[..n];
            // Stable: of equal keys, the last one written is the last one kept.
            members.sort_by(|x, y| x.0.cmp(y.0));
            write_members(json, members, out);
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

/// Members an object keeps on the stack; a larger one is sorted on the heap.
const SMALL: usize = 16;

/// [`write_sorted`] for an object with many members or an escaped key, its keys unescaped to
/// be ordered.
fn write_object(json: &str, at: usize, out: &mut String) -> usize {
    let b = json.as_bytes();
    let mut members: Vec<(Cow<'_, str>, usize)> = Vec::new();
    let mut i = at + 1;
    while b[i] != b'}' {
        let key_end = string_end(b, i);
        members.push((key(&json[i..key_end]), i));
        i = value_end(b, key_end + 1);
        if b[i] == b',' {
            i += 1;
        }
    }
    members.sort_by(|x, y| x.0.cmp(&y.0));
    write_members(json, &members, out);
    i + 1
}

/// Writes an object's `members` (each a key and where it starts), sorted already, skipping a
/// key that the next member repeats.
fn write_members<K: PartialEq>(json: &str, members: &[(K, usize)], out: &mut String) {
    out.push('{');
    let mut first = true;
    for (n, (key, start)) in members.iter().enumerate() {
        if members.get(n + 1).is_some_and(|next| next.0 == *key) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        let key_end = string_end(json.as_bytes(), *start);
        out.push_str(&json[*start..=key_end]);
        write_sorted(json, key_end + 1, out);
    }
    out.push('}');
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
            // Past the members kept on the stack, a repeated key among them; and an escaped
            // key only in a nested object.
            r#"{"q":1,"p":2,"o":3,"n":4,"m":5,"l":6,"k":7,"j":8,"i":9,"h":10,"g":11,"f":12,"e":13,"d":14,"c":15,"b":16,"a":17,"k":18}"#,
            r#"{"z":{"b\"":1,"a":2},"y":[{"b":1,"a":{"d":1,"c":2}}]}"#,
        ] {
            let mut out = String::new();
            assert_eq!(write_sorted(json, 0, &mut out), json.len());
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(out, value.to_string(), "{json}");
        }
    }
}
