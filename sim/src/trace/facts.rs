//! An observation's part of a trace line — its kind and members — and what the line writer
//! keeps for a run's facts from one line to the next.

use crate::ids::Names;
use crate::members::{Members, Recurring};
use crate::node::Observation;
use crate::pieces::push_short;

use super::fields::write_fields;
use super::kinds::PlainKinds;
use super::plain::{debug_assert_plain, plain_names};
use super::sorted::write_sorted;

/// What the line writer keeps for a run's facts.
#[derive(Default)]
pub(super) struct Facts {
    /// An observation as serialized, before its keys are sorted into the line.
    scratch: Vec<u8>,
    kinds: PlainKinds,
    recurring: Recurring,
    /// Whether no node name of the run needs an escape, found at its first fact (one writer
    /// serves one run): then a fact that says its text is plain
    /// ([`Observation::plain_text`]) is written without an escape scan.
    plain_names: Option<bool>,
}

impl Facts {
    /// Whether `o`'s kind and text go into its line unscanned.
    #[inline]
    pub(super) fn plain<O: Observation>(&mut self, names: &Names, o: &O) -> bool {
        o.plain_text() && *self.plain_names.get_or_insert_with(|| plain_names(names))
    }

    /// An observation: its event name as `kind`, then its fields in key order (as the JSON
    /// map of [`super::Observed`] gives them), written by the model itself if it writes them.
    /// A `plain` fact's kind is copied as it is, by [`push_short`] (a model's kinds are short
    /// words: no `memcpy` call, ~19 instructions a fact where facts are half the lines).
    /// Inlined into the line writer: as a call, it cost a run whose lines are half facts 26
    /// instructions per event.
    #[inline(always)]
    pub(super) fn write<O: Observation>(&mut self, line: &mut String, plain: bool, o: &O) {
        line.push_str(",\"kind\":\"");
        let kind = line.len();
        if plain {
            push_short(line, o.kind());
            debug_assert_plain(o.kind());
        } else {
            self.kinds.push(line, o.kind());
        }
        let kind = kind..line.len();
        line.push('"');
        if !o.write_members(&mut Members::new(line, kind, &mut self.recurring)) {
            self.serialized(line, o);
        }
    }

    /// The fields of a fact its model does not write: serialized through `scratch`, a struct
    /// field by field, anything else whole and then sorted.
    fn serialized<O: Observation>(&mut self, line: &mut String, o: &O) {
        let scratch = &mut self.scratch;
        if write_fields(o, line, scratch).is_ok() {
            return;
        }
        scratch.clear();
        serde_json::to_writer(&mut *scratch, o).expect("observations serialize");
        let json = std::str::from_utf8(scratch).expect("serde_json writes UTF-8");
        assert!(
            json.starts_with('{'),
            "an observation must serialize to a JSON object, not {json}"
        );
        let start = line.len();
        write_sorted(json, 0, line);
        // `{"a":1,"b":2}` becomes `,"a":1,"b":2`: the members join the line's own.
        line.pop();
        if line.len() == start + 1 {
            line.truncate(start);
        } else {
            line.replace_range(start..=start, ",");
        }
    }
}
