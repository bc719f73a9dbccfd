//! The first finding of an exploration shrunk to a minimal counterexample and written as a
//! scenario file (with its trace) that `locksim run` replays — checked before anything is
//! written: the file loads, has the base's configuration, and violates the invariant.

use std::path::{Path, PathBuf};

use locksim_protocols::run;
use locksim_sim::{Invariant, NodeId, Recording, Status};

use super::finding_files::{FindingNames, free_names, write_pair};
use super::runner::Summary;
use super::scenario_toml::Overrides;
use super::shrink::{Candidate, Finding, shrink};
use super::swarm::plan_for_seed;
use crate::load::{LoadedScenario, parse_scenario};
use crate::run_result::RunResult;
use crate::trace_write::TraceWriter;

/// A written minimal counterexample.
pub struct Written {
    pub path: PathBuf,
    pub trace: PathBuf,
    pub invariant: Invariant,
    pub seed: u64,
    pub entries: usize,
    pub entries_before: usize,
    pub runs: u32,
    /// An earlier finding's scenario that had this one's name, left as it is.
    pub earlier: Option<PathBuf>,
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
        let nodes = base.protocol.layout().len() as u32;
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
    let violated = run(&scenario, seed, Recording::Facts)
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
    target: Option<Invariant>,
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
    let names = free_names(out, &stem)?;
    let written = Written {
        path: names.scenario.clone(),
        trace: names.trace.clone(),
        invariant,
        seed: first.seed,
        entries: shrunk.candidate.plan.size(),
        entries_before,
        runs: shrunk.runs,
        earlier: names.earlier.clone(),
    };
    let text = finding.text(&shrunk.candidate, &header(loaded, &written), &names.stem);
    write_if_it_reproduces(loaded, &written, &names, &text)?;
    Ok(Some(written))
}

/// The written scenario's description: where it comes from, how far it shrank, how to run it.
fn header(loaded: &LoadedScenario, w: &Written) -> String {
    format!(
        "Shrunk by `locksim explore` from {} (seed {}): {} violated.\n{} fault plan entries shrunk to {} in {} runs.\nReproduce: locksim run {}\n\nSource: locksim explore of {}",
        loaded.file,
        w.seed,
        w.invariant.id(),
        w.entries_before,
        w.entries,
        w.runs,
        w.path.display(),
        loaded.file
    )
}

/// Loads `text` as `locksim run` would load the written file and runs it; writes the file and
/// its trace only if that run violates the invariant.
fn write_if_it_reproduces(
    loaded: &LoadedScenario,
    w: &Written,
    names: &FindingNames,
    text: &str,
) -> Result<(), String> {
    let path = &w.path;
    let mut scenario = parse_scenario(&path.display().to_string(), text).map_err(|e| {
        format!("the shrunk scenario does not load ({e}); this is a bug in locksim explore; nothing was written")
    })?;
    // The budget is the command line's, not the file's: the replay takes the one explored with.
    scenario.max_events = loaded.scenario.max_events;
    let replay = LoadedScenario {
        space: loaded.space.clone(),
        scenario,
        file: path.display().to_string(),
        source: text.to_string(),
    };
    let seed = replay.scenario.seed;
    let mut trace = TraceWriter::begin(Vec::new(), &replay, seed).map_err(|e| e.to_string())?;
    let result = RunResult::run_into(&replay, Some(seed), &mut trace);
    if !matches!(result.status(w.invariant), Some(Status::Violated(_))) {
        return Err(format!(
            "the shrunk scenario does not violate {} when replayed, so it was not written to {}; this is a bug in locksim explore",
            w.invariant.id(),
            path.display()
        ));
    }
    let trace = trace.finish(&result.json()).map_err(|e| e.to_string())?;
    write_pair(names, text, &String::from_utf8(trace).expect("a trace is UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_protocols::lock::check::STALE_WRITE;

    const FENCED: &str = include_str!("../../scenarios/single-redis/kleppmann-gc-pause-fenced.toml");
    const UNFENCED: &str = include_str!("../../scenarios/single-redis/kleppmann-gc-pause.toml");

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
        let names = base.names();
        let finding = stale_write_finding(&base, UNFENCED, &names);
        let c = as_is(&base);
        let s = check_rendered(&finding, &c, &finding.text(&c, "", "gc"), "gc").expect("reproduces");
        assert_eq!((s.protocol, s.resource), (base.protocol, base.resource));
    }

    #[test]
    fn a_rendering_with_another_configuration_is_refused() {
        // The fenced scenario rendered from the unfenced text: its resource and protocol differ.
        let base = parse_scenario("fenced.toml", FENCED).expect("loads");
        let names = base.names();
        let finding = stale_write_finding(&base, UNFENCED, &names);
        let c = as_is(&base);
        let e = check_rendered(&finding, &c, &finding.text(&c, "", "fenced"), "fenced").expect_err("differs");
        assert!(e.contains("protocol, resource"), "{e}");
        assert!(e.contains("nothing was written"), "{e}");
    }

    #[test]
    fn a_rendering_that_does_not_violate_is_refused() {
        let base = parse_scenario("gc.toml", UNFENCED).expect("loads");
        let names = base.names();
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
