//! Running an exploration with a progress display on stderr: a line redrawn in place on a
//! terminal, a line per tenth of the seeds otherwise (so CI logs stay short).

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::runner::{Options, Progress, Summary, explore, shard_len};
use crate::load::LoadedScenario;

/// Runs the exploration with a progress display on stderr.
///
/// The error is the system's refusal to start the exploring thread (under memory or process
/// limits): the command line reports it as bad input rather than panicking.
pub fn run_with_progress(loaded: &LoadedScenario, opts: &Options) -> Result<(Summary, Duration), String> {
    let progress = Progress::default();
    let total = shard_len(opts);
    let started = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let summary = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .spawn_scoped(scope, || explore(&loaded.scenario, &loaded.space, opts, &progress))
            .map_err(|e| format!("cannot start the exploring thread: {e}"))?;
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
        Ok::<_, String>(worker.join().expect("the explorer does not panic"))
    })?;
    Ok((summary, started.elapsed()))
}
