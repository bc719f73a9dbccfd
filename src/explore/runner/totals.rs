//! A thread's running totals over the seeds it ran, and how two threads' totals combine: by
//! sums, minimums and unions, which no order of the threads changes.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::{Invariant, Stop};

use super::{SeedResult, SeedRun};
use crate::fault_space::FaultKind;

/// One fault kind's share of an exploration: in how many explored seeds' plans it drew an
/// entry, how many of those seeds failed, and the lowest of them. A kind with many plans and
/// no failure is one the scenario withstands; the first failing seed is where to look. It is
/// read back from a shard's JSON summary by `locksim merge`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
pub struct KindTally {
    pub plans: u64,
    pub failing: u64,
    pub first_failing_seed: Option<u64>,
}

impl KindTally {
    /// Sums and the minimum: the tally of two disjoint sets of seeds.
    pub fn merge(&mut self, other: KindTally) {
        self.plans += other.plans;
        self.failing += other.failing;
        self.first_failing_seed = match (self.first_failing_seed, other.first_failing_seed) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }
}

/// A thread's running totals.
#[derive(Default)]
pub(super) struct Totals {
    pub(super) explored: u64,
    pub(super) events: u64,
    pub(super) violations: BTreeMap<Invariant, (u64, u64)>,
    pub(super) judged: BTreeSet<Invariant>,
    pub(super) first: Option<SeedResult>,
    pub(super) stopped: Option<(u64, Stop)>,
    pub(super) by_kind: BTreeMap<FaultKind, KindTally>,
}

impl Totals {
    pub(super) fn add(&mut self, seed: u64, result: SeedRun, target: Option<Invariant>) {
        self.explored += 1;
        self.events += result.events;
        self.judged.extend(result.judged);
        if let Some(stop) = result.stopped {
            self.add_stopped(seed, stop);
        }
        for &i in &result.violated {
            let entry = self.violations.entry(i).or_insert((0, seed));
            entry.0 += 1;
            entry.1 = entry.1.min(seed);
        }
        let failed = fails(&result.violated, target);
        for kind in result.kinds {
            self.by_kind.entry(kind).or_default().merge(KindTally {
                plans: 1,
                failing: u64::from(failed),
                first_failing_seed: failed.then_some(seed),
            });
        }
        if failed && self.first.as_ref().is_none_or(|f| seed < f.seed) {
            self.first = Some(SeedResult {
                seed,
                violated: result.violated,
            });
        }
    }

    /// Keeps the lowest stopped seed.
    fn add_stopped(&mut self, seed: u64, stop: Stop) {
        if self.stopped.is_none_or(|(s, _)| seed < s) {
            self.stopped = Some((seed, stop));
        }
    }

    /// Sums, minimums and unions: the same whatever order the threads' totals come in.
    pub(super) fn merge(&mut self, other: Totals) {
        if let Some((seed, stop)) = other.stopped {
            self.add_stopped(seed, stop);
        }
        self.explored += other.explored;
        self.events += other.events;
        self.judged.extend(other.judged);
        for (i, (count, first)) in other.violations {
            let entry = self.violations.entry(i).or_insert((0, first));
            entry.0 += count;
            entry.1 = entry.1.min(first);
        }
        for (kind, tally) in other.by_kind {
            self.by_kind.entry(kind).or_default().merge(tally);
        }
        if let Some(f) = other.first
            && self.first.as_ref().is_none_or(|mine| f.seed < mine.seed)
        {
            self.first = Some(f);
        }
    }
}

pub(super) fn fails(violated: &[Invariant], target: Option<Invariant>) -> bool {
    match target {
        Some(t) => violated.contains(&t),
        None => !violated.is_empty(),
    }
}
