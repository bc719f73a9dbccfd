//! Running an exploration with a progress display on stderr: a line redrawn in place on a
//! terminal, a line per tenth of the seeds otherwise (so CI logs stay short).

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::runner::{Options, Progress, Summary, explore, shard_len};
use crate::load::LoadedScenario;

/// Runs the exploration with a progress display on stderr.
pub fn run_with_progress(loaded: &LoadedScenario, opts: &Options) -> (Summary, Duration) {
    let progress = Progress::default();
    let total = shard_len(opts);
    let started = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let summary = std::thread::scope(|scope| {
        let worker = scope.spawn(|| explore(&loaded.scenario, &loaded.space, opts, &progress));
        let mut last_line = 0;
        while !worker.is_finished() {
            std::thread::sleep(Duration::from_millis(200));
            let done = progress.done.load(Ordering::Relaxed);
            let failing = progress.failing.load(Ordering::Relaxed);
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let line = format!("explore: {done}/{total} seeds, {rate:.0} seeds/s, {failing} failing");
            if terminal {
                eprint!("\r{line}   ");
            } else if done >= last_line + total.div_ceil(10).max(1) {
                eprintln!("{line}");
                last_line = done;
            }
        }
        if terminal {
            eprintln!();
        }
        worker.join().expect("the explorer does not panic")
    });
    (summary, started.elapsed())
}
