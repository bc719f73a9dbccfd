//! The bug catalogue (`tests/bug_catalogue/`): every known-wrong knob of every model, as a
//! scenario expecting the invariant it breaks `violated`, and correct configurations expecting
//! the invariants they promise `held`.
//!
//! A bug names its fix in `[explore.fix]` — the scenario tables to change, e.g.
//! `[explore.fix.protocol] renew = "checked"` — and a seed *finds* it only when the bug's
//! configuration violates the invariant under the seed's plan and the fixed twin, under the
//! same plan, does not. Without that, a bug would be "found" by any fault that breaks the
//! fixed protocol too (a VM suspend or a clock jump breaks every lease), and the catalogue
//! would say nothing about the knob. Shrinking keeps both halves: the minimal plan is one the
//! knob makes the difference in. A bug the model has no fixing knob for says so in its header
//! and narrows its `[explore]` to the faults that can only break it through the bug.
//!
//! A correct configuration must survive the same budget on what it promises. Each entry is
//! explored in its own fault space: the protocol's default, unless its `[explore]` narrows
//! it, saying why.

use std::path::Path;

use locksim_protocols::{Expected, Scenario, run};
use locksim_sim::{Invariant, Recording, Status};

use crate::explore::plan_for_seed;
use crate::explore::runner::{Options, explore};
use crate::explore::scenario_toml::Overrides;
use crate::explore::shrink::{Candidate, Finding, shrink_while};
use crate::fault_space::FaultSpace;
use crate::load::{LoadError, LoadedScenario, load_file, parse_scenario};

/// One catalogue entry.
pub struct Entry {
    pub loaded: LoadedScenario,
    /// What it claims.
    pub claim: Claim,
}

pub enum Claim {
    /// A bug: exploration finds this invariant violated where the fixed twin holds it.
    Breaks {
        invariant: Invariant,
        fixed: Option<Box<Twin>>,
    },
    /// A correct configuration: exploration never violates these.
    Keeps(Vec<Invariant>),
}

/// A bug's fixed twin: the entry with its `[explore.fix]` applied.
pub struct Twin {
    pub scenario: Scenario,
    pub source: String,
}

impl Entry {
    pub fn name(&self) -> &str {
        &self.loaded.scenario.name
    }
}

fn error(file: &str, key: Option<&str>, message: String) -> LoadError {
    LoadError {
        file: file.to_string(),
        line: None,
        key: key.map(str::to_string),
        message,
    }
}

/// Every entry of the catalogue folder, in file-name order.
pub fn load(dir: &Path) -> Result<Vec<Entry>, LoadError> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| {
            error(
                &dir.display().to_string(),
                None,
                format!("cannot read the bug catalogue: {e}"),
            )
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        let message = "the bug catalogue has no scenario files (*.toml)".to_string();
        return Err(error(&dir.display().to_string(), None, message));
    }
    paths
        .into_iter()
        .map(|p| {
            let loaded = load_file(&p)?;
            let broken: Vec<Invariant> = loaded
                .scenario
                .expect
                .iter()
                .filter(|(_, e)| *e == Expected::Violated)
                .map(|(i, _)| *i)
                .collect();
            let claim = match broken.as_slice() {
                [one] => Claim::Breaks {
                    invariant: *one,
                    fixed: fixed_twin(&loaded)?,
                },
                [] => Claim::Keeps(loaded.scenario.expect.iter().map(|(i, _)| *i).collect()),
                _ => {
                    let message = "a bug entry expects exactly one invariant violated".to_string();
                    return Err(error(&loaded.file, Some("expect"), message));
                }
            };
            Ok(Entry { loaded, claim })
        })
        .collect()
}

/// The entry with `[explore.fix]` merged into its tables (and without its `[expect]`), if it
/// names a fix.
fn fixed_twin(loaded: &LoadedScenario) -> Result<Option<Box<Twin>>, LoadError> {
    let mut doc: toml_edit::DocumentMut = loaded
        .source
        .parse()
        .map_err(|e: toml_edit::TomlError| error(&loaded.file, None, e.to_string()))?;
    let Some(fix) = doc
        .get_mut("explore")
        .and_then(|e| e.as_table_like_mut())
        .and_then(|e| e.remove("fix"))
    else {
        return Ok(None);
    };
    let Some(fix) = fix.as_table_like() else {
        return Err(error(&loaded.file, Some("explore.fix"), "must be a table".to_string()));
    };
    merge(doc.as_table_mut(), fix);
    doc.remove("expect");
    let source = doc.to_string();
    let file = format!("{} (fixed by [explore.fix])", loaded.file);
    let scenario = parse_scenario(&file, &source)?;
    if scenario == loaded.scenario {
        let message = "the fix changes nothing in the scenario".to_string();
        return Err(error(&loaded.file, Some("explore.fix"), message));
    }
    Ok(Some(Box::new(Twin { scenario, source })))
}

/// Sets every key of `fix` in `doc`, recursing into tables.
fn merge(doc: &mut dyn toml_edit::TableLike, fix: &dyn toml_edit::TableLike) {
    for (key, value) in fix.iter() {
        match (
            doc.get_mut(key).and_then(|v| v.as_table_like_mut()),
            value.as_table_like(),
        ) {
            (Some(inner), Some(fix)) => merge(inner, fix),
            _ => {
                doc.insert(key, value.clone());
            }
        }
    }
}

/// The result of hunting a bug.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunt {
    /// The first seed whose plan breaks the bug's configuration and not its fixed twin.
    pub found_at: Option<u64>,
    pub seeds_run: u64,
    /// The minimal plan's size (entries and clock rates), and how large the found plan was.
    pub shrunk: Option<(usize, usize)>,
    /// The minimal counterexample as a scenario file (`locksim run` replays it).
    pub minimal: Option<String>,
}

fn violates(scenario: &Scenario, seed: u64, invariant: Invariant) -> bool {
    run(scenario, seed, Recording::Facts)
        .verdicts
        .iter()
        .any(|v| v.invariant == invariant && matches!(v.status, Status::Violated(_)))
}

/// Hunts the bug over seeds `0..budget` (stopping at the first seed that finds it), and
/// shrinks what it finds within `shrink_budget` runs, keeping the fixed twin (if any) unbroken.
pub fn hunt(entry: &Entry, space: &FaultSpace, budget: u64, shrink_budget: u32) -> Hunt {
    let Claim::Breaks { invariant, fixed } = &entry.claim else {
        panic!("{} is a correct configuration, not a bug", entry.name())
    };
    let (bug, invariant) = (&entry.loaded.scenario, *invariant);
    let fixed = fixed.as_ref().map(|t| &t.scenario);
    let found = (0..budget).find(|&seed| {
        let plan = plan_for_seed(bug, space, seed);
        violates(&plan.apply(bug), seed, invariant) && !fixed.is_some_and(|f| violates(&plan.apply(f), seed, invariant))
    });
    let Some(seed) = found else {
        return Hunt {
            found_at: None,
            seeds_run: budget,
            shrunk: None,
            minimal: None,
        };
    };
    let names = bug.names();
    let finding = |base, source| Finding {
        base,
        source,
        names: &names,
        seed,
        invariant,
    };
    let broken = finding(bug, &entry.loaded.source);
    let twin = match &entry.claim {
        Claim::Breaks { fixed: Some(t), .. } => Some(finding(&t.scenario, &t.source)),
        _ => None,
    };
    let start = plan_for_seed(bug, space, seed);
    let before = start.size();
    let candidate = Candidate {
        plan: start,
        overrides: Overrides::default(),
    };
    let shrunk = shrink_while(bug, candidate, shrink_budget, |c| {
        broken.violates(c) && !twin.as_ref().is_some_and(|t| t.violates(c))
    });
    let header = format!(
        "Minimal plan under which {} breaks {} and its [explore.fix] does not (seed {seed}).",
        entry.name(),
        invariant.id()
    );
    Hunt {
        found_at: Some(seed),
        seeds_run: seed + 1,
        shrunk: Some((shrunk.candidate.plan.size(), before)),
        minimal: Some(broken.text(&shrunk.candidate, &header, &format!("{}-minimal", entry.name()))),
    }
}

/// Explores a correct configuration over `0..budget` and returns every promised invariant it
/// violated, with the first seed.
pub fn survive(
    entry: &Entry,
    promised: &[Invariant],
    space: &FaultSpace,
    budget: u64,
    jobs: usize,
) -> Vec<(Invariant, u64)> {
    let opts = Options {
        seeds: budget,
        jobs,
        shard: (0, 1),
        keep_going: true,
        target: None,
    };
    let summary = explore(&entry.loaded.scenario, space, &opts, &Default::default());
    promised
        .iter()
        .filter_map(|&i| summary.violations_of(i).map(|(_, first)| (i, first)))
        .collect()
}
