//! What every ID generator shares: the `unique_ids` and `id_monotonic` checkers ([`check`]),
//! which judge (as [`IdJudge`]) any model whose observations say which ID they issued ([`IssuesIds`]).

pub mod check;

pub use check::{ID_INVARIANTS, ID_MONOTONIC, IdJudge, UNIQUE_IDS};

/// An observation that may record an issued ID: how the ID checkers find the IDs they judge in
/// a model's own observation type.
pub trait IssuesIds {
    /// The ID this event issued, if it issued one (the recording node is the generator).
    fn issued_id(&self) -> Option<u64>;
}
