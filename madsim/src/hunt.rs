//! The loop a user lives in (issue 13, point 6): explore seeds through the front-end, each with
//! the fault plan `locksim explore` draws for it from the scenario's `[explore]` space, until
//! the user's client violates an invariant that a fixed client does not; shrink that plan with
//! locksim's own shrinker, every candidate judged on the front-end; and write it as a scenario
//! file that replays to the violation.

use std::ops::Range;

use locksim::explore::plan_for_seed;
use locksim::explore::scenario_toml::Overrides;
use locksim::explore::shrink::{Candidate, Finding, shrink_while};
use locksim::load::{LoadedScenario, parse_scenario};
use locksim_protocols::Scenario;
use locksim_sim::{Invariant, Level, Status};

use crate::refuse::supported;
use crate::run::{ClientFn, run};

/// A shrunk finding: the seed it was found at and the scenario file that replays it.
#[derive(Clone, Debug)]
pub struct Found {
    pub seed: u64,
    /// Fault entries before and after shrinking.
    pub entries_before: usize,
    pub entries: usize,
    /// Runs the shrinking took.
    pub runs: u32,
    pub text: String,
}

/// Whether `client` violates `invariant` in `s` with `seed` on the front-end.
pub fn violates(s: &Scenario, seed: u64, invariant: Invariant, client: &ClientFn) -> bool {
    run(s, seed, Level::Facts, None, client).is_ok_and(|r| {
        r.outcome
            .verdicts
            .iter()
            .any(|v| v.invariant == invariant && matches!(v.status, Status::Violated(_)))
    })
}

/// The first seed of `seeds` whose plan makes `buggy` violate `invariant` while `fixed` (if
/// given) does not, shrunk within `budget` runs and written as the scenario file `name`.
pub fn hunt(
    loaded: &LoadedScenario,
    seeds: Range<u64>,
    invariant: Invariant,
    budget: u32,
    buggy: &ClientFn,
    fixed: Option<&ClientFn>,
    name: &str,
) -> Option<Found> {
    let base = &loaded.scenario;
    let names = base.names();
    for seed in seeds {
        let finding = Finding {
            base,
            source: &loaded.source,
            names: &names,
            seed,
            invariant,
        };
        let keeps = |c: &Candidate| {
            let Ok(s) = parse_scenario("(shrink candidate)", &finding.text(c, "", &base.name)) else {
                return false;
            };
            supported(&s).is_ok()
                && violates(&s, seed, invariant, buggy)
                && fixed.is_none_or(|fixed| !violates(&s, seed, invariant, fixed))
        };
        let start = Candidate {
            plan: plan_for_seed(base, &loaded.space, seed),
            overrides: Overrides::default(),
        };
        if !keeps(&start) {
            continue;
        }
        let entries_before = start.plan.size();
        let shrunk = shrink_while(base, start, budget, keeps);
        let header = format!(
            "Found by the madsim front-end: seed {seed} of {}, the user's client violating {}, shrunk in {} runs.",
            loaded.file,
            invariant.id(),
            shrunk.runs
        );
        return Some(Found {
            seed,
            entries_before,
            entries: shrunk.candidate.plan.size(),
            runs: shrunk.runs,
            text: finding.text(&shrunk.candidate, &header, name),
        });
    }
    None
}
