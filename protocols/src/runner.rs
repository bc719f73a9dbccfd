//! Running a scenario: building its world, running it, judging its events as they happen and,
//! when a trace is asked for, writing each as its trace line into the caller's sink.
//! Models call [`run_world`] from their `Protocol::run`; they never import the registry.

use locksim_sim::trace::{LineWriter, TraceSink};
use locksim_sim::{ClockTrack, Event, Names, Node, NodeSetup, Recorder, Recording, World, WorldConfig};

use crate::judge::Judge;
use crate::outcome::Outcome;
use crate::scenario::Scenario;
use crate::setting::Setting;

/// Runs `s` with `seed` and judges it: its model run in its setting.
pub fn run(s: &Scenario, seed: u64, recording: Recording<'_>) -> Outcome {
    s.protocol.run(s.setting(), seed, recording)
}

/// Runs a world of `nodes` in `setting`, handing each event to `judge` as it happens (and to
/// the trace sink, if `recording` has one): what every model's `Protocol::run` does.
pub fn run_world<N: Node>(
    nodes: Vec<NodeSetup<N>>,
    setting: Setting<'_>,
    seed: u64,
    recording: Recording<'_>,
    judge: impl Judge<N::Msg, N::Obs>,
) -> Outcome {
    let cfg = WorldConfig {
        seed,
        end_ns: setting.duration_ns,
        network: setting.network.clone(),
        faults: setting.faults.clone(),
        level: recording.level(),
        max_events: setting.max_events,
    };
    let names = Names::new(nodes.iter().map(|n| n.name.clone()).collect());
    let trace = match recording {
        Recording::Traced(sink) => Some((LineWriter::default(), sink)),
        Recording::Facts | Recording::Full => None,
    };
    let mut recorder = Judged { judge, names, trace };
    let finished = World::new(nodes, cfg).run_to_end(&mut recorder);
    if let Some((lines, sink)) = &mut recorder.trace {
        lines.flush(&mut **sink);
    }
    Outcome {
        // A run that stopped short is no answer: judging the part that ran could report a
        // violation (or a hold) of a run that never happened.
        verdicts: if finished.stopped.is_some() {
            Vec::new()
        } else {
            recorder.judge.verdicts(&finished.end)
        },
        stopped: finished.stopped,
        events: finished.end.events,
        stats: finished.end.stats,
        end_ns: finished.end.end_ns,
        unfired_faults: finished.unfired,
    }
}

/// The runner's recorder: the judge sees every event; with a trace sink each is also written
/// as its line and handed on.
struct Judged<'s, J> {
    judge: J,
    names: Names,
    trace: Option<(LineWriter, &'s mut dyn TraceSink)>,
}

impl<M: locksim_sim::Message, O: locksim_sim::Observation, J: Judge<M, O>> Recorder<M, O> for Judged<'_, J> {
    /// Inlined where the world records, with the judge's glance at the event if it inlines
    /// that too: then a message or a timer costs no call (a call was ~45 instructions).
    #[inline(always)]
    fn record(&mut self, index: usize, event: Event<M, O>, clocks: &[ClockTrack]) {
        self.judge.see(index, &event, clocks);
        if let Some((lines, sink)) = &mut self.trace {
            lines.pass(&self.names, index, &event, &mut **sink);
        }
    }
}
