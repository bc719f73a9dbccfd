//! The text of recent messages, by id: a delivery (or a drop) carries the message its send
//! carried, under the send's `msg_id`, so its line copies the text the send's line formatted
//! and escaped instead of formatting it again (a message's `Display` through the formatter
//! costs several hundred instructions; half a run's events are deliveries).

/// Messages remembered, each in the slot of its id modulo this: ids are handed out in order,
/// so a message is still here unless this many were sent while it was in flight; one that is
/// not is formatted again.
const SLOTS: usize = 64;

/// The escaped text of the last message sent with an id of each slot.
pub(super) struct Sent(Vec<(Option<u64>, String)>);

impl Default for Sent {
    fn default() -> Self {
        Sent(vec![(None, String::new()); SLOTS])
    }
}

impl Sent {
    /// Remembers the escaped `text` of message `id`.
    pub(super) fn keep(&mut self, id: u64, text: &str) {
        let (slot_id, slot) = &mut self.0[id as usize % SLOTS];
        *slot_id = Some(id);
        slot.clear();
        slot.push_str(text);
    }

    /// The escaped text of message `id`, if it is remembered.
    pub(super) fn get(&self, id: u64) -> Option<&str> {
        let (slot_id, text) = &self.0[id as usize % SLOTS];
        (*slot_id == Some(id)).then_some(text.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_kept_until_its_slot_is_taken() {
        let mut sent = Sent::default();
        assert_eq!(sent.get(0), None);
        sent.keep(1, "a");
        sent.keep(2, "b");
        assert_eq!((sent.get(1), sent.get(2), sent.get(3)), (Some("a"), Some("b"), None));
        sent.keep(1 + SLOTS as u64, "c");
        assert_eq!((sent.get(1), sent.get(1 + SLOTS as u64)), (None, Some("c")));
    }
}
