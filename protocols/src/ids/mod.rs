//! What every ID generator shares: the `unique_ids` and `id_monotonic` checkers ([`check`]),
//! which judge (as [`IdJudge`]) any model whose observations say which ID they issued
//! ([`IssuesIds`]), and `id_global_order` ([`order`]), which shows what a scheme does not
//! promise: that a smaller ID was issued earlier.

pub mod check;
pub mod order;
mod spelled;
#[cfg(test)]
mod test_history;

use std::fmt;

use locksim_sim::pieces::Piece;
use locksim_sim::push;

pub use check::{ID_INVARIANTS, ID_MONOTONIC, IdJudge, UNIQUE_IDS};
pub use order::{ID_GLOBAL_ORDER, ORDERED_ID_INVARIANTS, OrderedIdJudge};
pub use spelled::Spelled;

/// An observation that may record an issued ID: how the ID checkers find the IDs they judge in
/// a model's own observation type.
pub trait IssuesIds {
    /// The ID as the scheme orders it (a 64-bit number, a 128-bit UUID's bytes), shown in
    /// verdicts the way the scheme writes it.
    type Id: Copy + Ord + fmt::Display;

    /// The ID this event issued, if it issued one (the recording node is the generator).
    fn issued_id(&self) -> Option<Self::Id>;
}

/// A 64-bit ID written in hexadecimal (`0x2800000`), as Snowflake IDs are read: the fields
/// show in the digits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct HexId(pub u64);

impl fmt::Display for HexId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// A 16-bit number (a Snowflake node ID or sequence number, most often one digit) in decimal,
/// a digit at a time: `itoa`'s text of it is copied in with a `memcpy` call of a length known
/// only at run time, which with the call to `itoa` cost ~35 instructions where one digit
/// pushed costs a few. An issued ID's members have two.
#[derive(Copy, Clone)]
pub struct SmallUint(pub u16);

impl Piece for SmallUint {
    // Always inlined: as a mere hint it stayed a call (~25 instructions with its
    // prologue, for a digit or two).
    #[inline(always)]
    fn push_to(&self, out: &mut String) {
        let n = u32::from(self.0);
        let digit = |d: u32| char::from(b'0' + (d % 10) as u8);
        if n < 10 {
            // One digit, as most node IDs and sequence numbers are: one compare, not one per
            // place (an issued ID's members ~25 instructions fewer, measured).
            out.push(digit(n));
            return;
        }
        for place in [10_000, 1_000, 100, 10] {
            if n >= place {
                out.push(digit(n / place));
            }
        }
        out.push(digit(n));
    }
}

/// `n` requests, in words: how the ID generators' timelines count the requests a refusal or a
/// wait holds.
pub struct Requests(pub u64);

impl Piece for Requests {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            1 => out.push_str("1 request"),
            n => push!(out, n, " requests"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_uint_is_spelled_as_the_formatter_spells_it() {
        for n in [0, 1, 9, 10, 99, 100, 999, 1_000, 4_095, 9_999, 10_000, 10_001, u16::MAX] {
            let mut text = String::from("n ");
            SmallUint(n).push_to(&mut text);
            assert_eq!(text, format!("n {n}"));
        }
    }
}
