//! The text of recent messages, by id: a delivery (or a drop) carries the message its send
//! carried, under the send's `msg_id`, so its line copies the text the send's line formatted
//! and escaped instead of formatting it again (a message's `Display` through the formatter
//! costs several hundred instructions; half a run's events are deliveries). A message is
//! formatted into its slot here, not into the line: a line has it twice (its `msg` and its
//! text), and two copies from the slot cost less than a copy into the slot and one within
//! the line.

use std::fmt::{self, Write};

use crate::escape::escape_tail;

/// Messages remembered, each in the slot of its id modulo this: ids are handed out in order,
/// so a message is still here unless this many were sent while it was in flight; one that is
/// not is formatted again.
const SLOTS: usize = 64;

/// The escaped text of the last message sent with an id of each slot.
pub(super) struct Sent(Vec<(Option<u64>, String)>);

/// Bytes each slot holds from the start: more than most messages' texts. A slot grown as
/// texts came (8 bytes, then each longer text's length, then double) reallocated two or three
/// times in a run, ~250 instructions each: in a short run (a bench seed's 1,700 events), 15
/// instructions per event.
const TEXT: usize = 64;

impl Default for Sent {
    fn default() -> Self {
        Sent((0..SLOTS).map(|_| (None, String::with_capacity(TEXT))).collect())
    }
}

impl Sent {
    /// The escaped text of message `id`, `msg`: formatted into its slot if it is `sent_now`
    /// or no longer there, else as its send kept it.
    pub(super) fn text(&mut self, id: u64, msg: &impl fmt::Display, sent_now: bool) -> &str {
        let (slot_id, text) = &mut self.0[id as usize % SLOTS];
        if sent_now || *slot_id != Some(id) {
            *slot_id = Some(id);
            text.clear();
            write!(text, "{msg}").expect("a String takes any text");
            escape_tail(text, 0);
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_kept_until_its_slot_is_taken() {
        let mut sent = Sent::default();
        assert_eq!(sent.text(1, &"a\"", true), "a\\\"");
        assert_eq!(sent.text(1, &"not formatted", false), "a\\\"");
        assert_eq!(sent.text(1, &"sent again", true), "sent again");
        sent.text(1 + SLOTS as u64, &"c", true);
        assert_eq!(sent.text(1, &"formatted", false), "formatted");
    }
}
