//! What the world keeps per node besides the model: its lifecycle, its timers, what waits for
//! it while it is paused, its clock and its own random stream.

use rand_chacha::ChaCha8Rng;

use super::NodeSetup;
use super::timers::TimerState;
use crate::clock::ClockTrack;
use crate::node::{Effect, Node};
use crate::queue::Due;
use crate::rng::stream;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Life {
    Running,
    Paused { until_ns: u64 },
    Crashed,
}

pub(super) struct Slot<N: Node> {
    pub(super) model: N,
    pub(super) life: Life,
    pub(super) started: bool,
    /// Bumped by each crash: messages sent to an earlier incarnation are reset.
    pub(super) incarnation: u32,
    /// Per timer tag.
    pub(super) timers: Vec<TimerState>,
    /// Deliveries and timers that came due while paused, in order.
    pub(super) pending: Vec<Due<N::Msg>>,
    /// The rest of the step in which a pause struck, run on resume.
    pub(super) held: Vec<Effect<N::Msg, N::Obs>>,
    pub(super) clock: ClockTrack,
    pub(super) rng: ChaCha8Rng,
}

impl<N: Node> Slot<N> {
    /// A running node not yet started, its random stream drawn from the run's seed and its
    /// name (so adding a node leaves the others' streams as they were).
    pub(super) fn new(seed: u64, setup: NodeSetup<N>) -> Self {
        Slot {
            rng: stream(seed, &format!("node:{}", setup.name)),
            model: setup.model,
            life: Life::Running,
            started: false,
            incarnation: 0,
            timers: Vec::new(),
            pending: Vec::new(),
            held: Vec::new(),
            clock: ClockTrack::new(setup.clock),
        }
    }
}
