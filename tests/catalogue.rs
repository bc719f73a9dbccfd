//! Every catalogue scenario meets its `[expect]` for every seed in 0..100, with every fault of
//! its plan fired: no lucky seeds.
//! Each file tells its story in comments, cites its source and carries expectations.

mod common;

use locksim::load::load_file;
use locksim::protocols::run;
use locksim::sim::Recording;

const SEEDS: u64 = 100;

#[test]
fn every_scenario_meets_its_expectations_for_seeds_0_to_100() {
    let mut failures = Vec::new();
    for path in common::catalogue() {
        let loaded = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let s = &loaded.scenario;
        for seed in 0..SEEDS {
            let outcome = run(s, seed, Recording::Facts);
            // A fault that never fired would leave the expectations judging a run without it.
            for u in &outcome.unfired_faults {
                failures.push(format!(
                    "{} seed {seed}: fault plan entry {} never fired (reproduce: locksim run {} --seed {seed})",
                    s.name,
                    u.fault,
                    path.display()
                ));
            }
            for &(invariant, expected) in &s.expect {
                let got = outcome
                    .verdicts
                    .iter()
                    .find(|v| v.invariant == invariant)
                    .map_or("missing", |v| v.status.word());
                if got != expected.word() {
                    failures.push(format!(
                        "{} seed {seed}: {invariant} expected {}, got {got} (reproduce: locksim run {} --seed {seed})",
                        s.name,
                        expected.word(),
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Exploration runs record only facts; its verdicts must be the ones a full recording gives.
#[test]
fn recording_level_does_not_change_verdicts() {
    for path in common::catalogue() {
        let s = load_file(&path).unwrap().scenario;
        for seed in [0, 7, 42] {
            let words = |level| -> Vec<&'static str> {
                run(&s, seed, level).verdicts.iter().map(|v| v.status.word()).collect()
            };
            assert_eq!(
                words(Recording::Full),
                words(Recording::Facts),
                "{} seed {seed}",
                s.name
            );
        }
    }
}

#[test]
fn every_scenario_tells_its_story_and_expects_something() {
    for path in common::catalogue() {
        let text = std::fs::read_to_string(&path).unwrap();
        let loaded = load_file(&path).unwrap();
        let name = path.display();
        assert!(text.starts_with('#'), "{name}: opens with a comment telling its story");
        let comment_lines = text.lines().filter(|l| l.trim_start().starts_with('#')).count();
        assert!(comment_lines >= 5, "{name}: tells its story in comments");
        assert!(
            text.lines().any(|l| l.starts_with("# Source: ")),
            "{name}: cites its source"
        );
        assert!(!loaded.scenario.description.is_empty(), "{name}: has a description");
        assert!(!loaded.scenario.expect.is_empty(), "{name}: carries [expect]");
        let stem = path.file_stem().unwrap().to_string_lossy();
        assert_eq!(loaded.scenario.name, stem, "{name}: `name` matches the file name");
    }
}
