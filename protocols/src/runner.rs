//! Running a scenario: building its world, running it, judging its events as they happen.
//! Models call [`run_world`] from their `Protocol::run`; they never import the registry.

use locksim_sim::trace::{TraceEvent, erase_event};
use locksim_sim::{ClockTrack, Event, Level, Names, Node, NodeSetup, Recorder, World, WorldConfig};

use crate::judge::Judge;
use crate::outcome::Outcome;
use crate::scenario::Scenario;
use crate::setting::Setting;

/// Runs `s` with `seed` and judges it: its model run in its setting.
pub fn run(s: &Scenario, seed: u64, level: Level) -> Outcome {
    s.protocol.run(s.setting(), seed, level)
}

/// Runs a world of `nodes` in `setting`, handing each event to `judge` as it happens: what
/// every model's `Protocol::run` does.
pub fn run_world<N: Node>(
    nodes: Vec<NodeSetup<N>>,
    setting: Setting<'_>,
    seed: u64,
    level: Level,
    judge: impl Judge<N::Msg, N::Obs>,
) -> Outcome {
    let cfg = WorldConfig {
        seed,
        end_ns: setting.duration_ns,
        network: setting.network.clone(),
        faults: setting.faults.clone(),
        level,
        max_events: setting.max_events,
    };
    let names = Names::new(nodes.iter().map(|n| n.name.clone()).collect());
    let mut recorder = Judged {
        judge,
        names,
        trace: Vec::new(),
        level,
    };
    let finished = World::new(nodes, cfg).run_to_end(&mut recorder);
    Outcome {
        // A run that stopped short is no answer: judging the part that ran could report a
        // violation (or a hold) of a run that never happened.
        verdicts: if finished.stopped.is_some() {
            Vec::new()
        } else {
            recorder.judge.verdicts(&finished.end)
        },
        stopped: finished.stopped,
        trace: recorder.trace,
        stats: finished.end.stats,
        end_ns: finished.end.end_ns,
        unfired_faults: finished.unfired,
    }
}

/// The runner's recorder: the judge sees every event; at `Level::Full` each is also erased
/// into the trace.
struct Judged<J> {
    judge: J,
    names: Names,
    trace: Vec<TraceEvent>,
    level: Level,
}

impl<M: locksim_sim::Message, O: locksim_sim::Observation, J: Judge<M, O>> Recorder<M, O> for Judged<J> {
    fn record(&mut self, index: usize, event: Event<M, O>, clocks: &[ClockTrack]) {
        self.judge.see(index, &event, clocks);
        if self.level == Level::Full {
            self.trace.push(erase_event(&self.names, index, &event));
        }
    }
}
