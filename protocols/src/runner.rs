//! Running a scenario: building its world, running it, judging the history. Models call
//! [`run_world`] from their `Protocol::run`; they never import the registry.

use locksim_sim::trace::{TraceEvent, erase};
use locksim_sim::{History, Level, Node, NodeSetup, Stats, Unfired, Verdict, World, WorldConfig};

use crate::scenario::Scenario;

/// A finished run, with message and observation types erased.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub verdicts: Vec<Verdict>,
    /// Every event, erased for traces and timelines — with `Level::Full` only: building it
    /// costs several times the simulation itself, and exploration wants verdicts alone.
    pub trace: Vec<TraceEvent>,
    pub stats: Stats,
    pub end_ns: u64,
    /// The plan entries whose trigger never came (an `after` event that did not happen often
    /// enough): what the verdicts do not cover.
    pub unfired_faults: Vec<Unfired>,
}

/// Runs `s` with `seed` and judges it.
pub fn run(s: &Scenario, seed: u64, level: Level) -> Outcome {
    s.protocol.run(s, seed, level)
}

/// Runs a world built from `s` and judges its history with `check`: what every model's
/// `Protocol::run` does.
pub fn run_world<N: Node>(
    nodes: Vec<NodeSetup<N>>,
    s: &Scenario,
    seed: u64,
    level: Level,
    check: impl FnOnce(&History<N::Msg, N::Obs>) -> Vec<Verdict>,
) -> Outcome {
    let cfg = WorldConfig {
        seed,
        end_ns: s.duration_ns,
        network: s.network.clone(),
        faults: s.faults.clone(),
        level,
    };
    let (history, unfired_faults) = World::new(nodes, cfg).run_reporting_unfired();
    Outcome {
        verdicts: check(&history),
        trace: if level == Level::Full {
            erase(&history)
        } else {
            Vec::new()
        },
        stats: history.stats,
        end_ns: history.end_ns,
        unfired_faults,
    }
}
