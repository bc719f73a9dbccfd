//! Property-based exploration (DESIGN: "engineers state a protocol variant and its fault
//! space, explore thousands of seeds, get the smallest failing fault schedule back as a
//! scenario file"): swarm plans derived from a seed and drawn from the scenario's fault space
//! ([`crate::fault_space`], which the loader reads), a deterministic parallel runner, shrinking,
//! and the minimal counterexample written back as a scenario file.

pub mod counterexample;
mod finding_files;
pub mod plan;
pub mod progress;
pub mod runner;
pub mod scenario_toml;
pub mod shape;
pub mod shrink;
pub mod strategy;
pub mod summary;
pub mod swarm;

pub use plan::Plan;
pub use runner::{Options, Summary, explore};
pub use shape::{PlanShape, ShapeNode};
pub use strategy::plans;
pub use swarm::plan_for_seed;

use locksim_protocols::{Scenario, run};
use locksim_sim::{Invariant, Level, Status, Stop, Verdict, Violation};

/// The verdicts of `scenario` under `plan` (which replaces the scenario's own faults) with
/// `seed`: the entry point for a user's own property tests. A run that stopped short of its
/// end (it stalled, or spent its event budget) has no verdicts: it is an error, not an empty
/// list a property would read as "nothing violated".
pub fn check(scenario: &Scenario, plan: &Plan, seed: u64) -> Result<Vec<Verdict>, Stop> {
    let outcome = run(&plan.apply(scenario), seed, Level::Facts);
    match outcome.stopped {
        Some(stop) => Err(stop),
        None => Ok(outcome.verdicts),
    }
}

/// The violation of `invariant` among `verdicts`, if it was violated: what a property asserts
/// is absent (`prop_assert!(violation(&verdicts, FENCING_ORDER).is_none())`).
pub fn violation(verdicts: &[Verdict], invariant: Invariant) -> Option<&Violation> {
    verdicts.iter().find_map(|v| match &v.status {
        Status::Violated(found) if v.invariant == invariant => Some(found),
        _ => None,
    })
}
