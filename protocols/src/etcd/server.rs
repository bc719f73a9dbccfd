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
//!   keys of an expired lease go in one revision; keep-alives reach only the leader (they are
//!   not logged, as in etcd);
//! - a new leader is *promoted* when it applies the first (empty) entry of its own term: only
//!   then is its applied state the committed state. etcdserver's `applyEntryNormal` calls
//!   `lessor.Promote(electionTimeout)` there, which refreshes every lease to now + election
//!   timeout + TTL (a keep-alive reaching it before then waits, as etcd's `LeaseRenew` waits
//!   for a primary lessor);
//! - watches are served by any member from its applied state, from a given revision.
//!
//! The promoted leader records the lock world's facts (who owns the lock — the lowest create
//! revision under the lock prefix — and until when by its clock; each lock key's create
//! revision, the fencing token, when it commits the key; every counter write it applied or
//! refused); other members record only that they are not authoritative, and a leader that
//! steps down or crashes says so. Every leader, promoted or not, records the tokens of the lock
//! keys it applies: an entry an old leader proposed and the new one commits with its first
//! entry is applied before the promotion, and one the old leader had applied already is
//! announced again with the same key (`token_monotonic` knows it again).

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::lock_obs::{ClockKind, DeleteCause, Expiry};
use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, LockObs, NodeId, TimerTag};
use serde::Serialize;

use super::kv::{CmpOp, Compare, Kv, Op, Order, Range, Target};
use super::msg::{Answer, COUNTER_KEY, Command, Entry, Msg, Request, lock_key};
use super::obs::{EtcdEvent, EtcdObs};

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

struct Watch {
    key: String,
    from_revision: i64,
    client: NodeId,
    watch: u64,
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
    votes: u32,
    next: Vec<usize>,
    matched: Vec<usize>,
    /// Log index -> the client waiting for that entry's answer (leader only).
    pending: BTreeMap<usize, (NodeId, u64)>,
    /// Lease -> expiry on this leader's monotonic clock.
    deadlines: BTreeMap<i64, u64>,
    /// Leases whose expiry is proposed but not applied yet.
    expiring: BTreeSet<i64>,
    lessor_armed_ns: Option<u64>,
    watches: Vec<Watch>,
    /// The lock owner this leader last recorded: (lease, create revision).
    owner: Option<(i64, i64)>,
    /// A lease expiry applied since the owner was last recorded (so its deletion reads as one).
    just_expired: Option<i64>,
    /// A leader that stepped down for a failover does not run again before this.
    stay_out_until_ns: u64,
    /// As leader: the send time of the newest append each member answered (CheckQuorum). The
    /// send time, not the answer's arrival: a leader paused with answers queued learns on
    /// resuming that a majority followed it *then*, not now.
    last_ack_ns: Vec<u64>,
    /// A leader that has applied the first entry of its term: its state is the committed
    /// state, its lessor is primary, and it records the lock world's facts.
    promoted: bool,
    /// Keep-alives that reached this leader before its promotion; answered at it.
    held_keepalives: Vec<(NodeId, i64)>,
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
            votes: 0,
            next: vec![1; n],
            matched: vec![0; n],
            pending: BTreeMap::new(),
            deadlines: BTreeMap::new(),
            expiring: BTreeSet::new(),
            lessor_armed_ns: None,
            watches: Vec::new(),
            owner: None,
            just_expired: None,
            stay_out_until_ns: 0,
            last_ack_ns: vec![0; n],
            promoted: false,
            held_keepalives: Vec::new(),
        }
    }

    /// etcd's shortest lease: one and a half election timeouts (counted in heartbeat ticks),
    /// rounded up to whole seconds — 2 s by default. A shorter TTL is raised to it, so that a
    /// lease cannot expire during a routine election.
    fn min_ttl_ms(&self) -> i64 {
        let ticks = self.cfg.election_ns / self.cfg.heartbeat_ns;
        let min_ns = 3 * ticks / 2 * self.cfg.heartbeat_ns;
        (min_ns.div_ceil(1_000_000_000) * 1000) as i64
    }

    fn majority(&self) -> usize {
        self.peers.len() / 2 + 1
    }

    fn last_index(&self) -> usize {
        self.log.len()
    }

    fn term_at(&self, index: usize) -> u64 {
        if index == 0 { 0 } else { self.log[index - 1].term }
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
            self.record(
                ctx,
                LockObs::RoleChanged {
                    authoritative: false,
                    role: "follower",
                },
            );
        }
        self.reset_election(ctx);
    }

    pub fn on_crash(&mut self, ctx: &mut EtcdCtx<'_>) {
        if self.role == Role::Leader {
            self.record(
                ctx,
                LockObs::RoleChanged {
                    authoritative: false,
                    role: "crashed",
                },
            );
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
            LESSOR if self.role == Role::Leader => {
                self.lessor_armed_ns = None;
                let now = ctx.mono_ns();
                let due: Vec<i64> = self
                    .deadlines
                    .iter()
                    .filter(|(l, d)| **d <= now && !self.expiring.contains(l))
                    .map(|(l, _)| *l)
                    .collect();
                for lease in due {
                    self.expiring.insert(lease);
                    self.propose(ctx, Command::Expire { lease }, None);
                }
                self.arm_lessor(ctx);
            }
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
            } => {
                self.watches.push(Watch {
                    key,
                    from_revision,
                    client: from,
                    watch,
                });
                self.fire_watches(ctx);
            }
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

    /// CheckQuorum (etcd runs Raft with it): a leader that has not heard from a majority for an
    /// election timeout steps down instead of serving on. A leader-only store asks a majority
    /// for nothing, this included.
    fn followed(&self, ctx: &EtcdCtx<'_>) -> bool {
        let now = ctx.mono_ns();
        let heard = (0..self.peers.len())
            .filter(|&i| i == self.me || now.saturating_sub(self.last_ack_ns[i]) < self.cfg.election_ns)
            .count();
        self.cfg.commit != Commit::Majority || heard >= self.majority()
    }

    fn reset_election(&mut self, ctx: &mut EtcdCtx<'_>) {
        let e = self.cfg.election_ns;
        let timeout = uniform(ctx.rng(), e, 2 * e - 1);
        ctx.set_timer(ELECTION, timeout);
    }

    fn become_follower(&mut self, ctx: &mut EtcdCtx<'_>, term: u64, leader: Option<usize>) {
        if self.role == Role::Leader {
            self.record(
                ctx,
                LockObs::RoleChanged {
                    authoritative: false,
                    role: "follower",
                },
            );
            self.pending.clear();
            self.deadlines.clear();
            self.expiring.clear();
            self.lessor_armed_ns = None;
            self.promoted = false;
            self.held_keepalives.clear();
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

    fn campaign(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.role = Role::Candidate;
        self.term += 1;
        self.voted_for = Some(self.me);
        self.votes = 1 << self.me;
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

    fn on_vote(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, term: u64, last_index: usize, last_term: u64) {
        let Some(candidate) = self.peer_index(from) else { return };
        if term > self.term {
            self.become_follower(ctx, term, None);
        }
        let up_to_date = (last_term, last_index) >= (self.term_at(self.last_index()), self.last_index());
        let granted = term == self.term
            && self.role != Role::Leader
            && self.voted_for.is_none_or(|v| v == candidate)
            && up_to_date;
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

    fn on_voted(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, term: u64, granted: bool) {
        if term > self.term {
            return self.become_follower(ctx, term, None);
        }
        let Some(voter) = self.peer_index(from) else { return };
        if self.role == Role::Candidate && term == self.term && granted {
            self.votes |= 1 << voter;
            if self.votes.count_ones() as usize >= self.majority() {
                self.become_leader(ctx);
            }
        }
    }

    /// Wins an election. It is not authoritative yet: entries of older terms it holds may be
    /// committed without its knowing, so it records nothing until its first entry applies.
    fn become_leader(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.role = Role::Leader;
        self.leader = Some(self.me);
        self.next = vec![self.last_index() + 1; self.peers.len()];
        self.matched = vec![0; self.peers.len()];
        self.last_ack_ns = vec![ctx.mono_ns(); self.peers.len()];
        self.deadlines.clear();
        self.expiring.clear();
        self.owner = None;
        ctx.cancel_timer(ELECTION);
        ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
        self.propose(ctx, Command::NoOp, None);
    }

    /// The first entry of this leader's term is applied, so everything committed before it is
    /// too. etcdserver `applyEntryNormal` on that empty entry: `lessor.Promote(electionTimeout)`
    /// refreshes every lease to now + election timeout + TTL — the leases' deadlines lived in
    /// the old leader's memory, and the extra election timeout covers the time the cluster
    /// may have had no leader to renew them.
    fn promote(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.promoted = true;
        let now = ctx.mono_ns();
        let extend_ns = self.cfg.election_ns;
        self.deadlines = self
            .kv
            .lease_ids()
            .map(|l| {
                (
                    l,
                    now + extend_ns + self.kv.lease_ttl_ms(l).unwrap_or(0) as u64 * 1_000_000,
                )
            })
            .collect();
        self.record(
            ctx,
            LockObs::RoleChanged {
                authoritative: true,
                role: "leader",
            },
        );
        self.record(
            ctx,
            EtcdEvent::LeaderElected {
                term: self.term,
                leases_extended: self.deadlines.len() as u32,
            },
        );
        self.arm_lessor(ctx);
        for (client, lease) in std::mem::take(&mut self.held_keepalives) {
            self.keep_alive(ctx, client, lease);
        }
    }

    /// Appends a command as leader, and replicates (or, leader-only, commits) it.
    fn propose(&mut self, ctx: &mut EtcdCtx<'_>, command: Command, reply_to: Option<(NodeId, u64)>) {
        self.log.push(Entry {
            term: self.term,
            command,
        });
        let index = self.last_index();
        self.matched[self.me] = index;
        if let Some(r) = reply_to {
            self.pending.insert(index, r);
        }
        match self.cfg.commit {
            Commit::LeaderOnly => {
                self.commit = index;
                self.apply(ctx);
            }
            Commit::Majority => {
                self.send_appends(ctx);
                self.advance_commit(ctx);
            }
        }
    }

    fn send_appends(&mut self, ctx: &mut EtcdCtx<'_>) {
        for i in 0..self.peers.len() {
            if i != self.me {
                self.send_append(ctx, i);
            }
        }
    }

    fn send_append(&mut self, ctx: &mut EtcdCtx<'_>, i: usize) {
        let prev_index = self.next[i] - 1;
        ctx.send(
            self.peers[i],
            Msg::Append {
                term: self.term,
                prev_index,
                prev_term: self.term_at(prev_index),
                entries: self.log[prev_index..].to_vec(),
                commit: self.commit,
                sent_ns: ctx.mono_ns(),
            },
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn on_append(
        &mut self,
        ctx: &mut EtcdCtx<'_>,
        from: NodeId,
        term: u64,
        (prev_index, prev_term): (usize, u64),
        entries: Vec<Entry>,
        commit: usize,
        sent_ns: u64,
    ) {
        let Some(leader) = self.peer_index(from) else { return };
        if term < self.term {
            return ctx.send(
                from,
                Msg::Appended {
                    term: self.term,
                    success: false,
                    match_index: 0,
                    sent_ns,
                },
            );
        }
        if term > self.term || self.role != Role::Follower {
            self.become_follower(ctx, term, Some(leader));
        } else {
            self.leader = Some(leader);
            self.reset_election(ctx);
        }
        if prev_index > self.last_index() || self.term_at(prev_index) != prev_term {
            return ctx.send(
                from,
                Msg::Appended {
                    term: self.term,
                    success: false,
                    match_index: prev_index.saturating_sub(1).min(self.last_index()),
                    sent_ns,
                },
            );
        }
        let count = entries.len();
        for (k, entry) in entries.into_iter().enumerate() {
            let index = prev_index + 1 + k;
            if index <= self.last_index() {
                if self.log[index - 1].term == entry.term {
                    continue;
                }
                self.log.truncate(index - 1);
                if self.applied > self.last_index() {
                    // Only a leader-only commit can have applied what the new leader never had:
                    // the state is rebuilt from the log that survives.
                    self.kv = Kv::default();
                    self.applied = 0;
                    self.commit = self.commit.min(self.last_index());
                }
            }
            self.log.push(entry);
        }
        let last_new = prev_index + count;
        if commit > self.commit {
            self.commit = commit.min(last_new).max(self.commit);
        }
        self.apply(ctx);
        ctx.send(
            from,
            Msg::Appended {
                term: self.term,
                success: true,
                match_index: last_new,
                sent_ns,
            },
        );
    }

    fn on_appended(
        &mut self,
        ctx: &mut EtcdCtx<'_>,
        from: NodeId,
        term: u64,
        (success, match_index): (bool, usize),
        sent_ns: u64,
    ) {
        if term > self.term {
            return self.become_follower(ctx, term, None);
        }
        let Some(i) = self.peer_index(from) else { return };
        if self.role != Role::Leader || term != self.term {
            return;
        }
        self.last_ack_ns[i] = self.last_ack_ns[i].max(sent_ns);
        if !self.followed(ctx) {
            // Answers to appends sent before a pause: a newer leader may have been elected
            // since, so this one no longer speaks for the lock (it would record late what that
            // leader already acted on).
            let term = self.term;
            return self.become_follower(ctx, term, None);
        }
        if success {
            self.matched[i] = self.matched[i].max(match_index);
            self.next[i] = self.matched[i] + 1;
            self.advance_commit(ctx);
        } else {
            self.next[i] = (match_index + 1).min(self.next[i].saturating_sub(1)).max(1);
            self.send_append(ctx, i);
        }
    }

    /// Commits the newest entry of this term that a majority has (Raft's rule: never count
    /// replicas for an older term's entry).
    fn advance_commit(&mut self, ctx: &mut EtcdCtx<'_>) {
        if self.cfg.commit != Commit::Majority {
            return;
        }
        for n in (self.commit + 1..=self.last_index()).rev() {
            if self.log[n - 1].term == self.term && self.matched.iter().filter(|m| **m >= n).count() >= self.majority()
            {
                self.commit = n;
                self.apply(ctx);
                return;
            }
        }
    }

    fn apply(&mut self, ctx: &mut EtcdCtx<'_>) {
        while self.applied < self.commit {
            self.applied += 1;
            let command = self.log[self.applied - 1].command.clone();
            self.execute(ctx, self.applied, command);
        }
        self.fire_watches(ctx);
    }

    fn execute(&mut self, ctx: &mut EtcdCtx<'_>, index: usize, command: Command) {
        let first_of_term = self.role == Role::Leader && !self.promoted && self.log[index - 1].term == self.term;
        let leader = self.promoted;
        match command {
            Command::NoOp if first_of_term => self.promote(ctx),
            Command::NoOp => {}
            Command::Expire { lease } => {
                self.expiring.remove(&lease);
                self.deadlines.remove(&lease);
                if let Ok((keys, revision)) = self.kv.lease_revoke(lease) {
                    self.just_expired = Some(lease);
                    if leader {
                        self.record(
                            ctx,
                            EtcdEvent::LeaseExpired {
                                lease: lease as u64,
                                keys: keys.len() as u32,
                                revision,
                            },
                        );
                    }
                }
            }
            Command::Client { client, req, request } => {
                let answer = self.serve(ctx, client, request, leader);
                if self.role == Role::Leader && self.pending.remove(&index) == Some((client, req)) {
                    ctx.send(client, Msg::Answer { req, answer });
                }
            }
        }
        if self.promoted {
            self.record_owner(ctx);
        }
    }

    fn counter(&self) -> u64 {
        self.kv
            .get(COUNTER_KEY)
            .and_then(|kv| kv.value.parse().ok())
            .unwrap_or(0)
    }

    fn serve(&mut self, ctx: &mut EtcdCtx<'_>, client: NodeId, request: Request, leader: bool) -> Answer {
        match request {
            Request::LeaseGrant { lease, ttl_ms } => {
                let ttl_ms = ttl_ms.max(self.min_ttl_ms());
                // A retried grant finds its lease already there: that is success too.
                if self.kv.lease_grant(lease, ttl_ms).is_ok() && leader {
                    self.deadlines.insert(lease, ctx.mono_ns() + ttl_ms as u64 * 1_000_000);
                    self.arm_lessor(ctx);
                }
                Answer::Granted {
                    ttl_ms: self.kv.lease_ttl_ms(lease).unwrap_or(ttl_ms),
                }
            }
            Request::LeaseRevoke { lease } => {
                let _ = self.kv.lease_revoke(lease);
                self.deadlines.remove(&lease);
                Answer::Revoked
            }
            Request::Acquire { lease } => {
                let key = lock_key(lease);
                let absent = Compare {
                    key: key.clone(),
                    op: CmpOp::Equal,
                    target: Target::CreateRevision(0),
                };
                let put = Op::Put {
                    key: key.clone(),
                    value: String::new(),
                    lease,
                };
                match self.kv.txn(&[absent], &[put], &[]) {
                    // One put on its own key: a missing lease is the only refusal it can meet.
                    Err(_) => Answer::LeaseNotFound,
                    Ok(r) => {
                        let my_rev = self.kv.get(&key).map_or(0, |kv| kv.create_revision);
                        if r.succeeded && self.role == Role::Leader && self.cfg.revision_tokens {
                            // The key's create revision is granted here, at the commit, whenever
                            // its client gets to read the answer. A leader not yet promoted
                            // records it too: it may be committing an old leader's entry that
                            // nobody recorded, and a grant announced twice (the old leader had
                            // applied it) names the same key, which the checker knows again.
                            let grant = LockObs::TokenIssued {
                                token: my_rev as u64,
                                lease: Some(lease as u64),
                            };
                            self.record(ctx, grant);
                        }
                        let owner = self.kv.range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1));
                        Answer::Acquired {
                            my_rev,
                            owner_rev: owner.first().map_or(0, |kv| kv.create_revision),
                            revision: self.kv.revision(),
                        }
                    }
                }
            }
            Request::Predecessor { lease, my_rev } => {
                let before = self
                    .kv
                    .range(&Range::prefix("/lock/l/", Order::LastCreate, my_rev - 1, 1));
                Answer::Predecessor {
                    mine_exists: self.kv.get(&lock_key(lease)).is_some(),
                    pred: before.first().map(|kv| (kv.lease, kv.create_revision)),
                    revision: self.kv.revision(),
                }
            }
            Request::ReadCounter => Answer::Counter { value: self.counter() },
            Request::WriteCounter {
                lease,
                my_rev,
                value,
                based_on,
            } => {
                let prev_value = self.counter();
                let still_mine = Compare {
                    key: lock_key(lease),
                    op: CmpOp::Equal,
                    target: Target::CreateRevision(my_rev),
                };
                let put = Op::Put {
                    key: COUNTER_KEY.into(),
                    value: value.to_string(),
                    lease: 0,
                };
                let ok = self.kv.txn(&[still_mine], &[put], &[]).is_ok_and(|r| r.succeeded);
                if leader && ok {
                    self.record(
                        ctx,
                        LockObs::WriteApplied {
                            client,
                            lease: lease as u64,
                            token: Some(my_rev as u64),
                            value,
                            based_on,
                            prev_value,
                        },
                    );
                } else if leader {
                    self.record(
                        ctx,
                        EtcdEvent::CompareFailed {
                            client,
                            lock_rev: my_rev,
                        },
                    );
                }
                Answer::Written { ok }
            }
        }
    }

    fn keep_alive(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, lease: i64) {
        if self.role != Role::Leader {
            let hint = self.leader.map(|l| self.peers[l]);
            return ctx.send(from, Msg::KeepAliveNotLeader { hint });
        }
        if !self.promoted {
            return self.held_keepalives.push((from, lease));
        }
        let ttl_ms = match self.kv.lease_ttl_ms(lease) {
            Some(ttl) if !self.expiring.contains(&lease) => ttl,
            _ => return ctx.send(from, Msg::KeptAlive { lease, ttl_ms: -1 }),
        };
        let deadline = ctx.mono_ns() + ttl_ms as u64 * 1_000_000;
        self.deadlines.insert(lease, deadline);
        if self.owner.is_some_and(|(l, _)| l == lease) {
            self.record(
                ctx,
                LockObs::KeyExtended {
                    lease: lease as u64,
                    expiry: Some(Expiry {
                        clock: ClockKind::Mono,
                        at_ns: deadline as i64,
                    }),
                },
            );
        }
        ctx.send(from, Msg::KeptAlive { lease, ttl_ms });
    }

    /// Sets the lessor's timer for the earliest lease deadline, unless it is set for that or
    /// an earlier instant (an early firing re-arms).
    fn arm_lessor(&mut self, ctx: &mut EtcdCtx<'_>) {
        let Some(at) = self
            .deadlines
            .iter()
            .filter(|(l, _)| !self.expiring.contains(l))
            .map(|(_, d)| *d)
            .min()
        else {
            return;
        };
        if self.lessor_armed_ns.is_some_and(|armed| armed <= at) {
            return;
        }
        self.lessor_armed_ns = Some(at);
        ctx.set_timer(LESSOR, at.saturating_sub(ctx.mono_ns()));
    }

    /// Answers every watch whose key is gone in a store at least at its start revision.
    fn fire_watches(&mut self, ctx: &mut EtcdCtx<'_>) {
        let revision = self.kv.revision();
        let kv = &self.kv;
        self.watches.retain(|w| {
            let gone = revision >= w.from_revision && kv.get(&w.key).is_none();
            if gone {
                ctx.send(w.client, Msg::Deleted { watch: w.watch });
            }
            !gone
        });
    }

    /// As leader: records a change of lock owner (lowest create revision under the prefix).
    fn record_owner(&mut self, ctx: &mut EtcdCtx<'_>) {
        let owner = self
            .kv
            .range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1))
            .first()
            .map(|kv| (kv.lease, kv.create_revision));
        let expired = self.just_expired.take();
        if owner == self.owner {
            return;
        }
        if let Some((old, _)) = self.owner
            && self.kv.get(&lock_key(old)).is_none()
        {
            let fact = if expired == Some(old) {
                LockObs::KeyExpired { lease: old as u64 }
            } else {
                LockObs::KeyDeleted {
                    lease: old as u64,
                    cause: DeleteCause::Release,
                }
            };
            self.record(ctx, fact);
        }
        if let Some((lease, _)) = owner {
            let expiry = self.deadlines.get(&lease).map(|d| Expiry {
                clock: ClockKind::Mono,
                at_ns: *d as i64,
            });
            self.record(
                ctx,
                LockObs::KeySet {
                    lease: lease as u64,
                    expiry,
                },
            );
        }
        self.owner = owner;
    }
}
