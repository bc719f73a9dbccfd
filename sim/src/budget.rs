//! Limits on one run, so that no input makes the engine spin or grow for ever: a run that
//! stops advancing true time (a client looping with zero work, think time and latency does
//! every step at one instant) and a run longer than its event budget both end early, saying
//! why, instead of hanging or exhausting memory.

use crate::time::fmt_secs;

/// The default number of queue items a run may handle: 10 million, some 300 times the
/// busiest catalogue scenario (about 30,000 at 60 s). A soak longer than that raises it.
pub const DEFAULT_MAX_EVENTS: u64 = 10_000_000;

/// How many queue items may come due at one true instant before the run is judged stuck:
/// far above any real story (a run's start puts one item per node at 0, and a burst of
/// sends at one instant is a few dozen), and small enough that the history it leaves is a
/// few hundred MB at most.
pub const MAX_EVENTS_AT_ONE_INSTANT: u64 = 100_000;

/// Why a run ended before its end time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// [`MAX_EVENTS_AT_ONE_INSTANT`] items came due at true time `at_ns` without time moving.
    Stalled { at_ns: u64 },
    /// The run handled `max_events` items and was still short of its end, at true time `at_ns`.
    OverBudget { at_ns: u64, max_events: u64 },
}

/// A stopped run is an error to whoever wanted its verdicts (`?` in a proptest body fails the case).
impl std::error::Error for Stop {}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Stop::Stalled { at_ns } => write!(
                f,
                "simulated time stopped advancing at {}: {MAX_EVENTS_AT_ONE_INSTANT} events at one instant",
                fmt_secs(at_ns)
            ),
            Stop::OverBudget { at_ns, max_events } => write!(
                f,
                "the run reached its budget of {max_events} events at {} of simulated time",
                fmt_secs(at_ns)
            ),
        }
    }
}
