//! Reading a protocol's knobs (`[protocol]`, `[resource]`) with errors that name the key and
//! line. A model's `parse` function asks for each knob with its default, limits and a one-line
//! doc; the same function, run in *document* mode, is what `locksim list` prints — so the
//! knobs a model reads and the knobs it documents cannot drift apart.

use std::fmt;

/// The most clients (or app servers) a world may have: a thousand, what one Redis or etcd
/// cluster serving a fleet sees. Nothing in a run grows with the square of the node count
/// (the network keeps no table per pair of nodes), so the cap only keeps a typo from asking
/// for a world that cannot finish.
pub const MAX_CLIENTS: u64 = 1_000;
/// An hour, in ms: the unit of most knobs' upper bounds.
pub const HOUR_MS: u64 = 3_600_000;
/// Thirty days, in ms: the cap on windows and delays.
pub const MAX_MS: u64 = 30 * 24 * HOUR_MS;

/// A knob's value as written in the file.
#[derive(Clone, Debug, PartialEq)]
pub enum KnobValue {
    Int(i64),
    /// A decimal number, kept as written (`0.01`) so that no float rounding enters a run.
    Decimal(String),
    Bool(bool),
    Str(String),
    /// An array; each item keeps its line (`key` is its 0-based index).
    List(Vec<KnobEntry>),
    /// An inline or sub-table, its entries with their lines.
    Table(Vec<KnobEntry>),
    /// Anything else (a datetime...), named for the error message.
    Other(&'static str),
}

impl KnobValue {
    pub fn type_name(&self) -> &'static str {
        match self {
            KnobValue::Int(_) => "an integer",
            KnobValue::Decimal(_) => "a decimal number",
            KnobValue::Bool(_) => "a boolean",
            KnobValue::Str(_) => "a string",
            KnobValue::List(_) => "an array",
            KnobValue::Table(_) => "a table",
            KnobValue::Other(what) => what,
        }
    }
}

/// One `key = value` of a section, with its 1-based line.
#[derive(Clone, Debug, PartialEq)]
pub struct KnobEntry {
    pub key: String,
    pub value: KnobValue,
    pub line: usize,
}

/// A knob that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnobError {
    /// The full key, `protocol.ttl_ms`.
    pub key: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key `{}`: {}", self.key, self.message)
    }
}

/// One documented knob, for `locksim list`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnobDoc {
    pub key: String,
    /// `integer 1..=1000000`, `"compare-and-delete" | "plain-del"`, ...
    pub values: String,
    pub default: String,
    pub doc: &'static str,
}

/// A section's knobs, being read.
pub struct Knobs {
    /// The section's name as errors print it: `protocol`, `fault[2]`, or empty for the top.
    section: String,
    /// The section header's line, for errors about missing or conflicting keys.
    section_line: Option<usize>,
    entries: Vec<(KnobEntry, bool)>,
    docs: Option<Vec<KnobDoc>>,
    /// The keys the parser asked for, in order: what an unknown key may have meant.
    asked: Vec<String>,
}

impl Knobs {
    pub fn new(section: impl Into<String>, section_line: Option<usize>, entries: Vec<KnobEntry>) -> Self {
        Knobs {
            section: section.into(),
            section_line,
            entries: entries.into_iter().map(|e| (e, false)).collect(),
            docs: None,
            asked: Vec::new(),
        }
    }

    /// An empty section that records what is asked of it, for documentation.
    pub fn documenting(section: &str) -> Self {
        Knobs {
            docs: Some(Vec::new()),
            ..Knobs::new(section, None, Vec::new())
        }
    }

    pub fn docs(self) -> Vec<KnobDoc> {
        self.docs.unwrap_or_default()
    }

    /// An error about `key` at its line (or the section's, when the key is absent).
    pub fn error(&self, key: &str, message: impl Into<String>) -> KnobError {
        let line = self
            .entries
            .iter()
            .find(|(e, _)| e.key == key)
            .map(|(e, _)| e.line)
            .or(self.section_line);
        KnobError {
            key: self.full_key(key),
            line,
            message: message.into(),
        }
    }

    fn full_key(&self, key: &str) -> String {
        if self.section.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.section)
        }
    }

    fn take(&mut self, key: &str, values: String, default: String, doc: &'static str) -> Option<KnobValue> {
        if !self.asked.iter().any(|k| k == key) {
            self.asked.push(key.to_string());
        }
        if let Some(docs) = &mut self.docs {
            docs.push(KnobDoc {
                key: key.to_string(),
                values,
                default,
                doc,
            });
        }
        let (entry, used) = self.entries.iter_mut().find(|(e, _)| e.key == key)?;
        *used = true;
        Some(entry.value.clone())
    }

    /// An integer knob within `min..=max`.
    pub fn int(&mut self, key: &str, default: i64, min: i64, max: i64, doc: &'static str) -> Result<i64, KnobError> {
        let values = if max == i64::MAX {
            format!("integer >= {min}")
        } else {
            format!("integer {min}..={max}")
        };
        match self.take(key, values, default.to_string(), doc) {
            None => Ok(default),
            Some(KnobValue::Int(v)) if (min..=max).contains(&v) => Ok(v),
            Some(KnobValue::Int(v)) if max == i64::MAX => {
                Err(self.error(key, format!("must be at least {min} (got {v})")))
            }
            Some(KnobValue::Int(v)) => Err(self.error(key, format!("must be between {min} and {max} (got {v})"))),
            Some(other) => Err(self.error(key, format!("must be an integer, not {}", other.type_name()))),
        }
    }

    /// A non-negative integer knob, as `u64`.
    pub fn uint(&mut self, key: &str, default: u64, min: u64, max: u64, doc: &'static str) -> Result<u64, KnobError> {
        let max = max.min(i64::MAX as u64) as i64;
        self.int(key, default as i64, min as i64, max, doc).map(|v| v as u64)
    }

    /// A duration in milliseconds within `min_ms..=max_ms`, returned in nanoseconds.
    pub fn millis(
        &mut self,
        key: &str,
        default_ms: u64,
        min_ms: u64,
        max_ms: u64,
        doc: &'static str,
    ) -> Result<u64, KnobError> {
        self.uint(key, default_ms, min_ms, max_ms, doc).map(|ms| ms * 1_000_000)
    }

    pub fn bool(&mut self, key: &str, default: bool, doc: &'static str) -> Result<bool, KnobError> {
        match self.take(key, "true | false".into(), default.to_string(), doc) {
            None => Ok(default),
            Some(KnobValue::Bool(b)) => Ok(b),
            Some(other) => Err(self.error(key, format!("must be true or false, not {}", other.type_name()))),
        }
    }

    /// One of a fixed set of strings.
    pub fn choice<T: Copy + PartialEq>(
        &mut self,
        key: &str,
        options: &[(&str, T)],
        default: T,
        doc: &'static str,
    ) -> Result<T, KnobError> {
        let listed: Vec<String> = options.iter().map(|(name, _)| format!("\"{name}\"")).collect();
        let default_name = options.iter().find(|(_, v)| *v == default).map_or("", |(n, _)| n);
        match self.take(key, listed.join(" | "), format!("\"{default_name}\""), doc) {
            None => Ok(default),
            Some(KnobValue::Str(s)) => options
                .iter()
                .find(|(name, _)| *name == s)
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    let hint = did_you_mean(&s, options.iter().map(|(name, _)| *name));
                    self.error(
                        key,
                        format!("unknown value \"{s}\"; expected one of {}{hint}", listed.join(", ")),
                    )
                }),
            Some(other) => Err(self.error(
                key,
                format!("must be one of {}, not {}", listed.join(", "), other.type_name()),
            )),
        }
    }

    /// A fraction in `0..=1` (written `0.01` or `1`), returned in parts per million. Parsed
    /// from the decimal digits as written, so `0.01` is exactly 10000 ppm.
    pub fn fraction_ppm(&mut self, key: &str, default_ppm: u32, doc: &'static str) -> Result<u32, KnobError> {
        let default = format!("{}", f64::from(default_ppm) / 1e6);
        match self.take(key, "decimal 0..=1".into(), default, doc) {
            None => Ok(default_ppm),
            Some(KnobValue::Int(v)) if v == 0 || v == 1 => Ok(v as u32 * 1_000_000),
            Some(KnobValue::Decimal(d)) => parse_fraction_ppm(&d).ok_or_else(|| {
                self.error(
                    key,
                    format!("must be a decimal between 0 and 1 with at most 6 decimals (got {d})"),
                )
            }),
            Some(other) => Err(self.error(
                key,
                format!("must be a decimal between 0 and 1, not {}", other.type_name()),
            )),
        }
    }

    /// A string knob.
    pub fn text(&mut self, key: &str, default: &str, doc: &'static str) -> Result<String, KnobError> {
        match self.take(key, "string".into(), format!("\"{default}\""), doc) {
            None => Ok(default.to_string()),
            Some(KnobValue::Str(s)) => Ok(s),
            Some(other) => Err(self.error(key, format!("must be a string, not {}", other.type_name()))),
        }
    }

    /// Whether the section sets `key`.
    pub fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(e, _)| e.key == key)
    }

    /// The value of `key` as written, for structured knobs (lists, tables) the caller reads.
    pub fn raw(&mut self, key: &str, values: &str, doc: &'static str) -> Option<KnobValue> {
        self.take(key, values.into(), "(none)".into(), doc)
    }

    /// The line of `key`, or of the section.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.error(key, "").line
    }

    /// Errors on the first key nobody asked for.
    pub fn finish(self) -> Result<(), KnobError> {
        match self.entries.iter().find(|(_, used)| !used) {
            None => Ok(()),
            Some((e, _)) => Err(KnobError {
                key: self.full_key(&e.key),
                line: Some(e.line),
                message: format!(
                    "unknown key{}",
                    did_you_mean(&e.key, self.asked.iter().map(String::as_str))
                ),
            }),
        }
    }
}

/// `; did you mean "ttl_ms"?` when one of `known` is a likely misspelling of `word` (within
/// a third of its length in Damerau-Levenshtein edits, at least one: `ttl_msec`, `resorce`,
/// `paus`), the nearest first in `known`'s order; empty otherwise, as a guess far off would
/// mislead more than it helps.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let reach = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for candidate in known {
        let d = strsim::damerau_levenshtein(word, candidate);
        if d <= reach && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map_or(String::new(), |(_, c)| format!("; did you mean \"{c}\"?"))
}

/// `"0.25"` -> 250000; `None` outside `0..=1` or with more than 6 decimals.
pub fn parse_fraction_ppm(text: &str) -> Option<u32> {
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 6
        || !frac.chars().all(|c| c.is_ascii_digit())
        || !int.chars().all(|c| c.is_ascii_digit())
        || int.is_empty()
    {
        return None;
    }
    let int: u64 = int.parse().ok()?;
    let frac: u64 = format!("{frac:0<6}").parse().ok()?;
    let ppm = int.checked_mul(1_000_000)?.checked_add(frac)?;
    (ppm <= 1_000_000).then_some(ppm as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn knobs(entries: &[(&str, KnobValue)]) -> Knobs {
        let entries = entries
            .iter()
            .enumerate()
            .map(|(i, (k, v))| KnobEntry {
                key: k.to_string(),
                value: v.clone(),
                line: i + 10,
            })
            .collect();
        Knobs::new("protocol", Some(9), entries)
    }

    #[test]
    fn reads_values_and_names_bad_ones() {
        let mut k = knobs(&[("ttl_ms", KnobValue::Int(0)), ("mode", KnobValue::Str("x".into()))]);
        let e = k.millis("ttl_ms", 10, 1, 1000, "").unwrap_err();
        assert_eq!((e.key.as_str(), e.line), ("protocol.ttl_ms", Some(10)));
        assert!(e.message.contains("between 1 and 1000 (got 0)"), "{e}");
        let e = k.choice("mode", &[("a", 1), ("b", 2)], 1, "").unwrap_err();
        assert!(e.message.contains("unknown value \"x\""), "{e}");
        assert!(k.bool("absent", true, "").unwrap());
    }

    #[test]
    fn unknown_keys_are_errors() {
        let mut k = knobs(&[("ttl_ms", KnobValue::Int(5)), ("tll_ms", KnobValue::Int(5))]);
        k.int("ttl_ms", 1, 1, 10, "").unwrap();
        let e = k.finish().unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.line, e.message.as_str()),
            ("protocol.tll_ms", Some(11), "unknown key; did you mean \"ttl_ms\"?")
        );
        let mut k = knobs(&[("zzz", KnobValue::Int(5))]);
        k.int("ttl_ms", 1, 1, 10, "").unwrap();
        assert_eq!(k.finish().unwrap_err().message, "unknown key", "no guess far off");
    }

    #[test]
    fn a_near_miss_gets_the_nearest_known_word() {
        let known = ["ttl_ms", "resource", "pause", "partition"];
        assert_eq!(did_you_mean("ttl_msec", known), "; did you mean \"ttl_ms\"?");
        assert_eq!(did_you_mean("resorce", known), "; did you mean \"resource\"?");
        assert_eq!(did_you_mean("paus", known), "; did you mean \"pause\"?");
        assert_eq!(did_you_mean("partitoin", known), "; did you mean \"partition\"?");
        assert_eq!(did_you_mean("fencing", known), "");
    }

    #[test]
    fn fractions_are_exact() {
        assert_eq!(parse_fraction_ppm("0.01"), Some(10_000));
        assert_eq!(parse_fraction_ppm("1.0"), Some(1_000_000));
        assert_eq!(parse_fraction_ppm("0.1234567"), None);
        assert_eq!(parse_fraction_ppm("1.5"), None);
        assert_eq!(parse_fraction_ppm("-0.1"), None);
    }

    #[test]
    fn documenting_mode_lists_what_is_read() {
        let mut k = Knobs::documenting("protocol");
        k.millis("ttl_ms", 10_000, 1, 100, "lock TTL").unwrap();
        let docs = k.docs();
        assert_eq!(docs[0].key, "ttl_ms");
        assert_eq!(docs[0].default, "10000");
    }
}
