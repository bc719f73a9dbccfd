//! The vocabulary of judging a finished history (DESIGN section 5). The engine judges nothing
//! by itself: checkers live beside the models whose facts they read (one family's checkers
//! shared by all its models) and speak this vocabulary, so the CLI, reports and exploration
//! handle any model's verdicts alike. A checker reads nothing but the history — never a
//! model's internal state — so a second driver that produces the same history is judged the
//! same way.

mod invariant;
pub mod linear;
mod node_table;
mod plural;

use serde::Serialize;

pub use invariant::Invariant;
pub use node_table::NodeTable;
pub use plural::count;

/// The first event that broke an invariant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// Index into the history's events.
    pub event: usize,
    pub t_ns: u64,
    pub why: String,
}

/// The outcome of one checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Held, with what was checked (so a reader can tell it was not vacuous).
    Held(String),
    Violated(Violation),
    /// The run has nothing this invariant speaks about, and why.
    NotApplicable(String),
}

impl Status {
    /// `held`, `violated` or `not_applicable`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Held(_) => "held",
            Status::Violated(_) => "violated",
            Status::NotApplicable(_) => "not_applicable",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub invariant: Invariant,
    pub status: Status,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_reads_as_its_word() {
        let v = Violation {
            event: 0,
            t_ns: 0,
            why: String::new(),
        };
        let words = [
            Status::Held(String::new()),
            Status::Violated(v),
            Status::NotApplicable(String::new()),
        ];
        assert_eq!(words.map(|s| s.word()), ["held", "violated", "not_applicable"]);
    }
}
