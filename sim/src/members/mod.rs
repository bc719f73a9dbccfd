//! An observation's members written by hand into its trace line, for a model that writes its
//! facts itself ([`crate::Observation::write_members`]): the bytes the serde path writes (each
//! value as `serde_json` spells it, keys sorted) without a serializer per field, a buffer to
//! sort them through, or an escape scan of keys known to be plain. A model's facts can be a
//! third of a run's trace lines, and through serde each cost as much as the rest of its line.

use std::ops::Range;

use crate::escape::push_escaped;
use crate::pieces::{Piece, push_uint};

mod raw_keys;
mod recurring;

pub(crate) use recurring::Recurring;

/// A member's key: its plain name, or the text [`member_key!`] made of it at compile time,
/// `,"name":`, which a member copies with one capacity check instead of four pushes (comma,
/// quote, name, `":`) — a model's facts write a few keys each, on a third of a run's lines.
#[derive(Clone, Copy)]
pub enum MemberKey {
    /// A plain name, as a test or an occasional writer passes it: written in those four pushes.
    Name(&'static str),
    /// `,"name":`, from [`member_key!`].
    Text(&'static str),
}

impl MemberKey {
    fn name(self) -> &'static str {
        match self {
            MemberKey::Name(name) => name,
            MemberKey::Text(text) => &text[2..text.len() - 2],
        }
    }
}

impl From<&'static str> for MemberKey {
    fn from(name: &'static str) -> Self {
        MemberKey::Name(name)
    }
}

/// The [`MemberKey`] of the plain name `$name`, its text made at compile time.
#[macro_export]
macro_rules! member_key {
    ($name:literal) => {
        $crate::MemberKey::Text(concat!(",\"", $name, "\":"))
    };
}

/// The members of one JSON object being written, each `,"key":value`. Keys come in ascending
/// byte order and are plain ASCII needing no escape — what the serde path's sorted keys are;
/// debug builds (tests) check both, so a writer that strays fails its tests rather than
/// changing a trace. The methods are `#[inline(always)]`: a model's writer calls them with
/// constant keys, which are then copied in place rather than through a call each (as mere
/// `#[inline]` hints they stayed calls, each key a `memcpy` of a length known only inside).
pub struct Members<'a> {
    out: &'a mut String,
    recurring: &'a mut Recurring,
    /// The last key written, for the debug check of their order (kept by debug builds only).
    last: &'static str,
    /// Where in `out` the observation's kind lies, escaped.
    kind: Range<usize>,
}

impl<'a> Members<'a> {
    /// An observation's members, appended to its line, where its kind lies at `kind`; the
    /// digits of recurring numbers kept in `recurring` from one line to the next.
    pub(crate) fn new(out: &'a mut String, kind: Range<usize>, recurring: &'a mut Recurring) -> Self {
        Members {
            out,
            recurring,
            last: "",
            kind,
        }
    }

    /// The observation's kind ([`crate::Observation::kind`]) as a string: what most models'
    /// serde tag holds. Copied from the line's `kind`, escaped there already, not scanned
    /// again.
    #[inline(always)]
    pub fn kind(&mut self, key: impl Into<MemberKey>) {
        self.key(key);
        self.out.push('"');
        self.out.extend_from_within(self.kind.clone());
        self.out.push('"');
    }

    /// [`Members::kind`] for a model whose kinds need no escape, passing its own
    /// ([`crate::Observation::kind`]): copied from that constant rather than from the line,
    /// whose `extend_from_within` cost twice the copy in range and boundary checks. Debug
    /// builds check it is the line's kind.
    #[inline(always)]
    pub fn plain_kind(&mut self, key: impl Into<MemberKey>, kind: &'static str) {
        debug_assert_eq!(&self.out[self.kind.clone()], kind, "the observation's kind, plain");
        self.key(key);
        self.out.push('"');
        self.out.push_str(kind);
        self.out.push('"');
    }

    #[inline(always)]
    pub fn uint(&mut self, key: impl Into<MemberKey>, n: u64) {
        self.key(key);
        push_uint(self.out, n);
    }

    /// A number a run writes again and again, of many digits: a random token a model hands
    /// out and names in many facts (each of its uses and retries). Its digits are copied from
    /// those kept for the last few such numbers when it is one of them ([`Recurring`]).
    #[inline(always)]
    pub fn recurring(&mut self, key: impl Into<MemberKey>, n: u64) {
        self.key(key);
        self.recurring.push(self.out, n);
    }

    #[inline(always)]
    pub fn int(&mut self, key: impl Into<MemberKey>, n: i64) {
        self.key(key);
        self.out.push_str(itoa::Buffer::new().format(n));
    }

    /// A non-negative integer whose decimal digits `digits` pushes (a model's own spelling of
    /// a small number, cheaper than [`Members::uint`]'s `itoa` text copied in with a `memcpy`
    /// call). Debug builds check it wrote digits, the first of them not a needless `0`.
    #[inline(always)]
    pub fn digits(&mut self, key: impl Into<MemberKey>, digits: &impl Piece) {
        self.key(key);
        let start = self.out.len();
        digits.push_to(self.out);
        debug_assert!(
            {
                let written = &self.out[start..];
                written.bytes().all(|c| c.is_ascii_digit()) && (written == "0" || !written.starts_with('0'))
            },
            "decimal digits: {:?}",
            &self.out[start..]
        );
    }

    /// A number, or `null` (an `Option` serde writes as it is).
    #[inline(always)]
    pub fn opt_uint(&mut self, key: impl Into<MemberKey>, n: Option<u64>) {
        match n {
            Some(n) => self.uint(key, n),
            None => self.null(key),
        }
    }

    #[inline(always)]
    pub fn bool(&mut self, key: impl Into<MemberKey>, b: bool) {
        self.key(key);
        self.out.push_str(if b { "true" } else { "false" });
    }

    /// A string, escaped.
    #[inline(always)]
    pub fn str(&mut self, key: impl Into<MemberKey>, s: &str) {
        self.key(key);
        self.out.push('"');
        push_escaped(self.out, s);
        self.out.push('"');
    }

    /// A constant string that needs no escape (a serde tag's value, a unit variant's name),
    /// copied without [`Members::str`]'s escape scan: a model's nested tag such as
    /// `"kind":"plain"` is written once a fact, and the scan cost more than the copy. Debug
    /// builds (tests) check it is plain.
    #[inline(always)]
    pub fn tag(&mut self, key: impl Into<MemberKey>, value: &'static str) {
        debug_assert!(
            value.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\'),
            "a plain tag: {value:?}"
        );
        self.key(key);
        self.out.push('"');
        self.out.push_str(value);
        self.out.push('"');
    }

    /// A value whose JSON text is a constant the model spells with `concat!` (an internally
    /// tagged enum's unit variant, `{"kind":"plain"}`), copied in one piece: through
    /// [`Members::object`] and a [`Members::tag`] in it, such a value cost ~150 instructions,
    /// most of them turning the first member's comma into the object's `{`
    /// (`String::replace_range`). Debug builds check it is one JSON value; the model's tests
    /// compare its bytes with serde's.
    #[inline(always)]
    pub fn json(&mut self, key: impl Into<MemberKey>, text: &'static str) {
        debug_assert!(
            serde_json::from_str::<serde_json::Value>(text).is_ok(),
            "a JSON value: {text:?}"
        );
        self.key(key);
        self.out.push_str(text);
    }

    #[inline(always)]
    pub fn null(&mut self, key: impl Into<MemberKey>) {
        self.key(key);
        self.out.push_str("null");
    }

    /// A nested object, its members written by `members` (in their own key order). They are
    /// written as the line's own are, each after a comma, and the first comma then becomes the
    /// object's `{`: no flag for a first member to test on every member of every line.
    #[inline(always)]
    pub fn object(&mut self, key: impl Into<MemberKey>, members: impl FnOnce(&mut Members<'_>)) {
        self.key(key);
        let open = self.out.len();
        members(&mut Members {
            out: self.out,
            recurring: self.recurring,
            last: "",
            kind: self.kind.clone(),
        });
        if self.out.len() == open {
            self.out.push('{');
        } else {
            self.out.replace_range(open..open + 1, "{");
        }
        self.out.push('}');
    }

    #[inline(always)]
    fn key(&mut self, key: impl Into<MemberKey>) {
        let key = key.into();
        // Debug builds only: in release, the name cut out of a key's text and kept was a call
        // and two stores per member, for a check that does not run.
        if cfg!(debug_assertions) {
            self.check_key(key.name());
        }
        match key {
            MemberKey::Name(name) => {
                self.out.push_str(",\"");
                self.out.push_str(name);
                self.out.push_str("\":");
            }
            MemberKey::Text(text) => self.out.push_str(text),
        }
    }

    /// The debug builds' check of a member's key: plain, and after the last one written.
    fn check_key(&mut self, name: &'static str) {
        assert!(name > self.last, "members in key order: {name:?} after {:?}", self.last);
        assert!(
            name.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\'),
            "a plain key: {name:?}"
        );
        self.last = name;
    }

    /// Members whose JSON text the model has whole (`,"a":1,"b":2`, their keys `keys`), most
    /// often a constant: copied in one piece, one capacity check, where [`Members::json`]
    /// copies the key and then the value. (An issued ID's fact, half the lines of a run of an
    /// ID generator, writes its `event` and `note` members so: ~21 instructions fewer.) Debug
    /// builds check the text is those members, in that order, after the last key written.
    ///
    /// ```
    /// # use locksim_sim::{trace::LineWriter, Event, Members, Names, NodeId, Observation, Salience, What};
    /// #[derive(Clone, Debug, serde::Serialize)]
    /// #[serde(tag = "event")]
    /// enum Fact {
    ///     Done { a: u64 },
    /// }
    /// # impl Observation for Fact {
    /// #     fn kind(&self) -> &'static str { "done" }
    /// #     fn salience(&self) -> Salience { Salience::Routine }
    /// #     fn describe(&self, _: &Names) -> String { String::new() }
    /// fn write_members(&self, m: &mut Members<'_>) -> bool {
    ///     let Fact::Done { a } = *self;
    ///     m.raw(&["a", "event"], &format!(",\"a\":{a},\"event\":\"Done\""));
    ///     true
    /// }
    /// # }
    /// # let names = Names::new(vec!["n".into()]);
    /// # let e: Event<&str, Fact> = Event {
    /// #     t_ns: 1, node: NodeId(0), wall_ns: 1, mono_ns: 1,
    /// #     what: What::Observe(Fact::Done { a: 7 }),
    /// # };
    /// # let mut writer = LineWriter::default();
    /// # let (line, _) = writer.write(&names, 0, &e);
    /// # assert!(line.contains(r#""kind":"done","a":7,"event":"Done","salience""#), "{line}");
    /// ```
    #[inline(always)]
    pub fn raw(&mut self, keys: &[&'static str], text: &str) {
        // Debug builds only, as for `key`: the keys in order and plain, and the text's own
        // keys the same, read by a JSON parser.
        if cfg!(debug_assertions) {
            for &name in keys {
                self.check_key(name);
            }
            assert!(
                raw_keys::of(text).is_some_and(|spelled| spelled.iter().eq(keys)),
                "members {keys:?}: {text:?}"
            );
        }
        self.out.push_str(text);
    }
}
