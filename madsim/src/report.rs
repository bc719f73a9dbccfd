//! The user's recording calls under the harness: each becomes the native lock fact
//! ([`LockObs`]) on the client's node, stamped with its clocks now, judged and traced like
//! any other event; a fault waiting for it fires at once, and a pause holds the rest of the
//! client's step ([`crate::gate`]).

use locksim_clock::Report;
use locksim_protocols::lock::LockObs;
use locksim_protocols::lock::obs::Deadline;
use locksim_sim::NodeId;

use crate::gate::gate;
use crate::resp::lease_id;
use crate::world::{Shared, lock};

/// The recording calls of one client node.
#[derive(Clone)]
pub struct SimReport {
    shared: Shared,
    node: NodeId,
}

impl SimReport {
    pub fn new(shared: Shared, node: NodeId) -> Self {
        SimReport { shared, node }
    }

    async fn fact(&self, fact: impl FnOnce(u64) -> LockObs) {
        {
            let mut w = lock(&self.shared);
            let mono_ns = w.mono_ns(self.node);
            let obs = fact(mono_ns);
            w.record(self.node, obs);
        }
        gate(&self.shared, self.node).await;
    }
}

impl Report for SimReport {
    /// The deadline is now + validity on the client's monotonic clock, as the native client
    /// computes it; the server bit is server-0's, the one lock server.
    async fn acquired(&self, lease: &str, token: Option<u64>, validity_ns: i64) {
        let lease = lease_id(lease.as_bytes());
        self.fact(|mono_ns| LockObs::Acquired {
            lease,
            token,
            validity_ns,
            deadline_mono_ns: Deadline::Mono(mono_ns.saturating_add_signed(validity_ns)),
            servers: 1,
        })
        .await
    }

    async fn read_done(&self, value: u64) {
        self.fact(|_| LockObs::ReadDone { value }).await
    }

    async fn deadline_checked(&self, remaining_ns: i64, ok: bool) {
        self.fact(|_| LockObs::DeadlineChecked { remaining_ns, ok }).await
    }

    async fn write_sent(&self, token: Option<u64>, value: u64) {
        self.fact(|_| LockObs::WriteSent { token, value }).await
    }

    async fn releasing(&self, lease: &str) {
        let lease = lease_id(lease.as_bytes());
        self.fact(|_| LockObs::Released { lease }).await
    }

    async fn lost(&self, why: &'static str) {
        self.fact(|_| LockObs::LockLost { why: why.into() }).await
    }

    async fn renewed(&self, deadline_mono_ns: u64) {
        self.fact(|_| LockObs::Renewed { deadline_mono_ns }).await
    }
}
