//! What every ID generator shares: the `unique_ids` and `id_monotonic` checkers ([`check`]),
//! which judge (as [`IdJudge`]) any model whose observations say which ID they issued
//! ([`IssuesIds`]), and `id_global_order` ([`order`]), which shows what a scheme does not
//! promise: that a smaller ID was issued earlier.

pub mod check;
pub mod order;

use std::fmt;

pub use check::{ID_INVARIANTS, ID_MONOTONIC, IdJudge, UNIQUE_IDS};
pub use order::{ID_GLOBAL_ORDER, ORDERED_ID_INVARIANTS, OrderedIdJudge};

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
