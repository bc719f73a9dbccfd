//! Who started each lease: a message names the owner of a lock key ("client-1 (lease 3fa2)").
//!
//! Kept: one lease and one node per acquisition attempt (16 bytes), pushed as it starts and
//! looked up only to word a violation or an objection. This is the one piece of a lock judge
//! that grows with a run's acquisitions (never with the events between them): a lease is a
//! random number its client draws, and a server can set a key for any lease started earlier
//! (a delayed `SET` lands whenever the network delivers it), so no started lease can be
//! forgotten while the run goes on without some later message possibly naming "an unknown
//! owner" where the whole history would name its client.

use locksim_sim::{Names, NodeId};

#[derive(Default)]
pub(crate) struct Owners(Vec<(u64, NodeId)>);

impl Owners {
    pub fn started(&mut self, lease: u64, client: NodeId) {
        self.0.push((lease, client));
    }

    /// "client-1", or "an unknown owner" for a lease no client started. A lease started twice
    /// is its last starter's.
    pub fn name<'n>(&self, names: &'n Names, lease: u64) -> &'n str {
        self.0
            .iter()
            .rev()
            .find(|(l, _)| *l == lease)
            .map_or("an unknown owner", |(_, n)| names.of(*n))
    }
}
