//! Running many seeds on several threads with findings that do not depend on how many threads
//! there are or which finishes first. Seeds are handed out in order, computed from their index
//! in the shard (no list of them is ever built: `--seeds` may be as large as a `u64`); each
//! thread keeps running totals, and the totals are merged at the end by sums, minimums and
//! unions, which no order changes. Stopping early (without `keep_going`) stops only seeds
//! *after* the first failing one, so everything before it is always explored — and nothing
//! after it is counted: a thread keeps the seeds it finished while a lower seed was still
//! running aside (at most [`PENDING_MAX`] of them) until every lower seed is done, then counts
//! them if no lower seed failed.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use locksim_protocols::registry::invariants;
use locksim_protocols::{Scenario, run};
use locksim_sim::{Invariant, Recording, Status, Stop};

use super::swarm::drawn_plan;
use crate::fault_space::{FaultKind, FaultSpace};

mod totals;

pub use totals::KindTally;
use totals::{Totals, fails};

/// How to explore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub seeds: u64,
    /// Threads; at most one per seed of the shard is started.
    pub jobs: usize,
    /// Take seed `s` only if `s % shard.1 == shard.0`.
    pub shard: (u64, u64),
    pub keep_going: bool,
    /// Count only this invariant's violations as failures (a hunt for one bug).
    pub target: Option<Invariant>,
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
    /// Per violated invariant, in the order the models declare them: in how many seeds, and
    /// the first seed.
    pub violations: Vec<(Invariant, (u64, u64))>,
    /// The lowest seed that violated anything.
    pub first: Option<SeedResult>,
    /// The invariants this protocol judges (held or violated in some seed), in the order the
    /// models declare them.
    pub judged: Vec<Invariant>,
    /// Simulated events run, for the rate.
    pub events: u64,
    /// The lowest seed whose run stopped short (it stalled, or spent its event budget), and
    /// why: its verdicts are no answer, and the exploration cannot vouch for it.
    pub stopped: Option<(u64, Stop)>,
    /// Per kind of the fault space, in its order: how many explored plans drew an entry of
    /// it, and how those seeds fared — which kinds the findings come from.
    pub by_kind: Vec<(FaultKind, KindTally)>,
}

impl Summary {
    /// In how many seeds `invariant` was violated, and the first seed, if any was.
    pub fn violations_of(&self, invariant: Invariant) -> Option<(u64, u64)> {
        self.violations
            .iter()
            .find(|(i, _)| *i == invariant)
            .map(|&(_, found)| found)
    }
}

/// Live counters for a progress display.
#[derive(Default)]
pub struct Progress {
    pub done: AtomicU64,
    pub failing: AtomicU64,
}

/// How many seeds the shard has: those `s < seeds` with `s % N == K`.
pub fn shard_len(opts: &Options) -> u64 {
    let (k, n) = opts.shard;
    if n == 0 || k >= opts.seeds {
        return 0;
    }
    (opts.seeds - 1 - k) / n + 1
}

/// The shard's `i`-th seed (`K + i * N`), if it has one.
pub fn shard_seed(opts: &Options, i: u64) -> Option<u64> {
    let (k, n) = opts.shard;
    let seed = k.checked_add(i.checked_mul(n)?)?;
    (seed < opts.seeds).then_some(seed)
}

/// One seed's run: what it violated, what it judged at all, how many events it took.
pub struct SeedRun {
    pub violated: Vec<Invariant>,
    pub judged: Vec<Invariant>,
    pub events: u64,
    pub stopped: Option<Stop>,
    /// The fault kinds of the entries its plan drew.
    pub kinds: BTreeSet<FaultKind>,
}

/// One seed: its plan, its run, its verdicts.
pub fn run_seed(base: &Scenario, space: &FaultSpace, seed: u64) -> SeedRun {
    let (plan, kinds) = drawn_plan(base, space, seed);
    let scenario = plan.apply(base);
    let outcome = run(&scenario, seed, Recording::Facts);
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
        stopped: outcome.stopped,
        kinds,
    }
}

/// The most finished seeds a thread keeps aside while a lower seed is still running ("put a
/// limit on everything"): past it, the thread waits for the lower seed instead of running on.
pub const PENDING_MAX: usize = 4096;

/// Which indices of the shard are handed out, and which are running.
struct Claims {
    next: u64,
    /// Per thread, the index it is running (`u64::MAX`: none).
    running: Vec<u64>,
}

impl Claims {
    /// Every index below this one has finished.
    fn done_below(&self) -> u64 {
        self.running.iter().copied().fold(self.next, u64::min)
    }
}

/// A finished seed kept aside until every lower seed is done.
struct Pending {
    index: u64,
    seed: u64,
    result: SeedRun,
}

/// What a worker gets when it asks for work.
enum Claim {
    /// Run the shard's `index`-th seed.
    Seed { index: u64, seed: u64 },
    /// Too many seeds kept aside: wait for the lower seed that holds them up.
    Wait,
    /// No seed left to run.
    Done,
}

/// What the workers of one exploration share.
struct Shared<'a> {
    base: &'a Scenario,
    space: &'a FaultSpace,
    opts: &'a Options,
    len: u64,
    claims: Mutex<Claims>,
    /// The lowest failing seed so far (without `keep_going`): no seed after it is started.
    stop_after: AtomicU64,
    progress: &'a Progress,
    /// [`PENDING_MAX`], but for tests.
    pending_max: usize,
}

pub fn explore(base: &Scenario, space: &FaultSpace, opts: &Options, progress: &Progress) -> Summary {
    explore_capped(base, space, opts, progress, PENDING_MAX)
}

/// [`explore`], with at most `pending_max` seeds kept aside per thread.
fn explore_capped(
    base: &Scenario,
    space: &FaultSpace,
    opts: &Options,
    progress: &Progress,
    pending_max: usize,
) -> Summary {
    let len = shard_len(opts);
    let jobs = opts.jobs.clamp(1, usize::try_from(len).unwrap_or(usize::MAX).max(1));
    let shared = Shared {
        base,
        space,
        opts,
        len,
        claims: Mutex::new(Claims {
            next: 0,
            running: vec![u64::MAX; jobs],
        }),
        stop_after: AtomicU64::new(u64::MAX),
        progress,
        pending_max,
    };
    let mut totals = Totals::default();
    if len > 0 {
        let per_thread: Vec<(Totals, Vec<Pending>)> = std::thread::scope(|scope| {
            let shared = &shared;
            // A thread the system refuses (memory or process limits) is simply not started:
            // the others claim its seeds, and findings do not depend on how many threads run.
            // With none started, this thread does the work alone.
            let workers: Vec<_> = (0..jobs)
                .map_while(|t| {
                    std::thread::Builder::new()
                        .spawn_scoped(scope, move || shared.worker(t))
                        .ok()
                })
                .collect();
            if workers.is_empty() {
                return vec![shared.worker(0)];
            }
            workers
                .into_iter()
                .map(|w| w.join().expect("an explore worker panicked"))
                .collect()
        });
        // Every seed has finished: the lowest failing one is final.
        let cutoff = shared.stop_after.into_inner();
        for (mine, pending) in per_thread {
            totals.merge(mine);
            for p in pending.into_iter().filter(|p| p.seed <= cutoff) {
                totals.add(p.seed, p.result, opts.target);
            }
        }
    }
    Summary {
        explored: totals.explored,
        violations: in_declared_order(totals.violations, |(i, _)| *i),
        first: totals.first,
        judged: in_declared_order(totals.judged, |i| *i),
        events: totals.events,
        stopped: totals.stopped,
        by_kind: space
            .kinds
            .keys()
            .map(|k| (*k, totals.by_kind.get(k).copied().unwrap_or_default()))
            .collect(),
    }
}

/// Per-invariant entries (kept by id in the totals, so merging them is order-free) in the
/// order the registered models declare their invariants, which is the order a reader sees
/// verdicts in everywhere else; an invariant no registered model declares comes last.
fn in_declared_order<T>(by_id: impl IntoIterator<Item = T>, invariant: impl Fn(&T) -> Invariant) -> Vec<T> {
    let declared = invariants();
    let mut entries: Vec<T> = by_id.into_iter().collect();
    // Stable: undeclared ones keep their id order.
    entries.sort_by_key(|e| {
        let i = invariant(e);
        declared.iter().position(|d| *d == i).unwrap_or(declared.len())
    });
    entries
}

impl Shared<'_> {
    /// Counts the `pending` seeds below `done_below` (every seed under it has finished, so
    /// `stop_after` is final for them) that do not come after the first failing one.
    fn settle(&self, pending: &mut Vec<Pending>, totals: &mut Totals, done_below: u64) {
        let cutoff = self.stop_after.load(Ordering::SeqCst);
        let ready = pending.partition_point(|p| p.index < done_below);
        for p in pending.drain(..ready) {
            if p.seed <= cutoff {
                totals.add(p.seed, p.result, self.opts.target);
            }
        }
    }

    /// Thread `t` is done with its last seed: settles what it can, and claims the next one.
    fn claim(&self, t: usize, pending: &mut Vec<Pending>, totals: &mut Totals) -> Claim {
        let mut c = self.claims.lock().expect("no worker panicked holding the claims");
        c.running[t] = u64::MAX;
        self.settle(pending, totals, c.done_below());
        if pending.len() >= self.pending_max {
            return Claim::Wait;
        }
        let index = c.next;
        match shard_seed(self.opts, index).filter(|_| index < self.len) {
            Some(seed) if seed <= self.stop_after.load(Ordering::SeqCst) => {
                c.next += 1;
                c.running[t] = index;
                Claim::Seed { index, seed }
            }
            _ => Claim::Done,
        }
    }

    /// Thread `t`: claims the shard's next index, runs its seed, and counts it — at once with
    /// `keep_going`, otherwise as soon as every lower seed is done and none of them failed.
    /// Returns its totals and the seeds it still keeps aside, for `explore` to count once all
    /// are done.
    fn worker(&self, t: usize) -> (Totals, Vec<Pending>) {
        let mut totals = Totals::default();
        let mut pending: Vec<Pending> = Vec::new();
        loop {
            let (index, seed) = match self.claim(t, &mut pending, &mut totals) {
                Claim::Seed { index, seed } => (index, seed),
                Claim::Wait => {
                    std::thread::sleep(Duration::from_millis(1));
                    continue;
                }
                Claim::Done => break,
            };
            let result = run_seed(self.base, self.space, seed);
            if fails(&result.violated, self.opts.target) {
                self.progress.failing.fetch_add(1, Ordering::Relaxed);
                if !self.opts.keep_going {
                    self.stop_after.fetch_min(seed, Ordering::SeqCst);
                }
            }
            self.progress.done.fetch_add(1, Ordering::Relaxed);
            if self.opts.keep_going {
                totals.add(seed, result, self.opts.target);
            } else {
                pending.push(Pending { index, seed, result });
            }
        }
        (totals, pending)
    }
}

#[cfg(test)]
mod tests;
