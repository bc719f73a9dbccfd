//! The job store's semantics (the database the workers' effect lands in), apart from any
//! process: the business counter the effect increments, seed 000's `executions` table with its
//! unique `(job, slot)` key, and the separate done-marks of the mark-after variant.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

/// How a worker keeps a slot's effect from happening twice.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dedup {
    /// Seed 000: `BEGIN; INSERT INTO executions(job, slot) ... ON CONFLICT DO NOTHING;` and,
    /// only if a row was inserted, `UPDATE counter SET value = value + 1; COMMIT;` — the key is
    /// the done-mark, committed with the effect or not at all.
    SameTx,
    /// Wrong: check the done-mark, commit the effect, then write the done-mark in a second
    /// step. A crash between the two leaves an effect without a mark, and the retry repeats it.
    MarkAfter,
    /// Wrong: run the effect every time the slot is delivered.
    None,
}

/// What one committed effect did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// This slot's n-th committed effect (1 is the only right answer).
    pub nth: u32,
    /// The business counter after it.
    pub counter: u64,
}

/// The store's tables.
#[derive(Clone, Debug, Default)]
pub struct JobStore {
    /// `executions(job, slot)` with its unique key (same-tx).
    executions: BTreeSet<i64>,
    /// Done-marks written after the effect (mark-after).
    done_marks: BTreeSet<i64>,
    /// Committed effects per slot.
    effects: BTreeMap<i64, u32>,
    /// The business value the effect increments.
    counter: u64,
}

impl JobStore {
    /// The effect alone: `UPDATE counter SET value = value + 1`.
    pub fn effect(&mut self, slot: i64) -> Applied {
        self.counter += 1;
        let nth = self.effects.entry(slot).or_insert(0);
        *nth += 1;
        Applied {
            nth: *nth,
            counter: self.counter,
        }
    }

    /// Seed 000's transaction: the effect only if the `(job, slot)` row was inserted; `None`
    /// when the key was already there (0 rows inserted, nothing changed).
    pub fn effect_in_tx(&mut self, slot: i64) -> Option<Applied> {
        if !self.executions.insert(slot) {
            return None;
        }
        Some(self.effect(slot))
    }

    /// Whether the slot's done-mark is there (mark-after checks it before the effect).
    pub fn is_marked(&self, slot: i64) -> bool {
        self.done_marks.contains(&slot)
    }

    /// Writes the done-mark; false if it was already there.
    pub fn mark(&mut self, slot: i64) -> bool {
        self.done_marks.insert(slot)
    }

    pub fn counter(&self) -> u64 {
        self.counter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unique_key_lets_one_transaction_of_a_slot_commit() {
        let mut s = JobStore::default();
        assert_eq!(s.effect_in_tx(1), Some(Applied { nth: 1, counter: 1 }));
        for _ in 0..20 {
            assert_eq!(s.effect_in_tx(1), None, "a replay inserts no row and changes nothing");
        }
        assert_eq!(s.counter(), 1);
        assert_eq!(
            s.effect_in_tx(2),
            Some(Applied { nth: 1, counter: 2 }),
            "another slot runs"
        );
    }

    #[test]
    fn a_bare_effect_repeats_and_the_mark_is_separate() {
        let mut s = JobStore::default();
        assert!(!s.is_marked(1));
        assert_eq!(s.effect(1).nth, 1);
        // The crash between effect and mark: the mark was never written, so the retry's
        // check finds nothing and the effect runs again.
        assert!(!s.is_marked(1));
        assert_eq!(s.effect(1), Applied { nth: 2, counter: 2 });
        assert!(s.mark(1));
        assert!(s.is_marked(1));
        assert!(!s.mark(1), "marking twice is idempotent");
    }

    #[test]
    fn the_transaction_key_and_the_done_marks_are_different_tables() {
        let mut s = JobStore::default();
        s.mark(3);
        assert!(s.effect_in_tx(3).is_some(), "a done-mark is not an executions row");
        assert!(!s.is_marked(4));
        s.effect_in_tx(4);
        assert!(!s.is_marked(4), "nor the other way round");
    }
}
