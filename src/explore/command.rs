//! `locksim explore`: run the seeds, print the summary, shrink the first finding and write it
//! as a scenario file (with its trace) that `locksim run` replays.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::plan::Plan;
use super::render::Overrides;
use super::runner::{Options, Progress, Summary, explore, shard_seeds};
use super::shrink::{Candidate, Finding, shrink};
use super::swarm::plan_for_seed;
use crate::load::{LoadedScenario, parse_scenario};
use crate::report::RunReport;

/// A written minimal counterexample.
pub struct Written {
    pub path: PathBuf,
    pub entries: usize,
    pub entries_before: usize,
    pub runs: u32,
}

/// Parses `K/N`.
pub fn parse_shard(text: &str) -> Result<(u64, u64), String> {
    let bad = || format!("--shard {text}: expected K/N with 0 <= K < N, e.g. 0/4");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

/// Runs the exploration with a progress display on stderr.
pub fn run_with_progress(loaded: &LoadedScenario, opts: &Options) -> (Summary, Duration) {
    let progress = Progress::default();
    let total = shard_seeds(opts).len() as u64;
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

/// Shrinks the first finding and writes it (and its trace) into `out`.
pub fn shrink_and_write(
    loaded: &LoadedScenario,
    summary: &Summary,
    out: &Path,
    budget: u32,
) -> Result<Option<Written>, String> {
    let Some(first) = &summary.first else { return Ok(None) };
    let invariant = first.violated[0];
    let names = locksim_sim::Names::new(
        loaded
            .scenario
            .protocol
            .topology()
            .into_iter()
            .map(|(n, _)| n)
            .collect(),
    );
    let finding = Finding {
        base: &loaded.scenario,
        source: &loaded.source,
        names: &names,
        seed: first.seed,
        invariant,
    };
    let start: Plan = plan_for_seed(&loaded.scenario, &loaded.space, first.seed);
    let entries_before = start.size();
    let shrunk = shrink(
        &finding,
        Candidate {
            plan: start,
            overrides: Overrides::default(),
        },
        budget,
    );
    let stem = format!(
        "{}-seed{}-{}",
        loaded.scenario.name,
        first.seed,
        invariant.id().replace('_', "-")
    );
    std::fs::create_dir_all(out).map_err(|e| format!("{}: cannot create the output folder: {e}", out.display()))?;
    let path = out.join(format!("{stem}.toml"));
    let header = format!(
        "Shrunk by `locksim explore` from {} (seed {}): {} violated.\n{} fault plan entries shrunk to {} in {} runs.\nReproduce: locksim run {}\n\nSource: locksim explore of {}",
        loaded.file,
        first.seed,
        invariant.id(),
        entries_before,
        shrunk.candidate.plan.size(),
        shrunk.runs,
        path.display(),
        loaded.file
    );
    let text = finding.text(&shrunk.candidate, &header, &stem);
    let scenario = parse_scenario(&path.display().to_string(), &text)
        .map_err(|e| format!("the shrunk scenario does not load: {e}"))?;
    let replay = LoadedScenario {
        space: loaded.space.clone(),
        scenario,
        file: path.display().to_string(),
        source: text.clone(),
    };
    let report = RunReport::run(&replay, None);
    let trace_path = out.join(format!("{stem}.trace.json"));
    crate::atomic_file::write(&path, text.as_bytes()).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    crate::atomic_file::write(&trace_path, crate::trace_file::trace_text(&report).as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", trace_path.display()))?;
    Ok(Some(Written {
        path,
        entries: shrunk.candidate.plan.size(),
        entries_before,
        runs: shrunk.runs,
    }))
}

pub fn summary_json(summary: &Summary, shrunk: Option<&Written>) -> Value {
    let violations: Map<String, Value> = summary
        .violations
        .iter()
        .map(|(i, (count, first))| (i.id().to_string(), json!({"count": count, "first_seed": first})))
        .collect();
    json!({
        "seeds": summary.explored,
        "violations": violations,
        "shrunk": shrunk.map(|w| w.path.display().to_string()),
    })
}

pub fn summary_text(
    loaded: &LoadedScenario,
    opts: &Options,
    summary: &Summary,
    took: Duration,
    shrunk: Option<&Written>,
) -> String {
    let mut out = String::new();
    let secs = took.as_secs_f64().max(1e-9);
    out.push_str(&format!(
        "explore {} ({}): {} seeds explored (shard {}/{}, {} jobs), {:.0} seeds/s, {:.0} simulated events/s\n",
        loaded.scenario.name,
        loaded.file,
        summary.explored,
        opts.shard.0,
        opts.shard.1,
        opts.jobs,
        summary.explored as f64 / secs,
        summary.events as f64 / secs,
    ));
    let space: Vec<&str> = loaded.space.kinds.keys().map(|k| k.name()).collect();
    out.push_str(&format!(
        "  fault space: {} (up to {} entries a plan)\n",
        space.join(", "),
        loaded.space.max_faults
    ));
    for (i, (count, first)) in &summary.violations {
        let seeds = if *count == 1 { "seed" } else { "seeds" };
        out.push_str(&format!(
            "  {:<18} VIOLATED in {count} {seeds}, first seed {first}\n",
            i.id()
        ));
    }
    let held: Vec<&str> = summary
        .judged
        .iter()
        .filter(|i| !summary.violations.contains_key(i))
        .map(|i| i.id())
        .collect();
    if summary.violations.is_empty() {
        out.push_str("  no violation found\n");
    } else if !opts.keep_going {
        out.push_str("  (stopped after the first failing seed; --keep-going explores them all)\n");
    }
    if !held.is_empty() {
        out.push_str(&format!("  never violated: {}\n", held.join(", ")));
    }
    if let Some(w) = shrunk {
        out.push_str(&format!(
            "shrunk: {} ({} plan {}, from {}, in {} runs)\n  reproduce: locksim run {}\n",
            w.path.display(),
            w.entries,
            if w.entries == 1 { "entry" } else { "entries" },
            w.entries_before,
            w.runs,
            w.path.display()
        ));
    } else if let Some(first) = &summary.first {
        out.push_str(&format!(
            "  give --out DIR to shrink seed {} to a minimal scenario file\n",
            first.seed
        ));
    }
    out
}

/// Writes to stdout, ignoring a closed pipe.
pub fn print(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush());
}
