//! Running a scenario: building its world, running it, judging the history. Models call
//! [`run_world`] from their `Protocol::run`; they never import the registry.

use locksim_sim::trace::erase;
use locksim_sim::{Finished, History, Level, Node, NodeSetup, Verdict, World, WorldConfig};

use crate::outcome::Outcome;
use crate::scenario::Scenario;
use crate::setting::Setting;

/// Runs `s` with `seed` and judges it: its model run in its setting.
pub fn run(s: &Scenario, seed: u64, level: Level) -> Outcome {
    s.protocol.run(s.setting(), seed, level)
}

/// Runs a world of `nodes` in `setting` and judges its history with `check`: what every
/// model's `Protocol::run` does.
pub fn run_world<N: Node>(
    nodes: Vec<NodeSetup<N>>,
    setting: Setting<'_>,
    seed: u64,
    level: Level,
    check: impl FnOnce(&History<N::Msg, N::Obs>) -> Vec<Verdict>,
) -> Outcome {
    let cfg = WorldConfig {
        seed,
        end_ns: setting.duration_ns,
        network: setting.network.clone(),
        faults: setting.faults.clone(),
        level,
        max_events: setting.max_events,
    };
    let Finished {
        history,
        unfired: unfired_faults,
        stopped,
    } = World::new(nodes, cfg).run_to_end();
    Outcome {
        // A run that stopped short is no answer: judging the part that ran could report a
        // violation (or a hold) of a run that never happened.
        verdicts: if stopped.is_some() { Vec::new() } else { check(&history) },
        stopped,
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
