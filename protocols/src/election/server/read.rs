//! Reads at the leader, two ways (Raft thesis section 6.4; etcd raft's `ReadOnlySafe` and
//! `ReadOnlyLeaseBased`):
//!
//! - **ReadIndex**: note the commit index, send a round of heartbeats, and answer once a
//!   majority acknowledged that round — proof that no other leader had been elected when the
//!   read arrived. Costs a round trip; trusts no clock.
//! - **Lease**: a round acknowledged by a majority makes the leader sure of its office until
//!   the round's send time plus `lease_ms` (its own monotonic clock); inside that, it answers
//!   from its state at once. Safe only while `lease_ms + max_clock_drift < election_timeout`
//!   (no follower can have timed out and elected another leader before the lease ends) and
//!   CheckQuorum keeps followers that heard the leader from voting (seed 004, 9.5.2). A lease
//!   that has run out falls back to ReadIndex, as TiKV's lease reads do.
//!
//! Either way nothing is served until an entry of the leader's own term is committed.

use locksim_sim::NodeId;

use super::{PendingRead, Server, ServerCtx};
use crate::election::msg::Msg;
use crate::election::obs::ElectObs;

impl Server {
    pub(super) fn on_read(&mut self, ctx: &mut ServerCtx<'_>, client: NodeId, req: u64) {
        if !self.own_term_committed() {
            // Not yet: the client tries again.
            return ctx.send(
                client,
                Msg::NotLeader {
                    req,
                    hint: Some(self.me),
                },
            );
        }
        if self.lease_reads() {
            let remaining_ns = self.lease_until_ns as i64 - ctx.mono_ns() as i64;
            let ok = remaining_ns > 0;
            ctx.record(ElectObs::LeaseChecked { remaining_ns, ok });
            if ok {
                return ctx.send(client, Msg::Reply { req, value: self.value });
            }
        }
        self.pending_reads.push(PendingRead {
            client,
            req,
            round: self.round + 1,
        });
        self.broadcast(ctx);
    }

    /// The newest round a majority (this leader included) acknowledged: it extends the lease
    /// from that round's send time and answers the reads that waited for it.
    pub(super) fn quorum_acked(&mut self, ctx: &mut ServerCtx<'_>) {
        let mut rounds = self.acked_round.clone();
        rounds.sort_unstable_by(|a, b| b.cmp(a));
        let round = rounds[self.majority() - 1];
        while let Some(&(r, sent_ns)) = self.round_sent.front() {
            if r > round {
                break;
            }
            self.round_sent.pop_front();
            if r == round {
                self.lease_until_ns = self.lease_until_ns.max(sent_ns + self.cfg.lease_ns);
            }
        }
        if !self.own_term_committed() {
            return;
        }
        let value = self.value;
        self.pending_reads.retain(|r| {
            if r.round > round {
                return true;
            }
            ctx.send(r.client, Msg::Reply { req: r.req, value });
            false
        });
    }
}
