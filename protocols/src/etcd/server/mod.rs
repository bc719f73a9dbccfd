//! An etcd member: a compact Raft (terms, majority commit, elections by randomised timeout
//! with the up-to-date rule, log repair), the key-value store applied in log order, the
//! leader's lessor, and watches.
//!
//! What the stories need from it, and how it provides them:
//! - a write is acknowledged only once a majority has it, so a leader cut off in a minority
//!   acknowledges nothing, and an elected leader holds every acknowledged write — unless
//!   `commit = "leader-only"` (the wrong variant: acknowledge on append, replicate on the next
//!   heartbeat, as an asynchronously replicated store would);
//! - lease expiry is judged by the leader's monotonic clock and is itself a log entry, so all
//!   keys of an expired lease go in one revision; keep-alives reach only the leader;
//! - a new leader is *promoted* when it applies the first (empty) entry of its own term: only
//!   then is its applied state the committed state (etcd's `lessor.Promote`);
//! - watches are served by any member from its applied state, from a given revision.
//!
//! One member is one struct, [`EtcdServer`]; its behaviour is split by concern, each file an
//! `impl` block over the same state:
//! - `election.rs`: roles and terms — timeouts, votes, winning and stepping down, CheckQuorum;
//! - `replication.rs`: the log — proposing, appending and repairing followers' logs, the commit
//!   rule, applying committed entries in order;
//! - `lessor.rs`: the leader's lease deadlines, the expiry timer and its proposals, keep-alives,
//!   and the promotion that makes the lessor primary;
//! - `serve.rs`: what an applied entry does to the store — client requests, lease expiries —
//!   and the watches answered from it;
//! - `lock_facts.rs`: what a leader records for the lock checkers — the owner, the tokens, its
//!   role (the counter writes are recorded where `serve.rs` judges them).
//!
//! This file holds the state and the entry points the node's events arrive at.

mod election;
mod lessor;
mod lock_facts;
mod replication;
mod serve;

use std::collections::BTreeMap;

use locksim_sim::{Ctx, NodeId, TimerTag};
use serde::Serialize;

use super::kv::Kv;
use super::msg::{Answer, Command, Entry, Msg};
use super::obs::EtcdObs;
use crate::raft_vote::Tally;
use lessor::Lessor;
use lock_facts::LockFacts;
use serve::Watch;

/// When the leader acknowledges a write.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Commit {
    /// Once a majority has the entry (Raft; etcd).
    Majority,
    /// Wrong: as soon as the leader appended it; followers get it with the next heartbeat, and
    /// a leader never checks that a majority still follows it (asynchronous replication).
    LeaderOnly,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    pub heartbeat_ns: u64,
    /// A follower that hears no leader for a random time in `[election, 2 x election)` runs.
    pub election_ns: u64,
    pub commit: Commit,
    /// The lock key's create revision is the clients' fencing token: record it as issued.
    pub revision_tokens: bool,
}

const HEARTBEAT: TimerTag = 0;
const ELECTION: TimerTag = 1;
const LESSOR: TimerTag = 2;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    Follower,
    Candidate,
    Leader,
}

type EtcdCtx<'a> = Ctx<'a, Msg, EtcdObs>;

pub struct EtcdServer {
    cfg: ServerConfig,
    me: usize,
    peers: Vec<NodeId>,
    // Raft's persistent state, fsynced to the WAL before answering: it survives a crash.
    booted: bool,
    term: u64,
    voted_for: Option<usize>,
    log: Vec<Entry>,
    // Volatile state.
    role: Role,
    leader: Option<usize>,
    commit: usize,
    applied: usize,
    kv: Kv,
    votes: Tally,
    next: Vec<usize>,
    matched: Vec<usize>,
    /// Log index -> the client waiting for that entry's answer (leader only).
    pending: BTreeMap<usize, (NodeId, u64)>,
    lessor: Lessor,
    watches: Vec<Watch>,
    facts: LockFacts,
    /// A leader that stepped down for a failover does not run again before this.
    stay_out_until_ns: u64,
    /// As leader: the send time of the newest append each member answered (CheckQuorum). The
    /// send time, not the answer's arrival: a leader paused with answers queued learns on
    /// resuming that a majority followed it *then*, not now.
    last_ack_ns: Vec<u64>,
    /// A leader that has applied the first entry of its term: its state is the committed
    /// state, its lessor is primary, and it records the lock world's facts.
    promoted: bool,
}

impl EtcdServer {
    /// Member `me` of the cluster `peers`; member 0 bootstraps as the first leader.
    pub fn new(cfg: ServerConfig, me: usize, peers: Vec<NodeId>) -> Self {
        let n = peers.len();
        EtcdServer {
            cfg,
            me,
            peers,
            booted: false,
            term: 0,
            voted_for: None,
            log: Vec::new(),
            role: Role::Follower,
            leader: None,
            commit: 0,
            applied: 0,
            kv: Kv::default(),
            votes: Tally::default(),
            next: vec![1; n],
            matched: vec![0; n],
            pending: BTreeMap::new(),
            lessor: Lessor::default(),
            watches: Vec::new(),
            facts: LockFacts::default(),
            stay_out_until_ns: 0,
            last_ack_ns: vec![0; n],
            promoted: false,
        }
    }

    fn peer_index(&self, node: NodeId) -> Option<usize> {
        self.peers.iter().position(|p| *p == node)
    }

    fn record(&self, ctx: &mut EtcdCtx<'_>, obs: impl Into<EtcdObs>) {
        ctx.record(obs.into());
    }

    pub fn on_start(&mut self, ctx: &mut EtcdCtx<'_>) {
        if !self.booted {
            self.booted = true;
            self.term = 1;
            if self.me == 0 {
                return self.become_leader(ctx);
            }
            self.leader = Some(0);
            self.record_role(ctx, false, "follower");
        }
        self.reset_election(ctx);
    }

    pub fn on_crash(&mut self, ctx: &mut EtcdCtx<'_>) {
        if self.role == Role::Leader {
            self.record_role(ctx, false, "crashed");
        }
        let persisted = (self.booted, self.term, self.voted_for, std::mem::take(&mut self.log));
        *self = EtcdServer::new(self.cfg, self.me, std::mem::take(&mut self.peers));
        (self.booted, self.term, self.voted_for, self.log) = persisted;
    }

    /// The failover tool asks `primary` to step down; the others elect a new leader.
    pub fn on_failover(&mut self, ctx: &mut EtcdCtx<'_>, primary: NodeId) {
        if self.peers[self.me] == primary && self.role == Role::Leader {
            self.stay_out_until_ns = ctx.mono_ns() + 2 * self.cfg.election_ns;
            let term = self.term;
            self.become_follower(ctx, term, None);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut EtcdCtx<'_>, tag: TimerTag) {
        match tag {
            HEARTBEAT if self.role == Role::Leader => {
                if !self.followed(ctx) {
                    let term = self.term;
                    return self.become_follower(ctx, term, None);
                }
                self.send_appends(ctx);
                ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
            }
            ELECTION if self.role != Role::Leader => {
                if ctx.mono_ns() < self.stay_out_until_ns {
                    return self.reset_election(ctx);
                }
                self.campaign(ctx);
            }
            LESSOR if self.role == Role::Leader => self.expire_due(ctx),
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Request { req, request } => {
                if self.role == Role::Leader {
                    self.propose(
                        ctx,
                        Command::Client {
                            client: from,
                            req,
                            request,
                        },
                        Some((from, req)),
                    );
                } else {
                    let hint = self.leader.map(|l| self.peers[l]);
                    ctx.send(
                        from,
                        Msg::Answer {
                            req,
                            answer: Answer::NotLeader { hint },
                        },
                    );
                }
            }
            Msg::KeepAlive { lease } => self.keep_alive(ctx, from, lease),
            Msg::Watch {
                key,
                from_revision,
                watch,
            } => self.add_watch(ctx, from, key, from_revision, watch),
            Msg::Append {
                term,
                prev_index,
                prev_term,
                entries,
                commit,
                sent_ns,
            } => self.on_append(ctx, from, term, (prev_index, prev_term), entries, commit, sent_ns),
            Msg::Appended {
                term,
                success,
                match_index,
                sent_ns,
            } => self.on_appended(ctx, from, term, (success, match_index), sent_ns),
            Msg::Vote {
                term,
                last_index,
                last_term,
            } => self.on_vote(ctx, from, term, last_index, last_term),
            Msg::Voted { term, granted } => self.on_voted(ctx, from, term, granted),
            _ => {}
        }
    }
}
