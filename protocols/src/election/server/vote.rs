//! Terms and elections (Raft paper section 5.2 and 5.4.1): a follower that hears no leader for
//! its election timeout campaigns in a new term; a server grants one vote per term, and only
//! to a candidate whose log is at least as up to date as its own (the log restriction); a
//! majority makes a leader. With CheckQuorum (etcd's `CheckQuorum`, Raft thesis 6.2) a leader
//! that heard from no majority for an election timeout steps down, and a follower that heard
//! its leader within an election timeout ignores RequestVote — without that, a lease is not
//! safe (etcd raft's Config: "CheckQuorum MUST be enabled if ReadOnlyOption is ReadOnlyLeaseBased").

use locksim_sim::NodeId;
use locksim_sim::rng::uniform;

use super::{ACT, CHECK_QUORUM, ELECTION, HEARTBEAT, Role, Server, ServerCtx};
use crate::election::Spread;
use crate::election::msg::{Entry, Msg};
use crate::election::obs::ElectObs;
use crate::raft_vote::{LastEntry, Tally, Voter};

impl Server {
    /// Raft's randomised timeout in [e, 2e), or, `ranked`, e plus a twentieth of e per rank,
    /// so that which follower campaigns first is known (for stories that need it).
    pub(super) fn reset_election(&mut self, ctx: &mut ServerCtx<'_>) {
        let e = self.cfg.election_ns;
        let timeout = match self.cfg.spread {
            Spread::Random => uniform(ctx.rng(), e, 2 * e - 1),
            Spread::Ranked => e + self.me as u64 * (e / 20),
        };
        ctx.set_timer(ELECTION, timeout);
    }

    pub(super) fn become_follower(
        &mut self,
        ctx: &mut ServerCtx<'_>,
        term: u64,
        leader: Option<usize>,
        why: &'static str,
    ) {
        if self.role == Role::Leader {
            ctx.record(ElectObs::SteppedDown { term: self.term, why });
            self.pending_writes.clear();
            self.pending_reads.clear();
            self.round_sent.clear();
            self.lease_until_ns = 0;
            for tag in [HEARTBEAT, CHECK_QUORUM, ACT] {
                ctx.cancel_timer(tag);
            }
        }
        self.role = Role::Follower;
        if term > self.term {
            self.term = term;
            self.voted_for = None;
            self.leader = None;
        }
        if self.leader == Some(self.me) {
            self.leader = None;
        }
        if leader.is_some() {
            self.leader = leader;
            self.heard_leader_ns = Some(ctx.mono_ns());
        }
        self.reset_election(ctx);
    }

    pub(super) fn campaign(&mut self, ctx: &mut ServerCtx<'_>) {
        self.role = Role::Candidate;
        self.term += 1;
        self.voted_for = Some(self.me);
        self.votes = Tally::own(self.me);
        self.leader = None;
        self.reset_election(ctx);
        if self.majority() == 1 {
            return self.become_leader(ctx);
        }
        let (term, last_index, last_term) = (self.term, self.last_index(), self.term_at(self.last_index()));
        for (i, &peer) in self.peers.iter().enumerate() {
            if i != self.me {
                ctx.send(
                    peer,
                    Msg::Vote {
                        term,
                        last_index,
                        last_term,
                    },
                );
            }
        }
    }

    pub(super) fn on_vote(
        &mut self,
        ctx: &mut ServerCtx<'_>,
        from: NodeId,
        term: u64,
        last_index: u64,
        last_term: u64,
    ) {
        let Some(candidate) = self.peer_index(from) else { return };
        let in_lease = self.cfg.check_quorum
            && self.leader.is_some()
            && self
                .heard_leader_ns
                .is_some_and(|t| ctx.mono_ns().saturating_sub(t) < self.cfg.election_ns);
        if in_lease && term > self.term {
            return;
        }
        if term > self.term {
            self.become_follower(ctx, term, None, "saw a higher term");
        }
        let granted = self.voter().grants(
            candidate,
            term,
            LastEntry {
                term: last_term,
                index: last_index,
            },
        );
        if granted {
            self.voted_for = Some(candidate);
            self.reset_election(ctx);
        }
        ctx.send(
            from,
            Msg::Voted {
                term: self.term,
                granted,
            },
        );
    }

    pub(super) fn on_voted(&mut self, ctx: &mut ServerCtx<'_>, from: NodeId, term: u64, granted: bool) {
        if term > self.term {
            return self.become_follower(ctx, term, None, "saw a higher term");
        }
        let Some(voter) = self.peer_index(from) else { return };
        if self.role == Role::Candidate && term == self.term && granted && self.votes.add(voter, self.majority()) {
            self.become_leader(ctx);
        }
    }

    /// What RequestVote's rules read of this server.
    fn voter(&self) -> Voter {
        Voter {
            term: self.term,
            leading: self.role == Role::Leader,
            voted_for: self.voted_for,
            last: LastEntry {
                term: self.term_at(self.last_index()),
                index: self.last_index(),
            },
        }
    }

    /// Wins: appends a no-op of its term (it may serve reads only once an entry of its own
    /// term is committed, Raft thesis 6.4) and starts heartbeats, CheckQuorum and its acts.
    pub(super) fn become_leader(&mut self, ctx: &mut ServerCtx<'_>) {
        self.role = Role::Leader;
        self.leader = Some(self.me);
        let n = self.peers.len();
        let last = self.last_index();
        self.next = vec![last + 1; n];
        self.matched = vec![0; n];
        self.acked_round = vec![0; n];
        self.last_ack_ns = vec![ctx.mono_ns(); n];
        self.lease_until_ns = 0;
        self.round_sent.clear();
        ctx.cancel_timer(ELECTION);
        ctx.record(ElectObs::BecameLeader { term: self.term });
        self.log.push(Entry {
            term: self.term,
            value: None,
        });
        self.matched[self.me] = self.last_index();
        self.advance_commit(ctx);
        self.broadcast(ctx);
        ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
        if self.cfg.check_quorum {
            ctx.set_timer(CHECK_QUORUM, self.cfg.election_ns);
        }
        ctx.set_timer(ACT, self.cfg.act_every_ns);
    }

    /// CheckQuorum: steps down unless a majority (itself included) answered within the last
    /// election timeout.
    pub(super) fn check_quorum(&mut self, ctx: &mut ServerCtx<'_>) {
        let now = ctx.mono_ns();
        let heard = (0..self.peers.len())
            .filter(|&i| i == self.me || now.saturating_sub(self.last_ack_ns[i]) < self.cfg.election_ns)
            .count();
        if heard < self.majority() {
            let term = self.term;
            return self.become_follower(
                ctx,
                term,
                None,
                "CheckQuorum: no majority heard for an election timeout",
            );
        }
        ctx.set_timer(CHECK_QUORUM, self.cfg.election_ns);
    }
}
