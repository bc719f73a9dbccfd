//! Roles and terms: a follower that hears no leader for its randomised timeout campaigns, a
//! member votes for a candidate whose log is at least as up to date as its own, a candidate
//! with a majority leads, and a leader that hears from no majority for an election timeout
//! (CheckQuorum) or is asked to stand aside steps down. Kept apart from the log so that who
//! may speak for the cluster reads in one place.

use locksim_sim::NodeId;
use locksim_sim::rng::uniform;

use super::lessor::Lessor;
use super::{Commit, ELECTION, EtcdCtx, EtcdServer, HEARTBEAT, LESSOR, Role};
use crate::etcd::msg::{Command, Msg};
use crate::raft_vote::{LastEntry, Tally, Voter};

impl EtcdServer {
    /// CheckQuorum (etcd runs Raft with it): a leader that has not heard from a majority for an
    /// election timeout steps down instead of serving on. A leader-only store asks a majority
    /// for nothing, this included.
    pub(super) fn followed(&self, ctx: &EtcdCtx<'_>) -> bool {
        let now = ctx.mono_ns();
        let heard = (0..self.peers.len())
            .filter(|&i| i == self.me || now.saturating_sub(self.last_ack_ns[i]) < self.cfg.election_ns)
            .count();
        self.cfg.commit != Commit::Majority || heard >= self.majority()
    }

    pub(super) fn reset_election(&mut self, ctx: &mut EtcdCtx<'_>) {
        let e = self.cfg.election_ns;
        let timeout = uniform(ctx.rng(), e, 2 * e - 1);
        ctx.set_timer(ELECTION, timeout);
    }

    pub(super) fn become_follower(&mut self, ctx: &mut EtcdCtx<'_>, term: u64, leader: Option<usize>) {
        if self.role == Role::Leader {
            self.record_role(ctx, false, "follower");
            self.pending.clear();
            self.lessor = Lessor::default();
            self.promoted = false;
            ctx.cancel_timer(HEARTBEAT);
            ctx.cancel_timer(LESSOR);
        }
        self.role = Role::Follower;
        if term > self.term {
            self.term = term;
            self.voted_for = None;
        }
        self.leader = leader;
        self.reset_election(ctx);
    }

    pub(super) fn campaign(&mut self, ctx: &mut EtcdCtx<'_>) {
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
        ctx: &mut EtcdCtx<'_>,
        from: NodeId,
        term: u64,
        last_index: usize,
        last_term: u64,
    ) {
        let Some(candidate) = self.peer_index(from) else { return };
        if term > self.term {
            self.become_follower(ctx, term, None);
        }
        let voter = Voter {
            term: self.term,
            leading: self.role == Role::Leader,
            voted_for: self.voted_for,
            last: LastEntry {
                term: self.term_at(self.last_index()),
                index: self.last_index() as u64,
            },
        };
        let granted = voter.grants(
            candidate,
            term,
            LastEntry {
                term: last_term,
                index: last_index as u64,
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

    pub(super) fn on_voted(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, term: u64, granted: bool) {
        if term > self.term {
            return self.become_follower(ctx, term, None);
        }
        let Some(voter) = self.peer_index(from) else { return };
        if self.role == Role::Candidate && term == self.term && granted && self.votes.add(voter, self.majority()) {
            self.become_leader(ctx);
        }
    }

    /// Wins an election. It is not authoritative yet: entries of older terms it holds may be
    /// committed without its knowing, so it records nothing until its first entry applies.
    pub(super) fn become_leader(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.role = Role::Leader;
        self.leader = Some(self.me);
        self.next = vec![self.last_index() + 1; self.peers.len()];
        self.matched = vec![0; self.peers.len()];
        self.last_ack_ns = vec![ctx.mono_ns(); self.peers.len()];
        self.lessor.deadlines.clear();
        self.lessor.expiring.clear();
        self.facts.owner = None;
        ctx.cancel_timer(ELECTION);
        ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
        self.propose(ctx, Command::NoOp, None);
    }
}
