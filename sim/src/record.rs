//! Where a run's events go as they happen. The world keeps no history of its own: it hands
//! each event to a [`Recorder`] the moment it happens, so a run's memory grows only with
//! what the recorder keeps. A model's judge keeps what its checkers need, a trace writer
//! writes each line and forgets it, and [`Keep`] keeps everything (for tests and small runs).

use crate::clock::ClockTrack;
use crate::history::{Event, History, Stats};
use crate::ids::{Names, NodeId};

/// Takes the run's events in order.
pub trait Recorder<M, O> {
    /// Event number `index` of the run's level (from 0), with every node's clock as it is
    /// at the event's time (the track of everything up to now: later jumps and suspensions
    /// are not in it yet).
    fn record(&mut self, index: usize, event: Event<M, O>, clocks: &[ClockTrack]);
}

/// What is known once a run ends, besides its events.
#[derive(Clone, Debug)]
pub struct RunEnd {
    pub names: Names,
    /// Each node's clock over the whole run, for checkers that evaluate clocks at any instant.
    pub clocks: Vec<ClockTrack>,
    pub end_ns: u64,
    pub stats: Stats,
    /// How many events the recorder was handed.
    pub events: usize,
}

impl RunEnd {
    pub fn clock(&self, node: NodeId) -> &ClockTrack {
        &self.clocks[node.index()]
    }

    /// The true time at which `node`'s monotonic clock reaches `mono_ns`, capped at the end
    /// of the run.
    pub fn when_mono(&self, node: NodeId, mono_ns: u64) -> u64 {
        self.clock(node).true_time_of_mono(mono_ns).min(self.end_ns)
    }
}

/// Keeps every event: a whole [`History`] once the run ends.
pub struct Keep<M, O> {
    events: Vec<Event<M, O>>,
}

impl<M, O> Default for Keep<M, O> {
    fn default() -> Self {
        Keep { events: Vec::new() }
    }
}

impl<M, O> Recorder<M, O> for Keep<M, O> {
    fn record(&mut self, _index: usize, event: Event<M, O>, _clocks: &[ClockTrack]) {
        self.events.push(event);
    }
}

impl<M, O> Keep<M, O> {
    /// The history of the run that ended with `end`.
    pub fn into_history(self, end: RunEnd) -> History<M, O> {
        History {
            names: end.names,
            events: self.events,
            clocks: end.clocks,
            end_ns: end.end_ns,
            stats: end.stats,
        }
    }
}
