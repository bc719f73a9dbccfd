//! `locksim explore`: the command line's checks of its flags, then exploration over many
//! seeds, shrinking of the first finding and the summary.

use std::path::PathBuf;

use locksim_protocols::knobs::did_you_mean;
use locksim_protocols::registry;
use locksim_sim::Invariant;

use crate::explore::counterexample::shrink_and_write;
use crate::explore::progress::run_with_progress;
use crate::explore::runner::shard_len;
use crate::explore::summary::{summary_json, summary_text};
use crate::explore::{Options, Summary};
use crate::load::{LoadedScenario, load_file};
use crate::run_stop::explain;

use super::{BAD_INPUT, FAILED, OK, out};

pub(super) struct ExploreArgs {
    pub(super) scenario: PathBuf,
    pub(super) seeds: u64,
    pub(super) jobs: Option<usize>,
    pub(super) shard: Option<String>,
    pub(super) keep_going: bool,
    pub(super) json: bool,
    pub(super) out: Option<PathBuf>,
    pub(super) shrink_budget: u32,
    pub(super) invariant: Option<String>,
    pub(super) max_events: u64,
}

/// Every refusal is bad input (exit 2) with one `error:` line; otherwise exit 1 when a
/// violation (of the hunted invariant, if one is) was found.
pub(super) fn explore(args: ExploreArgs) -> u8 {
    match explore_checked(&args) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            BAD_INPUT
        }
    }
}

fn explore_checked(args: &ExploreArgs) -> Result<u8, String> {
    let (loaded, opts) = options(args)?;
    let (summary, took) = run_with_progress(&loaded, &opts)?;
    if let Some((seed, stop)) = summary.stopped {
        return Err(explain(
            &loaded,
            &format!("seed {seed} of the exploration (with the fault plan drawn for it)"),
            stop,
        ));
    }
    if let Some(t) = opts.target.filter(|t| !summary.judged.contains(t)) {
        return Err(format!(
            "--invariant {}: not applicable in any of the {} seeds explored ({} gives it nothing to judge), so nothing was hunted",
            t.id(),
            summary.explored,
            loaded.file
        ));
    }
    let written = match &args.out {
        Some(dir) => shrink_and_write(&loaded, &summary, opts.target, dir, args.shrink_budget)?,
        None => None,
    };
    if args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&summary_json(&loaded, &opts, &summary, written.as_ref())).expect("json")
        ));
    } else {
        out(&summary_text(&loaded, &opts, &summary, took, written.as_ref()));
    }
    Ok(if found(&summary, opts.target) { FAILED } else { OK })
}

/// The scenario and the run's options, the flags checked in the order the errors are
/// reported: seeds, shard, jobs, the invariant's name, the scenario, the invariant's fit to
/// it, the shard's seeds.
fn options(args: &ExploreArgs) -> Result<(LoadedScenario, Options), String> {
    if args.seeds == 0 {
        return Err("--seeds must be at least 1".into());
    }
    let shard = args.shard.as_deref().map(parse_shard).transpose()?.unwrap_or((0, 1));
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    let target = args.invariant.as_deref().map(known_invariant).transpose()?;
    let mut loaded = load_file(&args.scenario).map_err(|e| e.to_string())?;
    loaded.scenario.max_events = args.max_events;
    if let Some(t) = target {
        check_judged(&loaded, t)?;
    }
    let mut opts = Options {
        seeds: args.seeds,
        jobs,
        shard,
        keep_going: args.keep_going,
        target,
    };
    let seeds_in_shard = shard_len(&opts);
    if seeds_in_shard == 0 {
        let (k, n) = shard;
        return Err(format!(
            "--shard {k}/{n}: shard {k}/{n} of {} seeds is empty (it takes seeds {k}, {}, ..., and --seeds {} explores 0..{})",
            args.seeds,
            k.saturating_add(n),
            args.seeds,
            args.seeds
        ));
    }
    // More threads than seeds would only idle.
    opts.jobs = opts.jobs.min(usize::try_from(seeds_in_shard).unwrap_or(usize::MAX));
    Ok((loaded, opts))
}

/// `--invariant id`: one of the registered models' invariants.
fn known_invariant(id: &str) -> Result<Invariant, String> {
    registry::invariant(id).ok_or_else(|| {
        let ids: Vec<&str> = registry::invariants().iter().map(|i| i.id()).collect();
        format!(
            "--invariant {id}: unknown invariant; known invariants: {}{}",
            ids.join(", "),
            did_you_mean(id, ids.iter().copied())
        )
    })
}

/// A hunt for an invariant the scenario's protocol never judges could find nothing.
fn check_judged(loaded: &LoadedScenario, target: Invariant) -> Result<(), String> {
    let judged = loaded.scenario.protocol.spec().invariants;
    if judged.contains(&target) {
        return Ok(());
    }
    let ids: Vec<&str> = judged.iter().map(|i| i.id()).collect();
    Err(format!(
        "--invariant {}: {} ({}) never judges it, so no seed could violate it; it judges {}",
        target.id(),
        loaded.file,
        loaded.scenario.protocol.kind(),
        ids.join(", ")
    ))
}

/// Whether the run found what it looked for: a violation of the target, or of anything.
fn found(summary: &Summary, target: Option<Invariant>) -> bool {
    match target {
        Some(t) => summary.violations_of(t).is_some(),
        None => !summary.violations.is_empty(),
    }
}

/// Parses `--shard K/N`.
fn parse_shard(text: &str) -> Result<(u64, u64), String> {
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
