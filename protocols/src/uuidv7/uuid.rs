//! The UUIDv7 layout (RFC 9562 §5.7): 48 bits of Unix milliseconds, the version (`0111`), 12
//! bits `rand_a`, the variant (`10`), 62 bits `rand_b`. The 74 bits around the version and
//! variant are filled, most significant first, with an optional counter (§6.2, Method 1) and
//! random bits. Ordered as a 128-bit number — the order of the UUID's bytes, and of its text
//! — so an ID checker compares UUIDs the way a database index sorts them.

use std::fmt;

use locksim_sim::Members;
use locksim_sim::pieces::Piece;
use serde::{Serialize, Serializer};

/// The timestamp field's width.
pub const MS_BITS: u32 = 48;
/// The bits left for a counter and random data once the version and variant are set.
pub const FREE_BITS: u32 = 74;
/// The largest Unix millisecond the timestamp holds (the year 10889).
pub const MAX_MS: u64 = (1 << MS_BITS) - 1;
const VERSION: u128 = 0b0111;
const VARIANT: u128 = 0b10;
const RAND_B_BITS: u32 = 62;

/// A UUID, as its 128 bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Uuid(pub u128);

impl Uuid {
    /// The UUIDv7 of Unix millisecond `ms` whose 74 free bits are `free` (a counter on top,
    /// random data below). Panics on a field out of range: a generator that builds one is
    /// broken.
    pub fn v7(ms: u64, free: u128) -> Uuid {
        assert!(
            ms <= MAX_MS && free >> FREE_BITS == 0,
            "UUIDv7 field out of range: ms {ms}, free {free:#x}"
        );
        let rand_a = free >> RAND_B_BITS;
        let rand_b = free & ((1 << RAND_B_BITS) - 1);
        Uuid((u128::from(ms) << 80) | (VERSION << 76) | (rand_a << 64) | (VARIANT << 62) | rand_b)
    }

    /// The Unix millisecond of its timestamp field.
    pub fn ms(self) -> u64 {
        (self.0 >> 80) as u64
    }

    /// The 74 bits around the version and variant, as `v7` took them.
    pub fn free_bits(self) -> u128 {
        let rand_a = (self.0 >> 64) & 0xfff;
        (rand_a << RAND_B_BITS) | (self.0 & ((1 << RAND_B_BITS) - 1))
    }

    /// The canonical text: 32 lower-case hex digits in groups of 8-4-4-4-12, spelled into `buf`
    /// a digit at a time: a UUIDv7 run's trace writes it twice per issued UUID (its member and
    /// its timeline text), and `format!("{:032x}")` sliced into a second `write!` cost several
    /// times the digits.
    fn spell(self, buf: &mut [u8; 36]) -> &str {
        let mut rest = self.0;
        for at in (0..36).rev() {
            if matches!(at, 8 | 13 | 18 | 23) {
                buf[at] = b'-';
            } else {
                buf[at] = b"0123456789abcdef"[(rest & 0xf) as usize];
                rest >>= 4;
            }
        }
        std::str::from_utf8(buf).expect("ASCII digits")
    }

    /// Its canonical text as a trace member (`Serialize`'s string), with no `String` of its own.
    pub(super) fn write_member(self, key: &'static str, m: &mut Members<'_>) {
        m.str(key, self.spell(&mut [0; 36]));
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.spell(&mut [0; 36]))
    }
}

impl Piece for Uuid {
    fn push_to(&self, out: &mut String) {
        out.push_str(self.spell(&mut [0; 36]));
    }
}

/// A trace carries the canonical text: JSON numbers past 64 bits are not read back reliably.
impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_example_is_rebuilt_from_its_fields() {
        // RFC 9562 Appendix A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F, at 0x017F22E279B0 ms
        // (Tuesday, February 22, 2022 2:22:22.00 PM GMT-05:00).
        let uuid = Uuid(0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F);
        assert_eq!(uuid.ms(), 0x017F_22E2_79B0);
        assert_eq!(Uuid::v7(uuid.ms(), uuid.free_bits()), uuid);
        assert_eq!(uuid.to_string(), "017f22e2-79b0-7cc3-98c4-dc0c0c07398f");
        assert_eq!(
            serde_json::to_string(&uuid).unwrap(),
            "\"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\""
        );
    }

    #[test]
    fn version_and_variant_are_fixed_and_the_free_bits_fill_the_rest() {
        let zero = Uuid::v7(0, 0);
        assert_eq!(zero.to_string(), "00000000-0000-7000-8000-000000000000");
        let full = Uuid::v7(MAX_MS, (1 << FREE_BITS) - 1);
        assert_eq!(full.to_string(), "ffffffff-ffff-7fff-bfff-ffffffffffff");
        assert_eq!(full.free_bits(), (1 << FREE_BITS) - 1);
    }

    /// The text spelled a digit at a time is the 32 digits `{:032x}` writes, in their groups.
    #[test]
    fn the_text_is_the_hex_digits_grouped() {
        for n in [0, 1, 0xabc << 60, u128::MAX, 0x017F22E2_79B0_7CC3_98C4_DC0C0C07398F] {
            let h = format!("{n:032x}");
            let text = format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
            assert_eq!(Uuid(n).to_string(), text);
            let mut pushed = String::from("UUID ");
            Uuid(n).push_to(&mut pushed);
            assert_eq!(pushed, format!("UUID {text}"));
        }
    }

    #[test]
    fn uuids_order_by_millisecond_then_free_bits_top_down() {
        let a = Uuid::v7(5, (1 << FREE_BITS) - 1);
        let b = Uuid::v7(6, 0);
        let c = Uuid::v7(6, 1);
        let d = Uuid::v7(6, 1 << 73);
        assert!(a < b && b < c && c < d);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn a_free_part_beyond_74_bits_is_a_bug() {
        let _ = Uuid::v7(0, 1 << FREE_BITS);
    }
}
