//! `locksim explore`: run the seeds, print the summary, shrink the first finding and write it
//! as a scenario file (with its trace) that `locksim run` replays.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use locksim_protocols::run;
use locksim_sim::{Level, NodeId, Status};
use serde_json::{Map, Value, json};

use super::render::Overrides;
use super::runner::{Options, Progress, Summary, explore, shard_len};
use super::shrink::{Candidate, Finding, shrink};
use super::swarm::plan_for_seed;
use crate::load::{LoadedScenario, parse_scenario};
use crate::report::RunReport;

/// A written minimal counterexample.
pub struct Written {
    pub path: PathBuf,
    pub trace: PathBuf,
    pub invariant: locksim_sim::Invariant,
    pub seed: u64,
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

/// Checks `text`, the rendering of `candidate` on the finding's base, before anything is
/// shrunk or written: it loads, it has the base's configuration (protocol, resource, network,
/// duration) when the candidate overrides nothing, its faults and clocks are the plan's, and
/// with the finding's seed it violates the finding's invariant. Returns the loaded scenario.
pub fn check_rendered(
    finding: &Finding<'_>,
    candidate: &Candidate,
    text: &str,
    what: &str,
) -> Result<locksim_protocols::Scenario, String> {
    let (base, seed, invariant) = (finding.base, finding.seed, finding.invariant);
    let bug = "this is a bug in locksim explore; nothing was written";
    let scenario = parse_scenario(what, text)
        .map_err(|e| format!("the counterexample of seed {seed} does not load ({e}); {bug}"))?;
    let expected = candidate.plan.apply(base);
    let mut differs: Vec<&str> = Vec::new();
    if candidate.overrides == Overrides::default() {
        let same = [
            ("protocol", scenario.protocol == base.protocol),
            ("resource", scenario.resource == base.resource),
            ("network", scenario.network == base.network),
            ("duration", scenario.duration_ns == base.duration_ns),
            ("faults", scenario.faults == expected.faults),
        ];
        differs.extend(same.iter().filter(|(_, same)| !same).map(|(name, _)| *name));
        let nodes = base.protocol.topology().len() as u32;
        if (0..nodes).any(|n| scenario.clock_of(NodeId(n)) != expected.clock_of(NodeId(n))) {
            differs.push("clocks");
        }
    }
    if scenario.seed != seed {
        differs.push("seed");
    }
    if !differs.is_empty() {
        return Err(format!(
            "the counterexample of seed {seed}, written as a scenario file, has another {} than {} under the plan; {bug}",
            differs.join(", "),
            base.name
        ));
    }
    let violated = run(&scenario, seed, Level::Facts)
        .verdicts
        .iter()
        .any(|v| v.invariant == invariant && matches!(v.status, Status::Violated(_)));
    if !violated {
        return Err(format!(
            "seed {seed} violates {} in {}, but its plan written as a scenario file does not; {bug}",
            invariant.id(),
            base.name
        ));
    }
    Ok(scenario)
}

/// Shrinks the first finding (for `target`, when given) and writes it, with its trace, into
/// `out` — only if the written file, replayed as `locksim run` would, violates the invariant.
pub fn shrink_and_write(
    loaded: &LoadedScenario,
    summary: &Summary,
    target: Option<locksim_sim::Invariant>,
    out: &Path,
    budget: u32,
) -> Result<Option<Written>, String> {
    let Some(first) = &summary.first else { return Ok(None) };
    let invariant = target
        .filter(|t| first.violated.contains(t))
        .unwrap_or(first.violated[0]);
    if i64::try_from(first.seed).is_err() {
        return Err(format!(
            "seed {} cannot be written in a scenario file (TOML integers stop at {}); explore fewer seeds to shrink",
            first.seed,
            i64::MAX
        ));
    }
    let names = loaded.scenario.names();
    let finding = Finding {
        base: &loaded.scenario,
        source: &loaded.source,
        names: &names,
        seed: first.seed,
        invariant,
    };
    let start = Candidate {
        plan: plan_for_seed(&loaded.scenario, &loaded.space, first.seed),
        overrides: Overrides::default(),
    };
    let entries_before = start.plan.size();
    check_rendered(
        &finding,
        &start,
        &finding.text(&start, "", &loaded.scenario.name),
        "(the counterexample before shrinking)",
    )?;
    let mut shrunk = shrink(&finding, start, budget);
    shrunk.candidate = finding.without_unfired(shrunk.candidate);
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
    let scenario = parse_scenario(&path.display().to_string(), &text).map_err(|e| {
        format!("the shrunk scenario does not load ({e}); this is a bug in locksim explore; nothing was written")
    })?;
    let replay = LoadedScenario {
        space: loaded.space.clone(),
        scenario,
        file: path.display().to_string(),
        source: text.clone(),
    };
    let report = RunReport::run(&replay, None);
    if !matches!(report.status(invariant), Some(Status::Violated(_))) {
        return Err(format!(
            "the shrunk scenario does not violate {} when replayed, so it was not written to {}; this is a bug in locksim explore",
            invariant.id(),
            path.display()
        ));
    }
    let trace_path = out.join(format!("{stem}.trace.json"));
    crate::atomic_file::write(&path, text.as_bytes()).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    crate::atomic_file::write(&trace_path, crate::trace_file::trace_text(&report).as_bytes())
        .map_err(|e| format!("{}: cannot write: {e}", trace_path.display()))?;
    Ok(Some(Written {
        path,
        trace: trace_path,
        invariant,
        seed: first.seed,
        entries: shrunk.candidate.plan.size(),
        entries_before,
        runs: shrunk.runs,
    }))
}

/// The summary as JSON: `seeds`, `violations` and `shrunk` (the written scenario's path) as
/// DESIGN's issue fixed them, then what the seeds determine besides (no rates, no thread
/// count), so two runs of the same exploration print the same document.
pub fn summary_json(loaded: &LoadedScenario, opts: &Options, summary: &Summary, shrunk: Option<&Written>) -> Value {
    let violations: Map<String, Value> = summary
        .violations
        .iter()
        .map(|(i, (count, first))| (i.id().to_string(), json!({"count": count, "first_seed": first})))
        .collect();
    let never: Vec<&str> = summary
        .judged
        .iter()
        .filter(|i| summary.violations_of(**i).is_none())
        .map(|i| i.id())
        .collect();
    let space: Vec<&str> = loaded.space.kinds.keys().map(|k| k.name()).collect();
    json!({
        "scenario": loaded.scenario.name,
        "file": loaded.file,
        "fault_space": {"kinds": space, "max_faults": loaded.space.max_faults},
        "seeds_requested": opts.seeds,
        "shard": format!("{}/{}", opts.shard.0, opts.shard.1),
        "keep_going": opts.keep_going,
        "hunting": opts.target.map(|t| t.id()),
        "seeds": summary.explored,
        "first_failing_seed": summary.first.as_ref().map(|f| f.seed),
        "violations": violations,
        "never_violated": never,
        "shrunk": shrunk.map(|w| w.path.display().to_string()),
        "minimal": shrunk.map(|w| json!({
            "trace": w.trace.display().to_string(),
            "seed": w.seed,
            "invariant": w.invariant.id(),
            "entries": w.entries,
            "entries_before": w.entries_before,
            "runs": w.runs,
        })),
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
        .filter(|i| summary.violations_of(**i).is_none())
        .map(|i| i.id())
        .collect();
    if summary.violations.is_empty() {
        out.push_str("  no violation found\n");
    }
    if summary.explored < shard_len(opts) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_protocols::lock::check::STALE_WRITE;

    const FENCED: &str = include_str!("../../scenarios/single-redis/kleppmann-gc-pause-fenced.toml");
    const UNFENCED: &str = include_str!("../../scenarios/single-redis/kleppmann-gc-pause.toml");

    fn names(s: &locksim_protocols::Scenario) -> locksim_sim::Names {
        locksim_sim::Names::new(s.protocol.topology().into_iter().map(|(n, _)| n).collect())
    }

    /// A `stale_write` finding at the base's seed, rendered from `source`.
    fn stale_write_finding<'a>(
        base: &'a locksim_protocols::Scenario,
        source: &'a str,
        names: &'a locksim_sim::Names,
    ) -> Finding<'a> {
        Finding {
            base,
            source,
            names,
            seed: base.seed,
            invariant: STALE_WRITE,
        }
    }

    fn as_is(s: &locksim_protocols::Scenario) -> Candidate {
        Candidate {
            plan: crate::explore::Plan::of(s),
            overrides: Overrides::default(),
        }
    }

    #[test]
    fn a_rendering_that_reproduces_passes() {
        let base = parse_scenario("gc.toml", UNFENCED).expect("loads");
        let names = names(&base);
        let finding = stale_write_finding(&base, UNFENCED, &names);
        let c = as_is(&base);
        let s = check_rendered(&finding, &c, &finding.text(&c, "", "gc"), "gc").expect("reproduces");
        assert_eq!((s.protocol, s.resource), (base.protocol, base.resource));
    }

    #[test]
    fn a_rendering_with_another_configuration_is_refused() {
        // The fenced scenario rendered from the unfenced text: its resource and protocol differ.
        let base = parse_scenario("fenced.toml", FENCED).expect("loads");
        let names = names(&base);
        let finding = stale_write_finding(&base, UNFENCED, &names);
        let c = as_is(&base);
        let e = check_rendered(&finding, &c, &finding.text(&c, "", "fenced"), "fenced").expect_err("differs");
        assert!(e.contains("protocol, resource"), "{e}");
        assert!(e.contains("nothing was written"), "{e}");
    }

    #[test]
    fn a_rendering_that_does_not_violate_is_refused() {
        let base = parse_scenario("gc.toml", UNFENCED).expect("loads");
        let names = names(&base);
        let finding = stale_write_finding(&base, UNFENCED, &names);
        let quiet = Candidate {
            plan: crate::explore::Plan::default(),
            overrides: Overrides::default(),
        };
        let e = check_rendered(&finding, &quiet, &finding.text(&quiet, "", "gc"), "gc").expect_err("no pause");
        assert!(e.contains("does not"), "{e}");
        let broken = check_rendered(&finding, &quiet, "name = \"x\"\n", "gc").expect_err("no protocol");
        assert!(broken.contains("does not load"), "{broken}");
    }
}
