//! The Snowflake ID layout (seed 001; Twitter's IdWorker): one unused sign bit, 41 bits of
//! milliseconds since a custom epoch (about 69.7 years), 10 bits of node ID (1024 generators)
//! and 12 bits of sequence (4096 IDs per generator per millisecond). Packing is plain shifts,
//! so an ID sorts by time first, then node, then sequence — which is what lets a checker say
//! "this generator's IDs went backwards" from the numbers alone.

use std::fmt;

use serde::Serialize;

use crate::ids::Spelled;

pub const TIMESTAMP_BITS: u32 = 41;
pub const NODE_BITS: u32 = 10;
pub const SEQUENCE_BITS: u32 = 12;

/// The largest millisecond offset the timestamp field holds.
pub const MAX_MS: u64 = (1 << TIMESTAMP_BITS) - 1;
/// How many node IDs there are (0..1024).
pub const NODE_IDS: u16 = 1 << NODE_BITS;
/// How many IDs one generator can issue in one millisecond (sequence 0..4096).
pub const SEQUENCES_PER_MS: u16 = 1 << SEQUENCE_BITS;

/// An ID's three fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct SnowflakeId {
    /// Milliseconds since the epoch, `0..=MAX_MS`.
    pub ms: u64,
    /// `0..NODE_IDS`.
    pub node: u16,
    /// `0..SEQUENCES_PER_MS`.
    pub seq: u16,
}

impl SnowflakeId {
    /// The 64-bit ID. Panics on a field out of range: a generator that builds one is broken.
    pub fn encode(self) -> u64 {
        assert!(
            self.ms <= MAX_MS && self.node < NODE_IDS && self.seq < SEQUENCES_PER_MS,
            "Snowflake field out of range: {self:?}"
        );
        (self.ms << (NODE_BITS + SEQUENCE_BITS)) | (u64::from(self.node) << SEQUENCE_BITS) | u64::from(self.seq)
    }

    /// The fields of a 64-bit ID (the sign bit is ignored: an encoded ID never sets it).
    pub fn decode(id: u64) -> Self {
        SnowflakeId {
            ms: (id >> (NODE_BITS + SEQUENCE_BITS)) & MAX_MS,
            node: ((id >> SEQUENCE_BITS) & u64::from(NODE_IDS - 1)) as u16,
            seq: (id & u64::from(SEQUENCES_PER_MS - 1)) as u16,
        }
    }
}

impl fmt::Display for SnowflakeId {
    /// `0x2800000 (ms 10, node 0, seq 0)`: the number a client sees and what it is made of.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#x} (ms {}, node {}, seq {})",
            self.encode(),
            self.ms,
            self.node,
            self.seq
        )
    }
}

impl SnowflakeId {
    /// [`Display`](fmt::Display)'s text spelled on the stack ([`Spelled`]): an issued ID's
    /// timeline line (half a Snowflake run's trace lines) has one. It takes at most 58 bytes,
    /// `0x7fffffffffffffff (ms 2199023255551, node 1023, seq 4095)`. `id` is the ID encoded,
    /// as its fact carries it: encoded again, with its range checks, it cost an issued ID's
    /// line ~20 instructions.
    #[inline(always)]
    pub fn spell<const N: usize>(&self, id: u64, text: &mut Spelled<N>) {
        text.str("0x");
        self.spell_after_0x(id, text);
    }

    /// [`SnowflakeId::spell`] past its `0x`.
    #[inline(always)]
    pub fn spell_after_0x<const N: usize>(&self, id: u64, text: &mut Spelled<N>) {
        debug_assert_eq!(id, self.encode(), "the ID of {self:?}");
        text.hex(id);
        text.str(" (ms ");
        text.decimal(self.ms);
        text.str(", node ");
        text.decimal(u64::from(self.node));
        text.str(", seq ");
        text.decimal(u64::from(self.seq));
        text.str(")");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_are_41_10_12_bits_in_that_order() {
        assert_eq!(TIMESTAMP_BITS + NODE_BITS + SEQUENCE_BITS, 63, "one sign bit left over");
        let id = SnowflakeId { ms: 1, node: 0, seq: 0 };
        assert_eq!(id.encode(), 1 << 22);
        assert_eq!(SnowflakeId { ms: 0, node: 1, seq: 0 }.encode(), 1 << 12);
        assert_eq!(SnowflakeId { ms: 0, node: 0, seq: 1 }.encode(), 1);
        let max = SnowflakeId {
            ms: MAX_MS,
            node: NODE_IDS - 1,
            seq: SEQUENCES_PER_MS - 1,
        };
        assert_eq!(max.encode(), i64::MAX as u64, "all 63 bits set, sign bit clear");
        // 2^41 ms is 69.7 years.
        assert_eq!(MAX_MS / (365 * 24 * 3_600_000), 69);
    }

    #[test]
    fn decode_inverts_encode() {
        let samples = [
            SnowflakeId { ms: 0, node: 0, seq: 0 },
            SnowflakeId {
                ms: 10,
                node: 3,
                seq: 4095,
            },
            SnowflakeId {
                ms: 1_288_834_974_657,
                node: 1023,
                seq: 7,
            },
            SnowflakeId {
                ms: MAX_MS,
                node: NODE_IDS - 1,
                seq: SEQUENCES_PER_MS - 1,
            },
        ];
        for id in samples {
            assert_eq!(SnowflakeId::decode(id.encode()), id, "{id:?}");
        }
        // And the other way round, for numbers no generator would mix up.
        for raw in [
            0u64,
            1,
            4095,
            4096,
            0x2800000,
            0x1234_5678_9abc_def0 & (i64::MAX as u64),
        ] {
            assert_eq!(SnowflakeId::decode(raw).encode(), raw, "{raw:#x}");
        }
    }

    #[test]
    fn ids_order_by_time_then_node_then_sequence() {
        let a = SnowflakeId {
            ms: 5,
            node: 1023,
            seq: 4095,
        }
        .encode();
        let b = SnowflakeId { ms: 6, node: 0, seq: 0 }.encode();
        let c = SnowflakeId { ms: 6, node: 0, seq: 1 }.encode();
        let d = SnowflakeId { ms: 6, node: 1, seq: 0 }.encode();
        assert!(a < b && b < c && c < d);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_sequence_beyond_12_bits_is_a_bug() {
        let _ = SnowflakeId {
            ms: 0,
            node: 0,
            seq: 4096,
        }
        .encode();
    }

    #[test]
    fn display_shows_the_number_and_its_fields() {
        let id = SnowflakeId {
            ms: 10,
            node: 0,
            seq: 0,
        };
        assert_eq!(id.to_string(), "0x2800000 (ms 10, node 0, seq 0)");
    }

    /// A timeline line takes an ID spelled on the stack: the same text.
    #[test]
    fn the_spelled_text_is_the_displayed_text() {
        for id in [
            SnowflakeId { ms: 0, node: 0, seq: 0 },
            SnowflakeId {
                ms: MAX_MS,
                node: NODE_IDS - 1,
                seq: SEQUENCES_PER_MS - 1,
            },
            SnowflakeId {
                ms: 1_288_834_974_657,
                node: 3,
                seq: 7,
            },
        ] {
            let mut text = Spelled::<64>::default();
            text.str("ID ");
            id.spell(id.encode(), &mut text);
            let mut line = String::from("> ");
            text.push_to(&mut line);
            assert_eq!(line, format!("> ID {id}"));
        }
    }
}
