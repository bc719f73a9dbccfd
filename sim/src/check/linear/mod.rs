//! Linearizability of a history of operations against a sequential specification, in the
//! manner of Knossos and Porcupine: Wing & Gong's search with Lowe's just-in-time
//! linearization (an operation is tried only once every operation that completed before its
//! call has been placed) and memoization of (the set of operations placed, the spec's state),
//! so a state reached twice by different orders is explored once.
//!
//! Why a general checker and not a special case per model: "a read returned a stale value" is
//! exactly "the history has no linearization under the register's specification", and the
//! general question also catches what a special case forgets (a value read that was never
//! written, a compare-and-set that succeeded against a value already overwritten).
//!
//! Two properties make it usable on long histories:
//! - P-compositionality (Horn & Kroening): a history is linearizable iff each key's
//!   sub-history is, so [`check`] splits by [`Spec::key`] and searches each part alone;
//! - an operation that never returned ([`Op::end`] `None`: a crash, a timeout, an `:info` in
//!   Jepsen's words) may take effect at any point after its call, or never — its completion
//!   is placed after every other event, where placing it changes nothing anyone observed.
//!
//! When there is no linearization, the answer names the *first completion the history cannot
//! explain*: the operation whose return, taken in time order, is the first that no order of
//! the operations before it can account for (Knossos's "the op that left no valid
//! configuration", Porcupine's longest partial linearization). Everything that completed
//! before it is linearizable; with it, nothing is. A verdict cites that operation's event.

mod register;
mod search;

pub use register::{Keyed, Register, RegisterIn, RegisterOut};

use std::collections::BTreeMap;
use std::hash::Hash;

/// A sequential specification: what one object (one key's worth, see [`Spec::key`]) may
/// return, one operation at a time.
pub trait Spec {
    type State: Clone + Eq + Hash;
    type Input;
    type Output;
    /// What splits a history into independent objects (P-compositionality); `()` when the
    /// history is one object.
    type Key: Ord + Clone;

    /// Every key's state before any operation.
    fn init(&self) -> Self::State;
    fn key(&self, input: &Self::Input) -> Self::Key;
    /// The state after `input` ran in `state` and returned `output` (`None`: unknown, any
    /// output the spec allows), or `None` if the spec cannot return that output there.
    fn step(&self, state: &Self::State, input: &Self::Input, output: Option<&Self::Output>) -> Option<Self::State>;
}

/// One operation of a history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op<I, O> {
    /// Who invoked it (a client); only reported, never needed by the search.
    pub process: u64,
    /// When it was invoked, in any integer unit shared by the whole history.
    pub call: u64,
    /// When it completed and what it returned; `None` if it never returned or its outcome is
    /// unknown (it may then have taken effect at any time after `call`, or not at all).
    pub end: Option<(u64, O)>,
    pub input: I,
}

/// The search's answer for a whole history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every key's sub-history has a linearization.
    Linearizable { ops: usize, keys: usize },
    /// The first completion (in time order, over every key) the history cannot explain.
    Unexplained(Unexplained),
    /// The search gave up after `steps` steps without an answer.
    Undecided { steps: u64 },
}

/// The operation at which the history stops having a linearization.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Unexplained {
    /// Index of the operation in the history handed to [`check`].
    pub op: usize,
    /// How many of its key's completed operations returned before it, all of them explained.
    pub explained: usize,
}

/// Search steps (an operation tried at a point) before [`check`] gives up. Deciding
/// linearizability is NP-complete: a linearizable history is found along one path, but a
/// history with none must have every order of its operations ruled out, and each operation
/// that never returned doubles them. This bounds what such a history costs a run (a few
/// seconds) far above what a simulated run's histories of a few hundred operations need.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// Whether `history` is linearizable under `spec`, each key searched alone. `max_steps`
/// bounds the search over all keys together. Deterministic: the same history gives the same
/// answer, whatever the host.
pub fn check<S: Spec>(spec: &S, history: &[Op<S::Input, S::Output>], max_steps: u64) -> Outcome {
    let mut by_key: BTreeMap<S::Key, Vec<usize>> = BTreeMap::new();
    for (i, op) in history.iter().enumerate() {
        by_key.entry(spec.key(&op.input)).or_default().push(i);
    }
    let keys = by_key.len();
    let mut budget = search::Budget::new(max_steps);
    let mut first: Option<(u64, Unexplained)> = None;
    for ops in by_key.values() {
        match search::search(spec, history, ops, &mut budget) {
            search::Found::Linearization => {}
            search::Found::Stuck(u) => {
                let at = history[u.op].end.as_ref().map_or(u64::MAX, |(t, _)| *t);
                if first.is_none_or(|(t, f)| (at, u.op) < (t, f.op)) {
                    first = Some((at, u));
                }
            }
            search::Found::OutOfSteps => return Outcome::Undecided { steps: budget.used() },
        }
    }
    match first {
        Some((_, u)) => Outcome::Unexplained(u),
        None => Outcome::Linearizable {
            ops: history.len(),
            keys,
        },
    }
}

#[cfg(test)]
mod tests;
