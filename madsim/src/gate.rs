//! Where a node's code waits out a pause that struck it, or stops for good after a crash.

use std::future::pending;

use locksim_sim::NodeId;
use madsim::time::sleep_until;

use crate::world::{Shared, lock};

enum Life {
    Running,
    PausedUntil(madsim::time::Instant),
    Crashed,
}

/// Returns once `node` runs: a pause fired inside its step (after a fact it recorded) holds
/// the rest of the step until the pause ends, as the native engine holds it; after a crash
/// the rest never runs (madsim drops the task when the supervisor kills the node).
pub async fn gate(shared: &Shared, node: NodeId) {
    loop {
        let life = {
            let w = lock(shared);
            let state = &w.nodes[node.index()];
            match state.paused_until_ns {
                _ if state.crashed => Life::Crashed,
                Some(until_ns) if until_ns > w.now_ns() => Life::PausedUntil(w.instant_of(until_ns)),
                _ => Life::Running,
            }
        };
        match life {
            Life::Running => return,
            Life::PausedUntil(at) => sleep_until(at).await,
            Life::Crashed => pending::<()>().await,
        }
    }
}
