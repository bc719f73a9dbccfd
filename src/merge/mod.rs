//! `locksim merge`: the shards of one exploration (`explore --shard K/N --keep-going --format
//! json`, run on as many machines) combined into the summary the unsharded run prints. The
//! combination is the runner's own (sums, minimums, unions), so it is exact only when the
//! shards are the same exploration, together cover every seed once, and each explored all of
//! its seeds: anything else is refused, naming the file and what differs.

mod shard;
mod text;

use std::collections::{BTreeMap, BTreeSet};

use locksim_protocols::registry;
use locksim_sim::Invariant;

use crate::explore::runner::{KindTally, Options, shard_len};
pub use shard::{Count, Shard, ShardSummary, read};
pub use text::{merged_json, merged_text};

/// The combined summary.
#[derive(Clone, Debug)]
pub struct Merged {
    /// The first shard's summary: what every shard agreed on (scenario, space, seeds, hunt).
    pub template: ShardSummary,
    /// N, the number of shards combined.
    pub shards: u64,
    pub seeds: u64,
    pub first_failing_seed: Option<u64>,
    /// In the order the models declare their invariants, as explore prints them.
    pub violations: Vec<(Invariant, Count)>,
    pub never_violated: Vec<Invariant>,
    /// In the fault space's order.
    pub by_kind: Vec<(String, KindTally)>,
}

/// Checks that `shards` are one exploration's shards, all of them, each explored whole, and
/// combines them.
pub fn merge(shards: &[Shard]) -> Result<Merged, String> {
    let first = shards.first().ok_or("no summary to merge")?;
    for s in shards {
        check_whole(s)?;
        check_same(first, s)?;
        check_counts(s)?;
    }
    check_cover(shards)?;
    let mut seeds = 0;
    let mut first_failing_seed: Option<u64> = None;
    let mut violations: BTreeMap<Invariant, Count> = BTreeMap::new();
    let mut judged: BTreeSet<Invariant> = BTreeSet::new();
    let mut by_kind: BTreeMap<String, KindTally> = BTreeMap::new();
    for s in shards {
        let sum = &s.summary;
        seeds += sum.seeds;
        first_failing_seed = min_some(first_failing_seed, sum.first_failing_seed);
        for (id, c) in &sum.violations {
            let i = known(s, id)?;
            judged.insert(i);
            let entry = violations.entry(i).or_insert(Count {
                count: 0,
                first_seed: c.first_seed,
            });
            entry.count += c.count;
            entry.first_seed = entry.first_seed.min(c.first_seed);
        }
        for id in &sum.never_violated {
            judged.insert(known(s, id)?);
        }
        for (kind, t) in &sum.by_fault_kind {
            by_kind.entry(kind.clone()).or_default().merge(*t);
        }
    }
    let template = first.summary.clone();
    let by_kind = template
        .fault_space
        .kinds
        .iter()
        .filter_map(|k| by_kind.get(k).map(|t| (k.clone(), *t)))
        .collect();
    Ok(Merged {
        shards: first.n,
        seeds,
        first_failing_seed,
        violations: declared_order(violations.into_iter().collect(), |(i, _)| *i),
        never_violated: declared_order(
            judged.into_iter().filter(|i| !violations_has(shards, *i)).collect(),
            |i| *i,
        ),
        by_kind,
        template,
    })
}

fn min_some(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Whether any shard violated `i`.
fn violations_has(shards: &[Shard], i: Invariant) -> bool {
    shards.iter().any(|s| s.summary.violations.contains_key(i.id()))
}

/// Entries in the order the registered models declare their invariants.
fn declared_order<T>(mut entries: Vec<T>, invariant: impl Fn(&T) -> Invariant) -> Vec<T> {
    let declared = registry::invariants();
    entries.sort_by_key(|e| declared.iter().position(|d| *d == invariant(e)));
    entries
}

fn known(s: &Shard, id: &str) -> Result<Invariant, String> {
    registry::invariant(id)
        .ok_or_else(|| format!("{}: names invariant `{id}`, which this locksim does not know", s.path))
}

/// A shard run without `--keep-going` stopped at its first failing seed: its counts cover part
/// of its seeds, and no sum of them is the whole run's.
fn check_whole(s: &Shard) -> Result<(), String> {
    let sum = &s.summary;
    if !sum.keep_going {
        return Err(format!(
            "{}: shard {} was explored without --keep-going, so it stopped at its first failing seed and its counts cover only part of its seeds; run every shard with --keep-going",
            s.path, sum.shard
        ));
    }
    Ok(())
}

/// A summary counts its shard's seeds and tallies its fault space's kinds, as explore writes
/// it: a summary edited by hand, or cut short, would add up to a wrong whole.
fn check_counts(s: &Shard) -> Result<(), String> {
    let sum = &s.summary;
    let opts = Options {
        seeds: sum.seeds_requested,
        jobs: 1,
        shard: (s.k, s.n),
        keep_going: true,
        target: None,
    };
    let expected = shard_len(&opts);
    if sum.seeds != expected {
        return Err(format!(
            "{}: shard {} of --seeds {} has {expected} seeds, but the summary counts {}",
            s.path, sum.shard, sum.seeds_requested, sum.seeds
        ));
    }
    let kinds: BTreeSet<&String> = sum.fault_space.kinds.iter().collect();
    if sum.by_fault_kind.keys().collect::<BTreeSet<_>>() != kinds {
        return Err(format!(
            "{}: `by_fault_kind` does not list exactly the fault space's kinds ({})",
            s.path,
            sum.fault_space.kinds.join(", ")
        ));
    }
    Ok(())
}

/// Every shard must be the same exploration as the first: the same scenario text (its hash
/// covers `[explore]`), the same locksim, fault space, seed count, shard count and hunt.
fn check_same(first: &Shard, s: &Shard) -> Result<(), String> {
    let (a, b) = (&first.summary, &s.summary);
    let differs: [(&str, String, String); 7] = [
        ("scenario", a.scenario.clone(), b.scenario.clone()),
        (
            "scenario text (`scenario_sha256`)",
            a.scenario_sha256.clone(),
            b.scenario_sha256.clone(),
        ),
        ("locksim version", a.locksim_version.clone(), b.locksim_version.clone()),
        (
            "fault space",
            format!(
                "{} (up to {})",
                a.fault_space.kinds.join(", "),
                a.fault_space.max_faults
            ),
            format!(
                "{} (up to {})",
                b.fault_space.kinds.join(", "),
                b.fault_space.max_faults
            ),
        ),
        ("--seeds", a.seeds_requested.to_string(), b.seeds_requested.to_string()),
        ("shard count N of K/N", first.n.to_string(), s.n.to_string()),
        (
            "--invariant",
            a.hunting.clone().unwrap_or_else(|| "(none)".into()),
            b.hunting.clone().unwrap_or_else(|| "(none)".into()),
        ),
    ];
    match differs.iter().find(|(_, x, y)| x != y) {
        None => Ok(()),
        Some((what, x, y)) => Err(format!(
            "{}: not the same exploration as {}: its {what} is {y}, not {x}",
            s.path, first.path
        )),
    }
}

/// Each shard K of 0..N exactly once (a shard with no seed, K >= --seeds, cannot be run and
/// is not asked for).
fn check_cover(shards: &[Shard]) -> Result<(), String> {
    let mut seen: BTreeMap<u64, &str> = BTreeMap::new();
    for s in shards {
        if let Some(other) = seen.insert(s.k, &s.path) {
            return Err(format!(
                "{}: shard {} is also {other}'s, so their seeds overlap (each would be counted twice)",
                s.path, s.summary.shard
            ));
        }
    }
    let first = &shards[0];
    let (n, seeds) = (first.n, first.summary.seeds_requested);
    if let Some(k) = (0..n.min(seeds)).find(|k| !seen.contains_key(k)) {
        let given: Vec<String> = seen.keys().map(|k| format!("{k}/{n}")).collect();
        return Err(format!(
            "seeds left out: no summary of shard {k}/{n} (seeds {k}, {}, ...) of --seeds {seeds}; given: {}",
            k + n,
            given.join(", ")
        ));
    }
    Ok(())
}
