//! A Raft server (`server-<i>`): the register is its replicated state machine. Kept in three
//! files by concern: `vote.rs` (terms, elections, stepping down, CheckQuorum), `log.rs`
//! (AppendEntries, commit, apply, writes), `read.rs` (ReadIndex and lease reads), and here its
//! state, start, crash and dispatch.
//!
//! What a crash keeps: the term, the vote and the log (Raft's persistent state, figure 2; etcd
//! fsyncs them to its WAL before answering). Everything else is rebuilt: the commit index is
//! learned again from the leader, the register re-applied from the log.

mod log;
mod read;
mod vote;

use std::collections::VecDeque;

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::{Entry, Msg};
use super::obs::ElectObs;
use super::{RaftConfig, ReadMode};
use crate::raft_vote::Tally;

pub(super) const ELECTION: TimerTag = 0;
pub(super) const HEARTBEAT: TimerTag = 1;
pub(super) const CHECK_QUORUM: TimerTag = 2;
pub(super) const ACT: TimerTag = 3;

pub(super) type ServerCtx<'a> = Ctx<'a, Msg, ElectObs>;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    Follower,
    Candidate,
    Leader,
}

/// A read waiting for its ReadIndex round: served once a majority acknowledged `round` (sent
/// after the read arrived), at the commit index it arrived at.
struct PendingRead {
    client: NodeId,
    req: u64,
    round: u64,
}

pub struct Server {
    cfg: RaftConfig,
    me: usize,
    peers: Vec<NodeId>,
    resource: NodeId,
    // Persistent.
    booted: bool,
    term: u64,
    voted_for: Option<usize>,
    /// Entry i (1-based) is `log[i - 1]`.
    log: Vec<Entry>,
    // Volatile.
    role: Role,
    leader: Option<usize>,
    commit: u64,
    applied: u64,
    value: Option<u64>,
    votes: Tally,
    /// Monotonic time this follower last heard its leader (CheckQuorum's leader lease).
    heard_leader_ns: Option<u64>,
    // Leader only.
    next: Vec<u64>,
    matched: Vec<u64>,
    acked_round: Vec<u64>,
    last_ack_ns: Vec<u64>,
    round: u64,
    /// Rounds not yet acknowledged by a majority, with when each was sent.
    round_sent: VecDeque<(u64, u64)>,
    lease_until_ns: u64,
    pending_writes: Vec<(u64, NodeId, u64)>,
    pending_reads: Vec<PendingRead>,
    act_seq: u64,
}

impl Server {
    pub fn new(cfg: RaftConfig, me: usize, peers: Vec<NodeId>, resource: NodeId) -> Self {
        let n = peers.len();
        Server {
            cfg,
            me,
            peers,
            resource,
            booted: false,
            term: 0,
            voted_for: None,
            log: Vec::new(),
            role: Role::Follower,
            leader: None,
            commit: 0,
            applied: 0,
            value: None,
            votes: Tally::default(),
            heard_leader_ns: None,
            next: vec![1; n],
            matched: vec![0; n],
            acked_round: vec![0; n],
            last_ack_ns: vec![0; n],
            round: 0,
            round_sent: VecDeque::new(),
            lease_until_ns: 0,
            pending_writes: Vec::new(),
            pending_reads: Vec::new(),
            act_seq: 0,
        }
    }

    fn majority(&self) -> usize {
        self.peers.len() / 2 + 1
    }

    fn peer_index(&self, node: NodeId) -> Option<usize> {
        self.peers.iter().position(|&p| p == node)
    }

    /// The cluster is formed with server-0 leading term 1, as the etcd model boots: the
    /// stories start from a known leader.
    pub fn on_start(&mut self, ctx: &mut ServerCtx<'_>) {
        if !self.booted {
            self.booted = true;
            self.term = 1;
            self.voted_for = Some(0);
            if self.me == 0 {
                return self.become_leader(ctx);
            }
            self.leader = Some(0);
            self.heard_leader_ns = Some(ctx.mono_ns());
        }
        self.reset_election(ctx);
    }

    pub fn on_crash(&mut self, ctx: &mut ServerCtx<'_>) {
        if self.role == Role::Leader {
            ctx.record(ElectObs::SteppedDown {
                term: self.term,
                why: "crashed",
            });
        }
        let kept = (self.booted, self.term, self.voted_for, std::mem::take(&mut self.log));
        *self = Server::new(self.cfg, self.me, std::mem::take(&mut self.peers), self.resource);
        (self.booted, self.term, self.voted_for, self.log) = kept;
    }

    pub fn on_msg(&mut self, ctx: &mut ServerCtx<'_>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Vote {
                term,
                last_index,
                last_term,
            } => self.on_vote(ctx, from, term, last_index, last_term),
            Msg::Voted { term, granted } => self.on_voted(ctx, from, term, granted),
            Msg::Append {
                term,
                prev_index,
                prev_term,
                entries,
                commit,
                round,
            } => self.on_append(ctx, from, term, (prev_index, prev_term), entries, commit, round),
            Msg::Appended {
                term,
                ok,
                matched,
                round,
            } => self.on_appended(ctx, from, term, ok, matched, round),
            Msg::Request { req, op } => self.on_request(ctx, from, req, op),
            _ => {}
        }
    }

    pub fn on_timer(&mut self, ctx: &mut ServerCtx<'_>, tag: TimerTag) {
        match tag {
            ELECTION if self.role != Role::Leader => self.campaign(ctx),
            HEARTBEAT if self.role == Role::Leader => {
                self.broadcast(ctx);
                ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
            }
            CHECK_QUORUM if self.role == Role::Leader => self.check_quorum(ctx),
            ACT if self.role == Role::Leader => {
                self.act_seq += 1;
                let (term, seq) = (self.term, self.act_seq);
                ctx.record(ElectObs::ActSent { term, seq });
                ctx.send(self.resource, Msg::Act { term, seq });
                ctx.set_timer(ACT, self.cfg.act_every_ns);
            }
            _ => {}
        }
    }

    fn last_index(&self) -> u64 {
        self.log.len() as u64
    }

    fn term_at(&self, index: u64) -> u64 {
        if index == 0 {
            0
        } else {
            self.log.get(index as usize - 1).map_or(0, |e| e.term)
        }
    }

    fn lease_reads(&self) -> bool {
        self.cfg.read == ReadMode::Lease
    }
}
