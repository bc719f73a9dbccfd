//! What every lock model judges: the generic lock checkers' invariants (`check_lock`), in its
//! verdict order.

use locksim_sim::Invariant;

pub const LOCK_INVARIANTS: &[Invariant] = &[
    Invariant::MutualExclusion,
    Invariant::FencingOrder,
    Invariant::StaleWrite,
    Invariant::LostUpdate,
    Invariant::TokenMonotonic,
    Invariant::Liveness,
];
