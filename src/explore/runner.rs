//! Running many seeds on several threads with findings that do not depend on how many threads
//! there are or which finishes first: every seed's result is kept by seed, the summary is
//! computed in seed order, and stopping early (without `keep_going`) stops only seeds *after*
//! the first failing one, so everything before it is always explored.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use locksim_protocols::{Scenario, run};
use locksim_sim::{Invariant, Level, Status};

use super::space::FaultSpace;
use super::swarm::plan_for_seed;

/// How to explore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub seeds: u64,
    pub jobs: usize,
    /// Take seed `s` only if `s % shard.1 == shard.0`.
    pub shard: (u64, u64),
    pub keep_going: bool,
}

/// One seed's outcome: the invariants it violated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedResult {
    pub seed: u64,
    pub violated: Vec<Invariant>,
}

/// What exploring found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub explored: u64,
    /// Per violated invariant: in how many seeds, and the first seed.
    pub violations: BTreeMap<Invariant, (u64, u64)>,
    /// The lowest seed that violated anything.
    pub first: Option<SeedResult>,
    /// The invariants this protocol judges (held or violated in some seed).
    pub judged: std::collections::BTreeSet<Invariant>,
    /// Simulated events run, for the rate.
    pub events: u64,
}

/// Live counters for a progress display.
#[derive(Default)]
pub struct Progress {
    pub done: AtomicU64,
    pub failing: AtomicU64,
}

/// The seeds of a shard, in order.
pub fn shard_seeds(opts: &Options) -> Vec<u64> {
    (0..opts.seeds).filter(|s| s % opts.shard.1 == opts.shard.0).collect()
}

/// One seed's run: what it violated, what it judged at all, how many events it took.
pub struct SeedRun {
    pub violated: Vec<Invariant>,
    pub judged: Vec<Invariant>,
    pub events: u64,
}

/// One seed: its plan, its run, its verdicts.
pub fn run_seed(base: &Scenario, space: &FaultSpace, seed: u64) -> SeedRun {
    let scenario = plan_for_seed(base, space, seed).apply(base);
    let outcome = run(&scenario, seed, Level::Facts);
    let with = |keep: fn(&Status) -> bool| {
        outcome
            .verdicts
            .iter()
            .filter(|v| keep(&v.status))
            .map(|v| v.invariant)
            .collect()
    };
    SeedRun {
        violated: with(|s| matches!(s, Status::Violated(_))),
        judged: with(|s| !matches!(s, Status::NotApplicable(_))),
        events: outcome.stats.events(),
    }
}

pub fn explore(base: &Scenario, space: &FaultSpace, opts: &Options, progress: &Progress) -> Summary {
    let seeds = shard_seeds(opts);
    let next = AtomicUsize::new(0);
    // Seeds after the first failing one need not run (unless keep_going).
    let stop_after = AtomicU64::new(u64::MAX);
    let results: Mutex<Vec<(u64, SeedRun)>> = Mutex::new(Vec::with_capacity(seeds.len()));
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1) {
            scope.spawn(|| {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&seed) = seeds.get(i) else { break };
                    if seed > stop_after.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = run_seed(base, space, seed);
                    if !result.violated.is_empty() {
                        progress.failing.fetch_add(1, Ordering::Relaxed);
                        if !opts.keep_going {
                            stop_after.fetch_min(seed, Ordering::Relaxed);
                        }
                    }
                    progress.done.fetch_add(1, Ordering::Relaxed);
                    mine.push((seed, result));
                }
                results.lock().expect("no worker panicked").extend(mine);
            });
        }
    });
    let mut results = results.into_inner().expect("no worker panicked");
    results.sort_by_key(|(seed, _)| *seed);
    let cutoff = if opts.keep_going {
        u64::MAX
    } else {
        stop_after.into_inner()
    };
    let mut summary = Summary {
        explored: 0,
        violations: BTreeMap::new(),
        first: None,
        judged: Default::default(),
        events: 0,
    };
    for (seed, result) in results.into_iter().filter(|(seed, _)| *seed <= cutoff) {
        let SeedRun {
            violated,
            judged,
            events,
        } = result;
        summary.explored += 1;
        summary.events += events;
        summary.judged.extend(judged);
        for &i in &violated {
            let entry = summary.violations.entry(i).or_insert((0, seed));
            entry.0 += 1;
        }
        if summary.first.is_none() && !violated.is_empty() {
            summary.first = Some(SeedResult { seed, violated });
        }
    }
    summary
}
