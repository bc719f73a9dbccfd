//! An observation's kind is a `&'static str`, one of a handful a model has, and plain ASCII
//! in every model so far: the kinds found plain are remembered by address, and a line copies
//! such a kind without scanning it for escapes again (~70 instructions a fact: a short text's
//! scan pads it into a chunk, a copy of its own).

use crate::escape::push_escaped;

/// Slots, each remembering one kind: more than a model has kinds, collisions only cost a scan.
const SLOTS: usize = 32;

/// The address and length of a kind found plain, in the slot its address picks. A `'static`
/// text never changes, so the same address and length are the same text.
#[derive(Default)]
pub(super) struct PlainKinds([(usize, usize); SLOTS]);

impl PlainKinds {
    /// Appends `kind` to `out`, escaped.
    pub(super) fn push(&mut self, out: &mut String, kind: &'static str) {
        let key = (kind.as_ptr() as usize, kind.len());
        let slot = &mut self.0[(key.0 ^ key.1) % SLOTS];
        if *slot == key {
            out.push_str(kind);
            return;
        }
        let start = out.len();
        push_escaped(out, kind);
        if out.len() - start == kind.len() {
            *slot = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_escaped_the_first_time_and_every_time_it_needs_it() {
        let mut kinds = PlainKinds::default();
        for _ in 0..2 {
            for (kind, want) in [("acquired", "acquired"), ("odd\"kind", "odd\\\"kind"), ("", "")] {
                let mut out = String::new();
                kinds.push(&mut out, kind);
                assert_eq!(out, want);
            }
        }
    }
}
