//! How hard each known bug is to find: for every bug of `tests/bug_catalogue/`, the seeds
//! exploration needs before the first plan that breaks the bug's configuration and not its
//! fixed twin, the wall time that
//! took, and the size of the minimal plan shrinking reaches — with a larger budget than the
//! test's. Every correct configuration is explored over the same number of seeds as well, and
//! its promised invariants reported as held or not. Under each bug, its minimal plan.
//!
//! `cargo bench --bench bug_catalogue [-- HUNT_SEEDS [SHRINK_RUNS]]` (defaults: 10000 seeds,
//! 1000 shrinking runs; about two minutes on two cores, most of it the correct Snowflake).
//!
//! The seed counts are the figures that matter (they do not depend on the machine): a bug that
//! needs 1600 seeds with the default fault space is one a CI budget of 100 will never see.

use std::path::Path;
use std::time::Instant;

use locksim::report::bugs::{Claim, hunt, load, survive};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-')) // cargo passes `--bench`
        .map(|a| {
            a.parse()
                .unwrap_or_else(|_| panic!("usage: bug_catalogue [HUNT_SEEDS [SHRINK_RUNS]], got {a}"))
        })
        .collect();
    let seeds = args.first().copied().unwrap_or(10_000);
    let shrink_runs = args
        .get(1)
        .map_or(1000, |&n| u32::try_from(n).expect("SHRINK_RUNS fits in u32"));
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bug_catalogue");
    let entries = load(&dir).unwrap_or_else(|e| panic!("{e}"));

    println!(
        "bug catalogue: {} entries, {seeds} seeds each, {shrink_runs} shrinking runs, {jobs} jobs",
        entries.len()
    );
    println!();
    println!(
        "{:<30} {:<20} {:>12} {:>10} {:>12}",
        "bug", "invariant", "first seed", "wall ms", "minimal plan"
    );
    for entry in &entries {
        let Claim::Breaks { invariant, .. } = entry.claim else {
            continue;
        };
        let start = Instant::now();
        let h = hunt(entry, &entry.loaded.space, seeds, shrink_runs);
        let wall_ms = start.elapsed().as_millis();
        let first = h.found_at.map_or_else(|| format!("> {seeds}"), |s| s.to_string());
        let minimal = h
            .shrunk
            .map_or_else(|| "-".to_string(), |(after, before)| format!("{after} (from {before})"));
        println!(
            "{:<30} {:<20} {first:>12} {wall_ms:>10} {minimal:>12}",
            entry.name(),
            invariant.id()
        );
        for entry in h.minimal.as_deref().map(plan_lines).unwrap_or_default() {
            println!("    {entry}");
        }
    }

    println!();
    println!(
        "{:<30} {:>10} {:>10}  promised invariants",
        "correct configuration", "seeds", "wall ms"
    );
    for entry in &entries {
        let Claim::Keeps(promised) = &entry.claim else { continue };
        let start = Instant::now();
        let broken = survive(entry, promised, &entry.loaded.space, seeds, jobs);
        let wall_ms = start.elapsed().as_millis();
        let verdict = if broken.is_empty() {
            "all held".to_string()
        } else {
            let list: Vec<String> = broken.iter().map(|(i, s)| format!("{} (seed {s})", i.id())).collect();
            format!("VIOLATED: {}", list.join(", "))
        };
        println!("{:<30} {seeds:>10} {wall_ms:>10}  {verdict}", entry.name());
    }
}

/// The minimal scenario's `[[fault]]` and `[[clock]]` tables, one line each.
fn plan_lines(scenario: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in scenario.lines() {
        if line.starts_with('[') {
            out.extend(current.take());
            if line == "[[fault]]" || line == "[[clock]]" {
                current = Some(line.trim_matches(['[', ']']).to_string());
            }
        } else if let Some(entry) = current.as_mut().filter(|_| !line.trim().is_empty()) {
            entry.push_str(&format!(" {}", line.replace(" = ", "=")));
        }
    }
    out.extend(current);
    out
}
