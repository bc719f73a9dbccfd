//! What one run of a model yields: its verdicts and its statistics (its trace went to the
//! caller's sink as it happened, if one was asked for).

use locksim_sim::{Stats, Stop, Unfired, Verdict};

/// A finished run, with message and observation types erased.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Why the run ended before its end, if it did (it stalled, or spent its event budget):
    /// then the run is no answer at all, and `verdicts` is empty.
    pub stopped: Option<Stop>,
    pub verdicts: Vec<Verdict>,
    /// How many events the run recorded at its level: at `Full`, its trace's length.
    pub events: usize,
    pub stats: Stats,
    pub end_ns: u64,
    /// The plan entries whose trigger never came (an `after` event that did not happen often
    /// enough): what the verdicts do not cover.
    pub unfired_faults: Vec<Unfired>,
}
