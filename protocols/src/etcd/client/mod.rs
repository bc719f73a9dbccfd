//! The etcd lock recipe (clientv3 `concurrency.Mutex` over a `Session`), driving the lock
//! client's loop of DESIGN section 4b: grant a lease and keep it alive; put `/lock/l/<lease>`
//! attached to it; if an older key exists, watch the newest one before mine and, when it is
//! deleted, look again; hold when no older key is left; release by revoking the lease.
//!
//! `waiter_recheck` is the etcd 3.4.3 bug Jepsen found (etcd issue 11456): the Mutex returned
//! success without checking that its own key still existed, so a waiter whose lease expired
//! while it queued could be told it held the lock. The fix checks the key; without it, nothing.
//!
//! What the client knows about its lease: the session learns the TTL with each keep-alive
//! answer. When its lease deadline is, is `session_deadline`: `from-send` counts from the send
//! of the last answered keep-alive (DESIGN 4b's conservative client); `clientv3` is what
//! clientv3's lessor does — `recvKeepAlive` sets the deadline to the answer's *receipt* + TTL,
//! and `deadlineLoop` compares it with the time once a second, closing the session (and
//! `Session.Done()`) at the first tick past it. A waiter ignores its session — `Lock()` waits
//! on the watch, not on `Session.Done()` — and only a checking holder acts on "lease gone".
//! With `deadline_check = "never"` the application does not look at its session at all, as
//! most Mutex users do: it goes on to write even after a keep-alive answered TTL -1. Its
//! deadline is still tracked and recorded, so it is judged to hold only until then, like
//! every client (DESIGN 5, `mutual_exclusion`).

mod acquire;
mod holding;
mod session;

use std::collections::VecDeque;

use locksim_sim::{Ctx, NodeId, TimerTag};
use serde::Serialize;

use super::msg::{Answer, Msg, Request};
use super::obs::{EtcdEvent, EtcdObs};
use crate::lock::LockObs;
use crate::lock::knobs::ClientConfig;
use crate::lock::resource::{ResourceOp, ResourceReply};

const STEP: TimerTag = 0;
const TIMEOUT: TimerTag = 1;
const KEEPALIVE: TimerTag = 2;

/// The etcd-specific client settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EtcdClientConfig {
    pub keepalive_ns: u64,
    pub waiter_recheck: bool,
    /// The counter lives in the store and is written in a transaction comparing the lock key.
    pub txn_resource: bool,
    pub session_deadline: SessionDeadline,
}

/// Where the client's lease deadline counts from, and when it notices it has passed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SessionDeadline {
    /// The send of the last answered keep-alive (or of the grant) + TTL, checked exactly.
    FromSend,
    /// clientv3's lessor: the receipt of the last keep-alive answer (or of the grant) + TTL,
    /// noticed at the first of its once-a-second checks past it.
    Clientv3,
}

/// clientv3 lessor's `deadlineLoop` period.
const DEADLINE_LOOP_NS: u64 = 1_000_000_000;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Starting,
    Granting,
    Acquiring,
    /// Asking for the key to wait for (first, or again after a watch fired).
    Finding,
    Waiting,
    Reading,
    Working,
    Writing,
    Releasing,
    Thinking,
}

pub struct EtcdClient {
    cfg: ClientConfig,
    etcd: EtcdClientConfig,
    index: u64,
    servers: Vec<NodeId>,
    resource: NodeId,
    // Volatile: a crash resets it.
    phase: Phase,
    /// Which server it believes leads.
    leader: usize,
    next_req: u64,
    req: u64,
    /// The outstanding store request, to send again to another server.
    request: Option<Request>,
    lease: i64,
    grant_sent_ns: u64,
    /// Send times of keep-alives not answered yet, oldest first.
    keepalives_sent_ns: VecDeque<u64>,
    my_rev: i64,
    deadline_mono_ns: u64,
    watch: u64,
    /// What the waiter watches: its predecessor's key, from the revision it was found at.
    /// Kept so the watch can be set again on another member: a watch lives in the memory of
    /// the member that serves the client's connection, and clientv3 re-creates it when it
    /// reconnects elsewhere.
    watched: Option<(String, i64)>,
    holding: bool,
    token: Option<u64>,
    read_value: u64,
}

type ClientCtx<'a> = Ctx<'a, Msg, EtcdObs>;

impl EtcdClient {
    pub fn new(cfg: ClientConfig, etcd: EtcdClientConfig, index: u64, servers: Vec<NodeId>, resource: NodeId) -> Self {
        EtcdClient {
            cfg,
            etcd,
            index,
            servers,
            resource,
            phase: Phase::Starting,
            leader: 0,
            next_req: 0,
            req: 0,
            request: None,
            lease: 0,
            grant_sent_ns: 0,
            keepalives_sent_ns: VecDeque::new(),
            my_rev: 0,
            deadline_mono_ns: 0,
            watch: 0,
            watched: None,
            holding: false,
            token: None,
            read_value: 0,
        }
    }

    fn record(&self, ctx: &mut ClientCtx<'_>, obs: impl Into<EtcdObs>) {
        ctx.record(obs.into());
    }

    pub fn on_start(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Starting;
        ctx.set_timer(STEP, self.index * self.cfg.start_stagger_ns);
    }

    pub fn on_crash(&mut self) {
        let servers = std::mem::take(&mut self.servers);
        *self = EtcdClient::new(self.cfg, self.etcd, self.index, servers, self.resource);
    }

    pub fn on_timer(&mut self, ctx: &mut ClientCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Starting | Phase::Thinking) => self.begin_round(ctx),
            (STEP, Phase::Working) => self.finish_work(ctx),
            (TIMEOUT, _) => self.on_timeout(ctx),
            (KEEPALIVE, _) if self.lease != 0 => {
                if self.keepalives_sent_ns.len() >= 2 {
                    // Two keep-alives unanswered: that member is gone; reconnect to another.
                    self.keepalives_sent_ns.clear();
                    self.follow(ctx, None);
                }
                self.keepalives_sent_ns.push_back(ctx.mono_ns());
                ctx.send(self.servers[self.leader], Msg::KeepAlive { lease: self.lease });
                ctx.set_timer(KEEPALIVE, self.etcd.keepalive_ns);
            }
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut ClientCtx<'_>, msg: Msg) {
        match msg {
            Msg::Answer { req, answer } if req == self.req && req != 0 => self.on_answer(ctx, answer),
            Msg::ResourceReply { req, reply } if req == self.req && req != 0 => {
                self.req = 0;
                ctx.cancel_timer(TIMEOUT);
                match reply {
                    ResourceReply::Value(v) => self.read(ctx, v),
                    ResourceReply::Accepted => self.written(ctx, true, 0),
                    ResourceReply::Rejected { max } => self.written(ctx, false, max),
                }
            }
            Msg::KeptAlive { lease, ttl_ms } if lease == self.lease => self.kept_alive(ctx, ttl_ms),
            Msg::KeepAliveNotLeader { hint } => self.follow(ctx, hint),
            Msg::Deleted { watch } if watch == self.watch && self.phase == Phase::Waiting => {
                self.record(ctx, EtcdEvent::WatchFired);
                self.phase = Phase::Finding;
                self.ask(
                    ctx,
                    Request::Predecessor {
                        lease: self.lease,
                        my_rev: self.my_rev,
                    },
                );
            }
            _ => {}
        }
    }

    /// Believes `hint` leads, or tries the next server. The client's connection moves there,
    /// and a waiter's watch with it: the member it was set on may be gone (crashed, restarted
    /// with no watches), and a watch nobody serves would leave the waiter queued for ever.
    fn follow(&mut self, ctx: &mut ClientCtx<'_>, hint: Option<NodeId>) {
        let before = self.leader;
        self.leader = match hint.and_then(|h| self.servers.iter().position(|s| *s == h)) {
            Some(i) => i,
            None => (self.leader + 1) % self.servers.len(),
        };
        if self.leader != before && self.phase == Phase::Waiting {
            self.send_watch(ctx);
        }
    }

    /// Sets the waiter's watch on the member it is connected to. A watch set again keeps its
    /// id: whichever member answers first wakes the waiter, and a later answer finds it no
    /// longer waiting on that id.
    fn send_watch(&mut self, ctx: &mut ClientCtx<'_>) {
        if let Some((key, from_revision)) = &self.watched {
            ctx.send(
                self.servers[self.leader],
                Msg::Watch {
                    key: key.clone(),
                    from_revision: *from_revision,
                    watch: self.watch,
                },
            );
        }
    }

    /// Sends a store request to the believed leader.
    fn ask(&mut self, ctx: &mut ClientCtx<'_>, request: Request) {
        self.next_req += 1;
        self.req = self.next_req;
        self.request = Some(request.clone());
        ctx.send(self.servers[self.leader], Msg::Request { req: self.req, request });
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn ask_resource(&mut self, ctx: &mut ClientCtx<'_>, op: ResourceOp) {
        self.next_req += 1;
        self.req = self.next_req;
        self.request = None;
        ctx.send(self.resource, Msg::Resource { req: self.req, op });
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn on_timeout(&mut self, ctx: &mut ClientCtx<'_>) {
        self.req = 0;
        match self.phase {
            Phase::Writing => {
                self.record(ctx, LockObs::WriteTimedOut);
                self.release(ctx);
            }
            Phase::Reading => self.release(ctx),
            Phase::Releasing => self.think(ctx),
            Phase::Granting | Phase::Acquiring | Phase::Finding => {
                // No answer: maybe no leader there. Ask the next server the same thing.
                self.follow(ctx, None);
                if let Some(request) = self.request.take() {
                    self.ask(ctx, request);
                }
            }
            _ => {}
        }
    }

    fn on_answer(&mut self, ctx: &mut ClientCtx<'_>, answer: Answer) {
        self.req = 0;
        ctx.cancel_timer(TIMEOUT);
        match (self.phase, answer) {
            (_, Answer::NotLeader { hint }) => {
                let known = hint.is_some();
                self.follow(ctx, hint);
                let Some(request) = self.request.take() else { return };
                if known {
                    self.ask(ctx, request);
                } else {
                    // An election is under way: ask again after the retry delay.
                    self.request = Some(request);
                    ctx.set_timer(TIMEOUT, self.cfg.retry_ns);
                }
            }
            (Phase::Granting, Answer::Granted { ttl_ms }) => self.lease_granted(ctx, ttl_ms),
            (Phase::Acquiring, Answer::Acquired { my_rev, owner_rev, .. }) => self.key_put(ctx, my_rev, owner_rev),
            (Phase::Acquiring, Answer::LeaseNotFound) => self.give_up(ctx, "its lease expired before its key was put"),
            (
                Phase::Finding,
                Answer::Predecessor {
                    mine_exists,
                    pred,
                    revision,
                },
            ) => self.predecessor_found(ctx, mine_exists, pred, revision),
            (Phase::Reading, Answer::Counter { value }) => self.read(ctx, value),
            (Phase::Writing, Answer::Written { ok }) => self.written(ctx, ok, 0),
            (Phase::Releasing, _) => self.think(ctx),
            _ => {}
        }
    }
}
