//! A node's clock under the harness: the scenario's `[[clock]]` for that node, evaluated by
//! the native engine's [`locksim_sim::ClockTrack`] at madsim's true time — offset, drift,
//! jumps, and a monotonic reading that stands still while the node is suspended.

use std::future::Future;
use std::time::Duration;

use locksim_clock::{Clock, nanos};
use locksim_sim::NodeId;
use madsim::time::sleep_until;

use crate::world::{Shared, lock};

/// How long after a resume the sleeps that came due during the pause end: past madsim's 1 ms
/// minimum sleep, through which the data that arrived meanwhile is delivered.
pub const AFTER_RESUME_NS: u64 = 2_000_000;

/// What the user's code on one node reads its time from.
#[derive(Clone)]
pub struct SimClock {
    shared: Shared,
    node: NodeId,
}

impl SimClock {
    pub fn new(shared: Shared, node: NodeId) -> Self {
        SimClock { shared, node }
    }
}

impl Clock for SimClock {
    fn wall_ns(&self) -> i64 {
        lock(&self.shared).wall_ns(self.node)
    }

    fn mono_ns(&self) -> u64 {
        lock(&self.shared).mono_ns(self.node)
    }

    /// Until the node's monotonic clock has advanced by `d`. The true instant is asked again
    /// after each wake-up: a suspension that began meanwhile pushes it later.
    ///
    /// A sleep that came due while the node was paused ends [`AFTER_RESUME_NS`] after the
    /// resume: madsim hands a resumed node the TCP data that arrived during the pause through
    /// a sleep of at least 1 ms, and the native engine's rule is that what came due during a
    /// pause is handled in arrival order — a reply that arrived before a timeout was due is
    /// read before the timeout fires.
    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send {
        let (shared, node) = (self.shared.clone(), self.node);
        async move {
            let target_ns = lock(&shared).mono_ns(node).saturating_add(nanos(d));
            loop {
                let at = {
                    let w = lock(&shared);
                    if w.mono_ns(node) >= target_ns {
                        match w.nodes[node.index()].resumed_at_ns {
                            Some(resumed_ns)
                                if w.true_time_of_mono(node, target_ns) <= resumed_ns
                                    && w.now_ns() < resumed_ns + AFTER_RESUME_NS =>
                            {
                                w.instant_of(resumed_ns + AFTER_RESUME_NS)
                            }
                            _ => return,
                        }
                    } else {
                        w.instant_of(w.true_time_of_mono(node, target_ns))
                    }
                };
                sleep_until(at).await;
            }
        }
    }
}
