//! Engine throughput on the two workloads of the madsim peer (`shared/bench/madsim-baseline`),
//! so the two can be compared figure for figure.
//!
//! `cargo bench --bench engine [-- SEEDS [REPEATS]]` (defaults: 150 seeds, 3 repeats, ~10 s).
//!
//! - `gc-pause` = `scenarios/single-redis/kleppmann-gc-pause-fenced.toml` (2 clients, strict
//!   fencing, 60 s, client-0 paused 15 s after its first read);
//! - `no-fault` = `scenarios/single-redis/no-faults.toml` (3 clients, 60 s).
//!
//! Each workload runs seeds `0..SEEDS` in two modes:
//! - `facts`: `locksim::protocols::run` at `Level::Facts` (verdicts only), what exploration runs;
//! - `full`: the same at `Level::Full`, which records every message and builds the JSON trace,
//!   what `locksim run` runs.
//!
//! A warm-up pass (a tenth of the seeds) fills caches and the allocator; the figures come from
//! the median wall time of REPEATS passes, since one pass is skewed by a noisy host. Per mode:
//! - seeds/s: how fast exploration covers a seed space;
//! - events/s: engine speed whatever the workload's length, counted as the peer counts
//!   (`Stats::events()` = messages sent + delivered + timers fired);
//! - events/seed: whether both sides simulate the same amount of work;
//! - sim-s/wall-s: time compression, simulated seconds per wall second.

use std::path::Path;
use std::time::Instant;

use locksim::protocols::{Scenario, run};
use locksim::sim::Level;

const WORKLOADS: [(&str, &str); 2] = [
    ("gc-pause", "scenarios/single-redis/kleppmann-gc-pause-fenced.toml"),
    ("no-fault", "scenarios/single-redis/no-faults.toml"),
];

/// Totals of one pass over the seeds; deterministic, so equal across passes.
#[derive(Default, PartialEq, Debug)]
struct Totals {
    events: u64,
    sim_ns: u64,
}

fn pass(s: &Scenario, seeds: u64, level: Level) -> Totals {
    let mut t = Totals::default();
    for seed in 0..seeds {
        let o = run(s, seed, level);
        let verdicts = o.verdicts;
        t.events += o.stats.events();
        t.sim_ns += o.end_ns;
        // Uses the verdicts, and catches a workload that stops doing what the scenario says.
        for (inv, want) in &s.expect {
            let v = verdicts
                .iter()
                .find(|v| v.invariant == *inv)
                .expect("a verdict per invariant");
            assert_eq!(v.status.word(), want.word(), "{} seed {seed}: {v:?}", s.name);
        }
    }
    t
}

fn main() {
    // `cargo bench` appends `--bench`; the numbers are ours.
    let nums: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let seeds = nums.first().copied().unwrap_or(150).max(1);
    let repeats = nums.get(1).copied().unwrap_or(3).max(1) as usize;
    let warm_up = seeds.div_ceil(10);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));

    println!("seeds={seeds} repeats={repeats} warm-up={warm_up} seeds; wall = median pass (min beside it)");
    println!(
        "{:<9} {:<7} {:>8} {:>8} {:>9} {:>10} {:>12} {:>13}",
        "workload", "mode", "wall_s", "min_s", "seeds/s", "events/s", "events/seed", "sim-s/wall-s"
    );
    for (name, file) in WORKLOADS {
        let s = locksim::load::load_file(&root.join(file))
            .expect("catalogue scenario loads")
            .scenario;
        for mode in [Level::Facts, Level::Full] {
            pass(&s, warm_up, mode);
            let mut walls = Vec::with_capacity(repeats);
            let mut totals = None;
            for _ in 0..repeats {
                let start = Instant::now();
                let t = pass(&s, seeds, mode);
                walls.push(start.elapsed().as_secs_f64());
                assert!(totals.as_ref().is_none_or(|p| *p == t), "{name}: not deterministic");
                totals = Some(t);
            }
            let t = totals.expect("repeats >= 1");
            walls.sort_by(f64::total_cmp);
            let (min, med) = (walls[0], walls[repeats / 2]);
            println!(
                "{name:<9} {:<7} {med:>8.3} {min:>8.3} {:>9.1} {:>10.0} {:>12.1} {:>13.0}",
                format!("{mode:?}").to_lowercase(),
                seeds as f64 / med,
                t.events as f64 / med,
                t.events as f64 / seeds as f64,
                t.sim_ns as f64 / 1e9 / med,
            );
        }
    }
}
