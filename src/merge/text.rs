//! The merged summary, printed as `locksim explore` prints the unsharded run's: the same JSON
//! document (shard `0/1`, `keep_going`, nothing shrunk), and text with the same lines, less
//! the rates (a merge runs nothing).

use serde_json::{Map, Value, json};

use super::Merged;
use crate::explore::summary::{by_kind_text, violation_line};

/// The JSON summary the unsharded `explore --keep-going --format json` prints.
pub fn merged_json(m: &Merged) -> Value {
    let t = &m.template;
    let violations: Map<String, Value> = m
        .violations
        .iter()
        .map(|(i, c)| {
            (
                i.id().to_string(),
                json!({"count": c.count, "first_seed": c.first_seed}),
            )
        })
        .collect();
    let by_kind: Map<String, Value> = m
        .by_kind
        .iter()
        .map(|(kind, k)| {
            let tally = json!({"plans": k.plans, "failing": k.failing, "first_failing_seed": k.first_failing_seed});
            (kind.clone(), tally)
        })
        .collect();
    let never: Vec<&str> = m.never_violated.iter().map(|i| i.id()).collect();
    json!({
        "scenario": t.scenario,
        "scenario_sha256": t.scenario_sha256,
        "locksim_version": t.locksim_version,
        "by_fault_kind": by_kind,
        "file": t.file,
        "fault_space": {"kinds": t.fault_space.kinds, "max_faults": t.fault_space.max_faults},
        "seeds_requested": t.seeds_requested,
        "shard": "0/1",
        "keep_going": true,
        "hunting": t.hunting,
        "seeds": m.seeds,
        "first_failing_seed": m.first_failing_seed,
        "violations": violations,
        "never_violated": never,
        "shrunk": null,
        "minimal": null,
    })
}

/// The summary for people, and how to shrink the first finding: explore stops at the first
/// failing seed, so `--seeds` one past it gets there without the others.
pub fn merged_text(m: &Merged) -> String {
    let t = &m.template;
    let mut out = format!(
        "merge {} ({}): {} seeds explored, the {} {} of --seeds {} together\n",
        t.scenario,
        t.file,
        m.seeds,
        m.shards,
        if m.shards == 1 { "shard" } else { "shards" },
        t.seeds_requested
    );
    out.push_str(&format!(
        "  fault space: {} (up to {} entries a plan)\n",
        t.fault_space.kinds.join(", "),
        t.fault_space.max_faults
    ));
    if let Some(hunt) = &t.hunting {
        out.push_str(&format!("  hunting: {hunt}\n"));
    }
    for (i, c) in &m.violations {
        out.push_str(&violation_line(i.id(), c.count, c.first_seed));
    }
    if m.violations.is_empty() {
        out.push_str("  no violation found\n");
    }
    if !m.never_violated.is_empty() {
        let never: Vec<&str> = m.never_violated.iter().map(|i| i.id()).collect();
        out.push_str(&format!("  never violated: {}\n", never.join(", ")));
    }
    let by_kind: Vec<(&str, _)> = m.by_kind.iter().map(|(k, tally)| (k.as_str(), *tally)).collect();
    out.push_str(&by_kind_text(&by_kind));
    if let Some(seed) = m.first_failing_seed {
        let hunt = t
            .hunting
            .as_ref()
            .map_or(String::new(), |h| format!(" --invariant {h}"));
        out.push_str(&format!(
            "  shrink seed {seed}: locksim explore {} --seeds {}{hunt} --out DIR\n",
            t.file,
            seed + 1
        ));
    }
    out
}
