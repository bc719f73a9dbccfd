//! One shard's summary as `locksim explore --format json` wrote it: read back with the fields
//! `merge` needs, every one of them required, so a file from elsewhere (or from a locksim
//! before the summary said which exploration it was) is refused by name, not half-read.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::explore::runner::KindTally;

/// An invariant's count and first seed (`violations.<id>`).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Count {
    pub count: u64,
    pub first_seed: u64,
}

/// `fault_space`: the kinds, in the order explore drew them, and the entries a plan may add.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Space {
    pub kinds: Vec<String>,
    pub max_faults: u64,
}

/// The fields of one summary that merging reads.
#[derive(Clone, Debug, Deserialize)]
pub struct ShardSummary {
    pub scenario: String,
    pub scenario_sha256: String,
    pub locksim_version: String,
    pub file: String,
    pub fault_space: Space,
    pub seeds_requested: u64,
    pub shard: String,
    pub keep_going: bool,
    pub hunting: Option<String>,
    pub seeds: u64,
    pub first_failing_seed: Option<u64>,
    pub violations: BTreeMap<String, Count>,
    pub never_violated: Vec<String>,
    pub by_fault_kind: BTreeMap<String, KindTally>,
}

/// A summary with the path it was read from, and its shard as numbers.
#[derive(Clone, Debug)]
pub struct Shard {
    pub path: String,
    pub summary: ShardSummary,
    /// `K/N`.
    pub k: u64,
    pub n: u64,
}

/// Reads and parses the summary at `path`; the error names the file and what is wrong.
pub fn read(path: &Path) -> Result<Shard, String> {
    let name = path.display().to_string();
    let text = crate::input_file::read_text(path).map_err(|e| format!("{name}: cannot read the summary: {e}"))?;
    let summary: ShardSummary = serde_json::from_str(&text).map_err(|e| {
        format!("{name}: not a summary written by `locksim explore --format json` of this version: {e}")
    })?;
    let (k, n) = parse_shard(&summary.shard)
        .ok_or_else(|| format!("{name}: `shard` is \"{}\", not K/N with 0 <= K < N", summary.shard))?;
    Ok(Shard {
        path: name,
        summary,
        k,
        n,
    })
}

fn parse_shard(text: &str) -> Option<(u64, u64)> {
    let (k, n) = text.split_once('/')?;
    let (k, n): (u64, u64) = (k.parse().ok()?, n.parse().ok()?);
    (k < n).then_some((k, n))
}
