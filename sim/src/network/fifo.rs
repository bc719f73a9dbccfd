//! FIFO order per link, in memory that grows with the messages in flight rather than with the
//! square of the node count.
//!
//! A FIFO link delivers a message no earlier than the one sent before it on that link:
//! `arrival = max(drawn arrival, link's latest arrival)`. A link's latest arrival constrains a
//! message sent at `now` only while it is later than `now` (a drawn arrival is never earlier
//! than its send time, and time never goes back), so only the links with a message still in
//! flight need an entry; the rest are dropped whenever the table fills. Which entries are
//! dropped, and when, never changes an arrival: runs stay byte for byte what a table per pair
//! of nodes gave.
//!
//! The table is open addressing with linear probing, written out here because it sits on every
//! message's path: a probe is a multiply, a shift and a compare or two, as cheap as the dense
//! table's index was (std's `HashMap` cost ~40 more instructions per message). Entries are
//! never removed one by one, only by rebuilding, which keeps the probing simple.

use crate::ids::NodeId;

/// No link: `NodeId::NET` sends nothing.
const EMPTY: u64 = u64::MAX;
/// The smallest table, in slots (a power of two).
const MIN_SLOTS: usize = 64;

/// The latest arrival scheduled on each link with a message in flight.
#[derive(Clone, Debug)]
pub(super) struct Fifo {
    /// `(link key, latest arrival)`, `EMPTY` keys free; a power of two long.
    slots: Vec<(u64, u64)>,
    /// `64 - log2(slots.len())`: the hash's top bits pick the slot.
    shift: u32,
    used: usize,
}

impl Fifo {
    pub(super) fn new() -> Self {
        Fifo::with_slots(MIN_SLOTS)
    }

    fn with_slots(n: usize) -> Self {
        Fifo {
            slots: vec![(EMPTY, 0); n],
            shift: 64 - n.trailing_zeros(),
            used: 0,
        }
    }

    /// Holds `at_ns`, a message's drawn arrival on `from -> to` sent at `now_ns`, behind the
    /// link's earlier messages; returns when it arrives.
    #[inline]
    pub(super) fn arrival(&mut self, now_ns: u64, from: NodeId, to: NodeId, at_ns: u64) -> u64 {
        let key = u64::from(from.0) << 32 | u64::from(to.0);
        let mask = self.slots.len() - 1;
        // Fibonacci hashing: the product's top bits depend on both ends of the link.
        let mut i = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            let slot = &mut self.slots[i];
            if slot.0 == key {
                slot.1 = slot.1.max(at_ns);
                return slot.1;
            }
            if slot.0 == EMPTY {
                *slot = (key, at_ns);
                self.used += 1;
                // At most half full, so that probes stay short.
                if 2 * self.used > self.slots.len() {
                    self.rebuild(now_ns);
                }
                return at_ns;
            }
            i = (i + 1) & mask;
        }
    }

    /// Keeps the links with a message in flight, in a table four times their number: at least
    /// a quarter of it fills before the next rebuild, so rebuilding costs O(1) per message.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, now_ns: u64) {
        let live: Vec<(u64, u64)> = self
            .slots
            .iter()
            .copied()
            .filter(|&(key, latest_ns)| key != EMPTY && latest_ns > now_ns)
            .collect();
        let mut table = Fifo::with_slots((4 * live.len()).next_power_of_two().max(MIN_SLOTS));
        for (key, latest_ns) in live {
            let (from, to) = (NodeId((key >> 32) as u32), NodeId(key as u32));
            table.arrival(now_ns, from, to, latest_ns);
        }
        *self = table;
    }

    /// How many links have an entry (tests: memory stays bounded).
    #[cfg(test)]
    pub(super) fn links(&self) -> usize {
        self.used
    }
}
