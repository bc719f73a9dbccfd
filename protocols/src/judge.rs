//! A model's checkers as the run goes: a [`Judge`] is handed every event of the run's level
//! in order, as it happens, and keeps only what its checkers need (the open holding
//! intervals, the highest token accepted, ...), so judging a long run takes memory that does
//! not grow with its length. At the end it gives the verdicts, in the model's invariant order.

use locksim_sim::{ClockTrack, Event, RunEnd, Verdict};

/// Judges a run from its events.
pub trait Judge<M, O> {
    /// Event `index` of the run's level, with every node's clock as it is at the event's time.
    fn see(&mut self, index: usize, event: &Event<M, O>, clocks: &[ClockTrack]);

    /// The verdicts once the run has ended, in the model's invariant order.
    fn verdicts(self, end: &RunEnd) -> Vec<Verdict>;
}

/// The verdicts of `judge` over a whole history, as if it had been recorded: for checker
/// tests, which build their histories by hand.
#[cfg(test)]
pub(crate) fn judge_history<M, O>(mut judge: impl Judge<M, O>, h: &locksim_sim::History<M, O>) -> Vec<Verdict> {
    for (index, event) in h.events.iter().enumerate() {
        judge.see(index, event, &h.clocks);
    }
    judge.verdicts(&RunEnd {
        names: h.names.clone(),
        clocks: h.clocks.clone(),
        end_ns: h.end_ns,
        stats: h.stats,
        events: h.events.len(),
    })
}
