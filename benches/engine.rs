//! Engine throughput on the standard workloads (issue 6, item 6), and the madsim peer's
//! figures beside ours when it is built (`shared/bench/madsim-baseline`).
//!
//! ```text
//! cargo bench --bench engine [-- [SEEDS] [REPEATS] [WORKLOAD...]]  # defaults: 2000, 3, all
//! LOCKSIM_PEER=/tmp/madsim-baseline/target/release/madsim-baseline cargo bench --bench engine
//! ```
//!
//! The workloads are in `benches/workloads/mod.rs`: the peer's two single-Redis workloads
//! (`gc-pause`: 2 clients, GC pause, 60 s; `no-fault`: 3 clients, 60 s), Redlock 5 servers x 3
//! clients x 60 s under swarm faults (`redlock-swarm`) and under a fixed multi-fault plan
//! (`redlock-faults`), Snowflake 4 generators x 10 s (`snowflake`). SEEDS is the seed count of
//! the single-Redis workloads, the peer's `seeds` argument; the others run fewer seeds (their
//! seeds cost more), so that every pass takes a comparable time.
//!
//! Per workload and recording level (`facts`: verdicts only, what exploration runs; `full`:
//! every message and the JSON trace, what `locksim run` runs, on a tenth of the seeds since
//! building the trace costs ~30x the simulation; single-Redis only): a warm-up pass over a tenth of
//! the seeds, then REPEATS timed passes over seeds `0..n` on one thread; the figures come from
//! the median pass (the minimum beside it), since a shared host skews single passes.
//! - seeds/s: how fast exploration covers a seed space, per core;
//! - events/s: engine speed whatever a seed's length, per core, counted as the peer counts
//!   (`Stats::events()` = messages sent + delivered + timers fired);
//! - events/seed: whether the two sides simulate comparable work;
//! - sim-s/wall-s: time compression, simulated seconds per wall second.
//!
//! Then jobs: the same seeds on 1 thread, and split over 2 threads (`std::thread::scope`, one
//! world per seed, seeds dealt alternately), passes alternating so both see the same noise;
//! speed-up = median 1-thread wall / median 2-thread wall (and the same of the minima, the
//! passes least disturbed by the host's other load). Then, with `LOCKSIM_PEER` set, the peer
//! interleaved with us on its two workloads: rounds (REPEATS, at least 5) of one facts pass of
//! ours then one run of the peer's (one repeat, the same seeds), the ratio of events/s per
//! round and their median — a load swing then hits both sides of a round, and not all of one
//! side, as it would if the peer ran after all of ours.
//!
//! Instruction counts, the steadier measure on a noisy host, come from valgrind on
//! `examples/bench_workload.rs` (see its header).

#[allow(dead_code)] // `examples/bench_workload.rs` shares the module and uses other parts.
mod workloads;

use std::process::Command;
use std::time::Instant;

use locksim::sim::Level;

use workloads::Workload;

/// Totals of one pass over the seeds; deterministic, so equal across passes and splits.
#[derive(Default, PartialEq, Eq, Debug, Clone, Copy)]
struct Totals {
    events: u64,
    sim_ns: u64,
}

impl std::ops::Add for Totals {
    type Output = Totals;
    fn add(self, o: Totals) -> Totals {
        Totals {
            events: self.events + o.events,
            sim_ns: self.sim_ns + o.sim_ns,
        }
    }
}

/// Runs the seeds `first, first + step, ...` below `seeds`.
fn pass(w: &Workload, seeds: u64, first: u64, step: u64, level: Level) -> Totals {
    (first..seeds)
        .step_by(step as usize)
        .fold(Totals::default(), |t, seed| {
            let r = w.run_seed(seed, level);
            t + Totals {
                events: r.stats.events(),
                sim_ns: r.sim_ns,
            }
        })
}

/// This thread's time on a CPU so far, in seconds (Linux's `/proc/thread-self/schedstat`;
/// 0 where that does not exist).
fn thread_cpu_s() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0.0, |ns| ns as f64 / 1e9)
}

/// [`pass`] on the calling thread, with the CPU time it took.
fn pass_cpu(w: &Workload, seeds: u64, first: u64, step: u64, level: Level) -> (Totals, f64) {
    let cpu = thread_cpu_s();
    let t = pass(w, seeds, first, step, level);
    (t, thread_cpu_s() - cpu)
}

/// Seeds `0..seeds` split over `jobs` threads, each with its own worlds; with the CPU time of
/// the busiest thread. One job runs on a spawned thread too, so that both sides of the
/// comparison run alike (the main thread allocates from glibc's main arena, spawned threads
/// from their own, and the two do not run at quite the same speed).
fn pass_jobs(w: &Workload, seeds: u64, jobs: u64, level: Level) -> (Totals, f64) {
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs)
            .map(|k| scope.spawn(move || pass_cpu(w, seeds, k, jobs, level)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a bench thread panicked"))
            .fold((Totals::default(), 0.0_f64), |(a, ca), (b, cb)| (a + b, ca.max(cb)))
    })
}

/// Times one pass; checks it did what every other pass did.
fn timed(expect: &mut Option<Totals>, f: impl FnOnce() -> Totals) -> f64 {
    let start = Instant::now();
    let t = f();
    let wall = start.elapsed().as_secs_f64();
    assert!(expect.is_none_or(|e| e == t), "not deterministic: {t:?} vs {expect:?}");
    *expect = Some(t);
    wall
}

/// The host's own 2-thread speed-up right now: a loop of pure arithmetic (no memory, no
/// allocation, nothing shared) for about `wall_s` on one thread, then split over two. On an
/// idle 2-core machine it is ~2x; whatever it falls short by, other load on the host took.
fn host_speed_up(wall_s: f64, passes: usize) -> (f64, f64) {
    fn spin(iterations: u64) -> u64 {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..iterations {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        std::hint::black_box(x)
    }
    let start = Instant::now();
    spin(10_000_000);
    let iterations = (10_000_000.0 * wall_s / start.elapsed().as_secs_f64()) as u64;
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..passes {
        let start = Instant::now();
        spin(iterations);
        one.push(start.elapsed().as_secs_f64());
        let start = Instant::now();
        std::thread::scope(|scope| {
            let halves: Vec<_> = (0..2).map(|_| scope.spawn(|| spin(iterations / 2))).collect();
            halves.into_iter().for_each(|h| {
                h.join().expect("spin thread");
            });
        });
        two.push(start.elapsed().as_secs_f64());
    }
    let ((one, one_min), (two, two_min)) = (median(one), median(two));
    (one / two, one_min / two_min)
}

fn median(mut walls: Vec<f64>) -> (f64, f64) {
    walls.sort_by(f64::total_cmp);
    (walls[walls.len() / 2], walls[0])
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::Facts => "facts",
        Level::Full => "full",
    }
}

/// The peer's summary line for `workload`: (seeds/s, events/s, sim-s/wall-s) at its median.
fn run_peer(peer: &str, workload: &str, seeds: u64, repeats: usize) -> Result<(f64, f64, f64), String> {
    let out = Command::new(peer)
        .args([workload, &seeds.to_string(), &repeats.to_string()])
        .output()
        .map_err(|e| format!("{peer}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("summary"))
        .ok_or_else(|| format!("{peer} {workload}: no summary line in {text:?}"))?;
    let field = |name: &str| -> Result<f64, String> {
        line.split_whitespace()
            .find_map(|tok| tok.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("no {name} in {line:?}"))
    };
    Ok((field("seeds/s=")?, field("events/s=")?, field("sim_s/wall_s=")?))
}

fn main() {
    // `cargo bench` appends `--bench`; numbers are SEEDS and REPEATS, words pick workloads.
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let nums: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let base_seeds = nums.first().copied().unwrap_or(2000).max(1);
    let repeats = nums.get(1).copied().unwrap_or(3).max(1) as usize;
    let names: Vec<&str> = args
        .iter()
        .filter(|a| a.parse::<u64>().is_err())
        .map(String::as_str)
        .collect();
    let workloads: Vec<Workload> = Workload::all()
        .into_iter()
        .filter(|w| names.is_empty() || names.contains(&w.spec.name))
        .collect();
    let seeds_of = |w: &Workload| (base_seeds * w.spec.seeds_per_1000 / 1000).max(1);

    println!("locksim engine bench: {base_seeds} single-Redis seeds, {repeats} repeats, median pass (min beside it)");
    println!(
        "{:<15} {:<5} {:>6} {:>8} {:>8} {:>9} {:>11} {:>11} {:>13}",
        "workload", "mode", "seeds", "wall_s", "min_s", "seeds/s", "events/s", "events/seed", "sim-s/wall-s"
    );
    for w in &workloads {
        let seeds = seeds_of(w);
        let single_redis = matches!(w.spec.name, "gc-pause" | "no-fault");
        let levels: &[Level] = if single_redis {
            &[Level::Facts, Level::Full]
        } else {
            &[Level::Facts]
        };
        for &level in levels {
            // A full recording costs ~30x a facts one (the JSON trace): a tenth of the seeds.
            let seeds = if level == Level::Full {
                seeds.div_ceil(10)
            } else {
                seeds
            };
            pass(w, seeds.div_ceil(10), 0, 1, level);
            let mut totals = None;
            let walls = (0..repeats)
                .map(|_| timed(&mut totals, || pass(w, seeds, 0, 1, level)))
                .collect();
            let (med, min) = median(walls);
            let t = totals.expect("repeats >= 1");
            let row = (seeds as f64 / med, t.events as f64 / med, t.sim_ns as f64 / 1e9 / med);
            println!(
                "{:<15} {:<5} {seeds:>6} {med:>8.3} {min:>8.3} {:>9.1} {:>11.0} {:>11.1} {:>13.0}",
                w.spec.name,
                level_name(level),
                row.0,
                row.1,
                t.events as f64 / seeds as f64,
                row.2,
            );
        }
    }

    println!();
    // Two threads on a two-core host share it with everything else running there, so a
    // single pair of passes says little: at least 5 of each, alternating; the speed-up of the
    // medians, of the minima (the passes least disturbed by other load), and of CPU time (the
    // 1-thread pass's over the busier thread's: what two idle cores would give, so below 2
    // only by what the threads cost each other — shared caches, the allocator, any lock);
    // then the same measure of a pure arithmetic loop, the best this host gives right now.
    let job_repeats = repeats.max(5);
    println!("jobs: the same seeds on 1 thread and split over 2 (facts), {job_repeats} passes each, alternating");
    println!(
        "{:<15} {:>6} {:>8} {:>8} {:>9} {:>10} {:>9} {:>10} {:>10} {:>14}",
        "workload",
        "seeds",
        "1 job s",
        "2 jobs s",
        "speed-up",
        "(of mins)",
        "(of CPU)",
        "host",
        "(of mins)",
        "2-job seeds/s"
    );
    for w in workloads.iter().filter(|w| w.spec.name != "redlock-faults") {
        let seeds = seeds_of(w);
        pass_jobs(w, seeds.div_ceil(10), 2, Level::Facts); // warm-up
        let mut totals = None;
        let (mut one, mut two, mut cpu_one, mut cpu_two) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..job_repeats {
            for (jobs, walls, cpus) in [(1, &mut one, &mut cpu_one), (2, &mut two, &mut cpu_two)] {
                let mut cpu = 0.0_f64;
                walls.push(timed(&mut totals, || {
                    let (t, c) = pass_jobs(w, seeds, jobs, Level::Facts);
                    cpu = c;
                    t
                }));
                cpus.push(cpu);
            }
        }
        let ((one, one_min), (two, two_min)) = (median(one), median(two));
        let ((cpu_one, _), (cpu_two, _)) = (median(cpu_one), median(cpu_two));
        let (host, host_min) = host_speed_up(one, job_repeats);
        println!(
            "{:<15} {seeds:>6} {one:>8.3} {two:>8.3} {:>8.2}x {:>9.2}x {:>8.2}x {host:>9.2}x {host_min:>9.2}x {:>14.1}",
            w.spec.name,
            one / two,
            one_min / two_min,
            cpu_one / cpu_two,
            seeds as f64 / two,
        );
    }

    let Ok(peer) = std::env::var("LOCKSIM_PEER") else {
        println!("\n(set LOCKSIM_PEER to the madsim-baseline binary to run the peer here and print the ratios)");
        return;
    };
    let single_redis = workloads
        .iter()
        .filter(|w| matches!(w.spec.name, "gc-pause" | "no-fault"));
    for w in single_redis {
        interleave_peer(&peer, w, seeds_of(w), repeats.max(5));
    }
}

/// Rounds of one facts pass of ours over `seeds` then one run of the peer's over the same
/// seeds; per round our events/s and seeds/s over the peer's, then the median ratios (with the
/// lowest and highest beside them).
fn interleave_peer(peer: &str, w: &Workload, seeds: u64, rounds: usize) {
    let name = w.spec.name;
    println!();
    println!("peer interleaved ({name}, {seeds} seeds): each round a locksim facts pass, then a madsim-baseline run");
    println!(
        "{:<15} {:>5} {:>13} {:>13} {:>14} {:>14}",
        "workload", "round", "ours events/s", "peer events/s", "events/s ratio", "seeds/s ratio"
    );
    pass(w, seeds.div_ceil(10), 0, 1, Level::Facts); // warm-up
    let mut totals = None;
    let (mut events_ratios, mut seeds_ratios) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let wall = timed(&mut totals, || pass(w, seeds, 0, 1, Level::Facts));
        let ours_events_s = totals.expect("timed sets it").events as f64 / wall;
        match run_peer(peer, name, seeds, 1) {
            Ok((p_seeds, p_events, _)) => {
                let (events_ratio, seeds_ratio) = (ours_events_s / p_events, seeds as f64 / wall / p_seeds);
                println!(
                    "{name:<15} {round:>5} {ours_events_s:>13.0} {p_events:>13.0} {events_ratio:>13.2}x {seeds_ratio:>13.2}x"
                );
                events_ratios.push(events_ratio);
                seeds_ratios.push(seeds_ratio);
            }
            Err(e) => println!("{name:<15} {round:>5} peer failed: {e}"),
        }
    }
    if events_ratios.is_empty() {
        return;
    }
    let spread = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    let ((events, e_lo, e_hi), (seeds_med, s_lo, s_hi)) = (spread(events_ratios), spread(seeds_ratios));
    println!(
        "{name:<15} {:>5} {:>13} {:>13} {events:>13.2}x {seeds_med:>13.2}x   (events/s ratio {e_lo:.2}-{e_hi:.2}, seeds/s ratio {s_lo:.2}-{s_hi:.2})",
        "median", "", ""
    );
}
