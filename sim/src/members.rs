//! An observation's members written by hand into its trace line, for a model that writes its
//! facts itself ([`crate::Observation::write_members`]): the bytes the serde path writes (each
//! value as `serde_json` spells it, keys sorted) without a serializer per field, a buffer to
//! sort them through, or an escape scan of keys known to be plain. A model's facts can be a
//! third of a run's trace lines, and through serde each cost as much as the rest of its line.

use std::ops::Range;

use crate::escape::push_escaped;

/// The members of one JSON object being written, each `,"key":value`. Keys come in ascending
/// byte order and are plain ASCII needing no escape — what the serde path's sorted keys are;
/// debug builds (tests) check both, so a writer that strays fails its tests rather than
/// changing a trace. The methods are `#[inline]`: a model's writer calls them with constant
/// keys, which are then copied in place rather than through a call each.
pub struct Members<'a> {
    out: &'a mut String,
    /// No comma before the next member: the first of a nested object. An observation's own
    /// members join the line's, so they always have one.
    first: bool,
    /// The last key written, for the debug check of their order.
    last: &'static str,
    /// Where in `out` the observation's kind lies, escaped.
    kind: Range<usize>,
}

impl<'a> Members<'a> {
    /// An observation's members, appended to its line, where its kind lies at `kind`.
    pub(crate) fn new(out: &'a mut String, kind: Range<usize>) -> Self {
        Members {
            out,
            first: false,
            last: "",
            kind,
        }
    }

    /// The observation's kind ([`crate::Observation::kind`]) as a string: what most models'
    /// serde tag holds. Copied from the line's `kind`, escaped there already, not scanned
    /// again.
    #[inline]
    pub fn kind(&mut self, key: &'static str) {
        self.key(key);
        self.out.push('"');
        self.out.extend_from_within(self.kind.clone());
        self.out.push('"');
    }

    #[inline]
    pub fn uint(&mut self, key: &'static str, n: u64) {
        self.key(key);
        self.out.push_str(itoa::Buffer::new().format(n));
    }

    #[inline]
    pub fn int(&mut self, key: &'static str, n: i64) {
        self.key(key);
        self.out.push_str(itoa::Buffer::new().format(n));
    }

    /// A number, or `null` (an `Option` serde writes as it is).
    #[inline]
    pub fn opt_uint(&mut self, key: &'static str, n: Option<u64>) {
        match n {
            Some(n) => self.uint(key, n),
            None => self.null(key),
        }
    }

    #[inline]
    pub fn bool(&mut self, key: &'static str, b: bool) {
        self.key(key);
        self.out.push_str(if b { "true" } else { "false" });
    }

    /// A string, escaped.
    #[inline]
    pub fn str(&mut self, key: &'static str, s: &str) {
        self.key(key);
        self.out.push('"');
        push_escaped(self.out, s);
        self.out.push('"');
    }

    /// A constant string that needs no escape (a serde tag's value, a unit variant's name),
    /// copied without [`Members::str`]'s escape scan: a model's nested tag such as
    /// `"kind":"plain"` is written once a fact, and the scan cost more than the copy. Debug
    /// builds (tests) check it is plain.
    #[inline]
    pub fn tag(&mut self, key: &'static str, value: &'static str) {
        debug_assert!(
            value.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\'),
            "a plain tag: {value:?}"
        );
        self.key(key);
        self.out.push('"');
        self.out.push_str(value);
        self.out.push('"');
    }

    #[inline]
    pub fn null(&mut self, key: &'static str) {
        self.key(key);
        self.out.push_str("null");
    }

    /// A nested object, its members written by `members` (in their own key order).
    #[inline]
    pub fn object(&mut self, key: &'static str, members: impl FnOnce(&mut Members<'_>)) {
        self.key(key);
        self.out.push('{');
        members(&mut Members {
            out: self.out,
            first: true,
            last: "",
            kind: self.kind.clone(),
        });
        self.out.push('}');
    }

    #[inline]
    fn key(&mut self, key: &'static str) {
        debug_assert!(key > self.last, "members in key order: {key:?} after {:?}", self.last);
        debug_assert!(
            key.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\'),
            "a plain key: {key:?}"
        );
        self.last = key;
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }
}
