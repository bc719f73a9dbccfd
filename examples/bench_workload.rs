//! One bench workload, untimed, for instruction counting under valgrind: the same runs as
//! `benches/engine.rs` without warm-up, repeats or timing, so `cachegrind`/`callgrind` totals
//! divide cleanly by the events printed here.
//!
//! ```text
//! cargo build --release --example bench_workload
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/bench_workload gc-pause 200 facts
//! ```
//!
//! Args: `<gc-pause|no-fault> <seeds> [facts|full]`. Seeds run `0..seeds`; with 0 seeds it only
//! loads the scenario, which measures the fixed start-up cost. The mode is the recording level
//! `locksim::protocols::run` gets.

use std::path::Path;

use locksim::protocols::run;
use locksim::sim::{Level, Stats};

fn main() {
    let usage = "usage: bench_workload <gc-pause|no-fault> <seeds> [facts|full]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = match args.first().map(String::as_str) {
        Some("gc-pause") => "scenarios/single-redis/kleppmann-gc-pause-fenced.toml",
        Some("no-fault") => "scenarios/single-redis/no-faults.toml",
        _ => panic!("{usage}"),
    };
    let seeds: u64 = args.get(1).and_then(|s| s.parse().ok()).expect(usage);
    let mode = args.get(2).map_or("facts", String::as_str);
    let level = match mode {
        "facts" => Level::Facts,
        "full" => Level::Full,
        _ => panic!("{usage}"),
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let s = locksim::load::load_file(&path)
        .expect("catalogue scenario loads")
        .scenario;

    let (mut total, mut sim_ns) = (Stats::default(), 0);
    for seed in 0..seeds {
        let o = run(&s, seed, level);
        let (stats, end_ns) = (o.stats, o.end_ns);
        std::hint::black_box(o.verdicts);
        total.sent += stats.sent;
        total.delivered += stats.delivered;
        total.timers += stats.timers;
        sim_ns += end_ns;
    }
    println!(
        "{} seeds={seeds} mode={mode} events={} (sent={} delivered={} timers={}) events/seed={:.1} sim_s={:.0}",
        args[0],
        total.events(),
        total.sent,
        total.delivered,
        total.timers,
        total.events() as f64 / seeds.max(1) as f64,
        sim_ns as f64 / 1e9,
    );
}
