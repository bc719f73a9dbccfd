//! What `locksim explore` prints when the seeds are done: the summary as text for people, or
//! as JSON for tools.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::counterexample::Written;
use super::runner::{KindTally, Options, Summary, shard_len};
use crate::fault_space::FaultKind;
use crate::load::LoadedScenario;

/// The summary as JSON: `seeds`, `violations` and `shrunk` (the written scenario's path) as
/// DESIGN's issue fixed them, then what the seeds determine besides (no rates, no thread
/// count), so two runs of the same exploration print the same document. `scenario_sha256` and
/// `locksim_version` say which exploration it was, so that `locksim merge` can refuse shards
/// of different ones; `by_fault_kind` is [`Summary::by_kind`].
pub fn summary_json(loaded: &LoadedScenario, opts: &Options, summary: &Summary, shrunk: Option<&Written>) -> Value {
    let violations: Map<String, Value> = summary
        .violations
        .iter()
        .map(|(i, (count, first))| (i.id().to_string(), json!({"count": count, "first_seed": first})))
        .collect();
    let never: Vec<&str> = summary
        .judged
        .iter()
        .filter(|i| summary.violations_of(**i).is_none())
        .map(|i| i.id())
        .collect();
    let space: Vec<&str> = loaded.space.kinds.keys().map(|k| k.name()).collect();
    json!({
        "scenario": loaded.scenario.name,
        "scenario_sha256": scenario_sha256(&loaded.source),
        "locksim_version": env!("CARGO_PKG_VERSION"),
        "by_fault_kind": by_kind_json(&summary.by_kind),
        "file": loaded.file,
        "fault_space": {"kinds": space, "max_faults": loaded.space.max_faults},
        "seeds_requested": opts.seeds,
        "shard": format!("{}/{}", opts.shard.0, opts.shard.1),
        "keep_going": opts.keep_going,
        "hunting": opts.target.map(|t| t.id()),
        "seeds": summary.explored,
        "first_failing_seed": summary.first.as_ref().map(|f| f.seed),
        "violations": violations,
        "never_violated": never,
        "shrunk": shrunk.map(|w| w.path.display().to_string()),
        "minimal": shrunk.map(|w| json!({
            "trace": w.trace.display().to_string(),
            "seed": w.seed,
            "invariant": w.invariant.id(),
            "entries": w.entries,
            "entries_before": w.entries_before,
            "runs": w.runs,
            "earlier": w.earlier.as_ref().map(|p| p.display().to_string()),
        })),
    })
}

/// The identity of a scenario file: the SHA-256 of its text (as the engine hashes a trace
/// line: the text and a line break). Its `[explore]` is part of the text, so one hash covers
/// the scenario and its fault space.
pub fn scenario_sha256(source: &str) -> String {
    locksim_sim::trace::sha256_hex(std::iter::once(source))
}

/// `{kind: {"plans", "failing", "first_failing_seed"}}`.
pub fn by_kind_json(by_kind: &[(FaultKind, KindTally)]) -> Value {
    let kinds: Map<String, Value> = by_kind
        .iter()
        .map(|(kind, t)| {
            let tally = json!({"plans": t.plans, "failing": t.failing, "first_failing_seed": t.first_failing_seed});
            (kind.name().to_string(), tally)
        })
        .collect();
    Value::Object(kinds)
}

/// One invariant violated, for people: in how many seeds, and the first.
pub fn violation_line(id: &str, count: u64, first: u64) -> String {
    let seeds = if count == 1 { "seed" } else { "seeds" };
    format!("  {id:<18} VIOLATED in {count} {seeds}, first seed {first}\n")
}

/// The breakdown by fault kind for people: one line per kind of the space.
pub fn by_kind_text(by_kind: &[(&str, KindTally)]) -> String {
    let mut out = String::from(
        "  by fault kind (seeds whose plan drew it):
",
    );
    for (kind, t) in by_kind {
        let first = t
            .first_failing_seed
            .map_or(String::new(), |s| format!(", first seed {s}"));
        out.push_str(&format!(
            "    {kind:<11} {:>6} {}, {} failing{first}\n",
            t.plans,
            if t.plans == 1 { "plan" } else { "plans" },
            t.failing
        ));
    }
    out
}

/// The summary for people: rates, the fault space, each invariant violated (with its first
/// seed), what never was, and the written counterexample or how to get one.
pub fn summary_text(
    loaded: &LoadedScenario,
    opts: &Options,
    summary: &Summary,
    took: Duration,
    shrunk: Option<&Written>,
) -> String {
    let mut out = String::new();
    let secs = took.as_secs_f64().max(1e-9);
    out.push_str(&format!(
        "explore {} ({}): {} seeds explored (shard {}/{}, {} jobs), {:.0} seeds/s, {:.0} simulated events/s\n",
        loaded.scenario.name,
        loaded.file,
        summary.explored,
        opts.shard.0,
        opts.shard.1,
        opts.jobs,
        summary.explored as f64 / secs,
        summary.events as f64 / secs,
    ));
    let space: Vec<&str> = loaded.space.kinds.keys().map(|k| k.name()).collect();
    out.push_str(&format!(
        "  fault space: {} (up to {} entries a plan)\n",
        space.join(", "),
        loaded.space.max_faults
    ));
    for (i, (count, first)) in &summary.violations {
        out.push_str(&violation_line(i.id(), *count, *first));
    }
    let held: Vec<&str> = summary
        .judged
        .iter()
        .filter(|i| summary.violations_of(**i).is_none())
        .map(|i| i.id())
        .collect();
    if summary.violations.is_empty() {
        out.push_str("  no violation found\n");
    }
    if summary.explored < shard_len(opts) {
        out.push_str("  (stopped after the first failing seed; --keep-going explores them all)\n");
    }
    if !held.is_empty() {
        out.push_str(&format!("  never violated: {}\n", held.join(", ")));
    }
    let by_kind: Vec<(&str, KindTally)> = summary.by_kind.iter().map(|(k, t)| (k.name(), *t)).collect();
    out.push_str(&by_kind_text(&by_kind));
    if let Some(w) = shrunk {
        out.push_str(&format!(
            "shrunk: {} ({} plan {}, from {}, in {} runs)\n  reproduce: locksim run {}\n",
            w.path.display(),
            w.entries,
            if w.entries == 1 { "entry" } else { "entries" },
            w.entries_before,
            w.runs,
            w.path.display()
        ));
        if let Some(earlier) = &w.earlier {
            out.push_str(&format!(
                "  (a new name: the earlier finding {} is left as it is)\n",
                earlier.display()
            ));
        }
    } else if let Some(first) = &summary.first {
        out.push_str(&format!(
            "  give --out DIR to shrink seed {} to a minimal scenario file\n",
            first.seed
        ));
    }
    out
}
