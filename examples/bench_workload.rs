//! One bench workload, untimed, for instruction counting under valgrind: the same runs as
//! `benches/engine.rs` without warm-up, repeats or timing, so `cachegrind`/`callgrind` totals
//! divide cleanly by the events printed here.
//!
//! ```text
//! cargo build --release --example bench_workload
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/bench_workload gc-pause 201 facts
//! valgrind --tool=cachegrind --cache-sim=no target/release/examples/bench_workload gc-pause 1 facts
//! ```
//!
//! Instructions per event = (I refs of N seeds - I refs of 1 seed) / (events of N - events of
//! 1): the difference removes start-up (loading the scenario, the dynamic loader, ...).
//!
//! Args: `<workload> <seeds> [facts|full|untraced|trace|lines]`, the workload one of
//! `gc-pause`, `no-fault`, `redlock-swarm`, `redlock-faults`, `snowflake` (see
//! `benches/workloads/mod.rs`). Seeds run `0..seeds`; with 0 seeds it only loads the scenario.
//! The mode is how
//! `locksim::protocols::run` records: `facts`, what exploration runs; `full`, every event with
//! its trace line written and hashed (`locksim run --format json`); `untraced`, every event and
//! no line (`locksim run --timeline none`); `trace`, the lines hashed and written through the
//! trace file writer to `io::sink()` (`locksim run --trace FILE`, without the disk); `lines`,
//! the same without the hash. Valgrind does not run the CPU's SHA instructions, so under it
//! `sha2` hashes in software: `trace` minus `lines` is that software hash's cost.

// Shared with the bench, which uses the parts this example does not.
#[allow(dead_code)]
#[path = "../benches/workloads/mod.rs"]
mod workloads;

use locksim::sim::trace::TraceHash;
use locksim::sim::{Level, Recording, Stats};
use locksim::trace_write::TraceWriter;

use workloads::Workload;

fn main() {
    let usage = "usage: bench_workload <gc-pause|no-fault|redlock-swarm|redlock-faults|snowflake> <seeds> [facts|full|untraced|trace|lines]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let workload = Workload::load(args.first().map_or("", String::as_str)).unwrap_or_else(|e| panic!("{e}\n{usage}"));
    let seeds: u64 = args.get(1).and_then(|s| s.parse().ok()).expect(usage);
    let mode = args.get(2).map_or("facts", String::as_str);
    if !["facts", "full", "untraced", "trace", "lines"].contains(&mode) {
        panic!("{usage}");
    }

    let (mut total, mut sim_ns) = (Stats::default(), 0);
    for seed in 0..seeds {
        let r = match mode {
            "facts" => workload.run_seed(seed, Level::Facts),
            "full" => workload.run_seed(seed, Level::Full),
            "untraced" => workload.run_recorded(seed, Recording::Full),
            _ => {
                let file = TraceWriter::begin_with(std::io::sink(), workload.spec.name, "", seed).expect("a sink");
                let hash = (mode == "trace").then(TraceHash::default);
                let mut sinks = (hash, file);
                let r = workload.run_recorded(seed, Recording::Traced(&mut sinks));
                std::hint::black_box(sinks.0.map(TraceHash::hex));
                sinks.1.finish(&serde_json::Value::Null).expect("a sink");
                r
            }
        };
        total.sent += r.stats.sent;
        total.delivered += r.stats.delivered;
        total.timers += r.stats.timers;
        sim_ns += r.sim_ns;
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
