//! Engine throughput on the two workloads of the madsim peer (`shared/bench/madsim-baseline`),
//! so the two can be compared figure for figure.
//!
//! `cargo bench --bench engine [-- SEEDS [REPEATS]]` (defaults: 1000 seeds, 3 repeats).
//!
//! - `gc-pause` = `scenarios/single-redis/kleppmann-gc-pause-fenced.toml` (2 clients, strict
//!   fencing, 60 s, client-0 paused 15 s after its first read);
//! - `no-fault` = `scenarios/single-redis/no-faults.toml` (3 clients, 60 s).
//!
//! Each (workload, level) pair runs seeds `0..SEEDS` through `locksim::protocols::run`, checkers
//! included, as exploration does. `Level::Facts` is what exploration uses; `Level::Full` records
//! every message and is what `locksim run` uses, so its cost is the price of a readable trace.
//! A warm-up pass (a tenth of the seeds) fills caches and the allocator first; then the median
//! wall time of REPEATS passes gives the figures, since one pass is skewed by a noisy host.
//!
//! Figures, per pass:
//! - seeds/s — how fast exploration covers a seed space;
//! - events/s — engine speed independent of the workload's length, counted as the peer counts
//!   (`Stats::events()` = messages sent + delivered + timers fired);
//! - events/seed — shows whether both sides simulate the same amount of work;
//! - sim-s/wall-s — time compression: simulated seconds per wall second.

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
        t.events += o.stats.events();
        t.sim_ns += o.end_ns;
        // Keeps the checkers' work observable, and catches a workload that stops doing what it says.
        for (inv, want) in &s.expect {
            let v = o
                .verdicts
                .iter()
                .find(|v| v.invariant == *inv)
                .expect("a verdict per invariant");
            assert_eq!(v.status.word(), want.word(), "{} seed {seed}: {v:?}", s.name);
        }
    }
    t
}

fn main() {
    // `cargo bench` appends `--bench`; numbers are ours.
    let nums: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let seeds = nums.first().copied().unwrap_or(1000).max(1);
    let repeats = nums.get(1).copied().unwrap_or(3).max(1) as usize;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));

    println!(
        "seeds={seeds} repeats={repeats} (median pass shown; warm-up {} seeds)",
        seeds.div_ceil(10)
    );
    println!(
        "{:<9} {:<6} {:>8} {:>12} {:>10} {:>10} {:>12} {:>13}",
        "workload", "level", "wall_s", "wall_min_s", "seeds/s", "events/s", "events/seed", "sim-s/wall-s"
    );
    for (name, file) in WORKLOADS {
        let s = locksim::load::load_file(&root.join(file))
            .expect("catalogue scenario loads")
            .scenario;
        for level in [Level::Facts, Level::Full] {
            pass(&s, seeds.div_ceil(10), level);
            let mut walls = Vec::with_capacity(repeats);
            let mut totals = None;
            for _ in 0..repeats {
                let start = Instant::now();
                let t = pass(&s, seeds, level);
                walls.push(start.elapsed().as_secs_f64());
                assert!(totals.as_ref().is_none_or(|p| *p == t), "{name}: not deterministic");
                totals = Some(t);
            }
            let t = totals.expect("repeats >= 1");
            walls.sort_by(f64::total_cmp);
            let (min, med) = (walls[0], walls[repeats / 2]);
            println!(
                "{name:<9} {:<6} {med:>8.3} {min:>12.3} {:>10.1} {:>10.0} {:>12.1} {:>13.0}",
                format!("{level:?}"),
                seeds as f64 / med,
                t.events as f64 / med,
                t.events as f64 / seeds as f64,
                t.sim_ns as f64 / 1e9 / med,
            );
        }
    }
}
