//! What `locksim explore` prints when the seeds are done: the summary as text for people, or
//! as JSON for tools.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::counterexample::Written;
use super::runner::{Options, Summary, shard_len};
use crate::load::LoadedScenario;

/// The summary as JSON: `seeds`, `violations` and `shrunk` (the written scenario's path) as
/// DESIGN's issue fixed them, then what the seeds determine besides (no rates, no thread
/// count), so two runs of the same exploration print the same document.
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
        let seeds = if *count == 1 { "seed" } else { "seeds" };
        out.push_str(&format!(
            "  {:<18} VIOLATED in {count} {seeds}, first seed {first}\n",
            i.id()
        ));
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
