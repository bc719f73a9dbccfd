//! Every known-wrong knob of every model is found by exploration within the CI budget — a seed
//! whose plan breaks the bug's configuration and not its fixed twin (`[explore.fix]`) — and
//! shrinks to a plan of at most 3 entries that still does both; the minimal scenario replays to
//! the violation. Every correct configuration survives the CI budget on the invariants it
//! promises. `cargo bench --bench bug_catalogue` runs a larger budget and prints the seeds to
//! the first finding and the minimal plan of every bug.
//!
//! CI budget: 3000 seeds per bug hunt (it stops at the first finding; the rarest, a Redlock
//! server restarting empty at the wrong moment, needs about 1900), 1000 seeds per correct
//! configuration, 300 shrinking runs.

mod common;

use locksim::protocols::run;
use locksim::report::bugs::{Claim, hunt, load, survive};
use locksim::sim::{Invariant, Recording, Status};

const HUNT_SEEDS: u64 = 3000;
const SURVIVE_SEEDS: u64 = 1000;
const SHRINK_RUNS: u32 = 300;
const MAX_SHRUNK_ENTRIES: usize = 3;

fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether the scenario text, run at its own seed, violates `invariant`.
fn replays(text: &str, invariant: Invariant) -> bool {
    let scenario = locksim::load::parse_scenario("(minimal)", text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run(&scenario, scenario.seed, Recording::Facts)
        .verdicts
        .iter()
        .any(|v| v.invariant == invariant && matches!(v.status, Status::Violated(_)))
}

#[test]
fn every_bug_is_found_and_shrinks_and_every_correct_configuration_survives() {
    let entries = load(&common::root().join("tests/bug_catalogue")).unwrap_or_else(|e| panic!("{e}"));
    let bugs = entries
        .iter()
        .filter(|e| matches!(e.claim, Claim::Breaks { .. }))
        .count();
    assert!(bugs >= 15, "the catalogue covers the known-wrong knobs ({bugs} bugs)");
    let mut problems = Vec::new();
    for entry in &entries {
        let space = &entry.loaded.space;
        match &entry.claim {
            Claim::Breaks { invariant, .. } => {
                let h = hunt(entry, space, HUNT_SEEDS, SHRINK_RUNS);
                if let Some(text) = &h.minimal
                    && !replays(text, *invariant)
                {
                    problems.push(format!(
                        "{}: the minimal scenario does not replay:\n{text}",
                        entry.name()
                    ));
                }
                match (h.found_at, h.shrunk) {
                    (None, _) => {
                        problems.push(format!("{}: {invariant} not found in {HUNT_SEEDS} seeds", entry.name()))
                    }
                    (Some(seed), Some((size, before))) if size > MAX_SHRUNK_ENTRIES => problems.push(format!(
                        "{}: found at seed {seed}, but shrank only from {before} to {size} entries",
                        entry.name()
                    )),
                    _ => {}
                }
            }
            Claim::Keeps(promised) => {
                for (invariant, seed) in survive(entry, promised, space, SURVIVE_SEEDS, jobs()) {
                    problems.push(format!(
                        "{}: promised {invariant}, violated at seed {seed} (locksim explore {} --seeds {} --out DIR)",
                        entry.name(),
                        entry.loaded.file,
                        seed + 1
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
