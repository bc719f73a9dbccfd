//! A ZooKeeper client running the lock recipe of the Recipes page ("Locks") and seed 004
//! 9.4.1 in the lock client's loop of DESIGN section 4b: open a session and keep it alive with
//! pings; create an ephemeral sequential node under the lock path; read the children; hold if
//! mine is the lowest, else set an `exists` watch on the node just before mine and, when it
//! fires, read the children again; work with the lock; release by deleting my node.
//!
//! Its connection states are Curator's: `connected`; `suspended` once it has heard nothing
//! from its server for the read timeout (ZooKeeper's client: 2/3 of the session timeout; it
//! pings every third of it); `lost` when the server, reached again, says the session expired.
//! A client that treats `suspended` as lost (Curator's documented advice, `suspended = "lost"`)
//! holds until its read timeout after it last heard from the server — its deadline, which it
//! checks before writing (`deadline_check`). One that treats it as still holding
//! (`suspended = "holding"`, wrong) has no deadline: it holds until told its session expired.
//!
//! The known-wrong variants: `watch = "parent"` (every waiter watches the lock path: each
//! change wakes them all — the herd — an availability and load problem, not a safety one) and
//! `reread_children = false` (take the lock when the predecessor's watch fires, without reading
//! the children again: acting on a stale view, seed 004 9.4.4 point 3).

mod connection;
mod holding;
mod recipe;

use locksim_sim::{Ctx, NodeId, TimerTag};
use serde::Serialize;

use super::msg::{Answer, Msg, Op};
use super::obs::ZkObs;
use super::tree::{SessionId, Zxid};
use crate::lock::knobs::ClientConfig;
use crate::lock::resource::{ResourceOp, ResourceReply};

const STEP: TimerTag = 0;
const TIMEOUT: TimerTag = 1;
const PING: TimerTag = 2;
const SILENCE: TimerTag = 3;

/// What a waiter watches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WatchTarget {
    /// The node just before mine (`exists` watch): one waiter woken per release.
    Predecessor,
    /// The lock path's children: every waiter woken by every change (the herd).
    Parent,
}

/// What a holder makes of `SUSPENDED`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Suspended {
    /// The lock is lost (Curator's advice).
    Lost,
    /// Wrong: still held, until the session is known to be expired.
    Holding,
}

/// The ZooKeeper-specific client settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ZkClientConfig {
    pub session_timeout_ns: u64,
    pub watch: WatchTarget,
    pub reread_children: bool,
    pub suspended: Suspended,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Starting,
    Connecting,
    Creating,
    /// Reading the children (first, or again after a watch fired).
    Finding,
    /// Setting the watch on the predecessor.
    Checking,
    Waiting,
    Reading,
    Working,
    Writing,
    Releasing,
    Thinking,
}

pub struct ZkClient {
    cfg: ClientConfig,
    zk: ZkClientConfig,
    index: u64,
    leader: NodeId,
    resource: NodeId,
    // Volatile: a crash resets it (its session lives on at the leader until it expires).
    phase: Phase,
    session: Option<SessionId>,
    timeout_ns: u64,
    connected: bool,
    /// The epoch of the server its connection is to.
    server_epoch: u32,
    /// Watch notifications received on this connection.
    notified: u64,
    last_heard_ns: u64,
    next_req: u64,
    req: u64,
    request: Option<Op>,
    lease: u64,
    /// My lock node's name and czxid, once known.
    mine: Option<(String, Option<Zxid>)>,
    /// What the waiter waits on: its predecessor's name (or the lowest node, watching the
    /// parent), to set the watch again after a reconnect.
    behind: Option<String>,
    holding: bool,
    token: Option<u64>,
    read_value: u64,
}

type ClientCtx<'a> = Ctx<'a, Msg, ZkObs>;

impl ZkClient {
    pub fn new(cfg: ClientConfig, zk: ZkClientConfig, index: u64, leader: NodeId, resource: NodeId) -> Self {
        ZkClient {
            cfg,
            zk,
            index,
            leader,
            resource,
            phase: Phase::Starting,
            session: None,
            timeout_ns: zk.session_timeout_ns,
            connected: false,
            server_epoch: 0,
            notified: 0,
            last_heard_ns: 0,
            next_req: 0,
            req: 0,
            request: None,
            lease: 0,
            mine: None,
            behind: None,
            holding: false,
            token: None,
            read_value: 0,
        }
    }

    fn record(&self, ctx: &mut ClientCtx<'_>, obs: impl Into<ZkObs>) {
        ctx.record(obs.into());
    }

    pub fn on_start(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Starting;
        ctx.set_timer(STEP, self.index * self.cfg.start_stagger_ns);
    }

    pub fn on_crash(&mut self) {
        *self = ZkClient::new(self.cfg, self.zk, self.index, self.leader, self.resource);
    }

    pub fn on_timer(&mut self, ctx: &mut ClientCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Starting | Phase::Thinking) => self.next_round(ctx),
            (STEP, Phase::Working) => self.finish_work(ctx),
            (TIMEOUT, _) => self.on_timeout(ctx),
            (PING, _) => self.ping(ctx),
            (SILENCE, _) => self.silence(ctx),
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut ClientCtx<'_>, msg: Msg) {
        match msg {
            Msg::Connected {
                session,
                timeout_ms,
                epoch,
            } => self.connected(ctx, session, timeout_ms, epoch),
            Msg::Expired { session } if Some(session) == self.session => self.expired(ctx),
            Msg::Pong { epoch, notified } => {
                self.heard(ctx);
                self.pong(ctx, epoch, notified);
            }
            Msg::Answer { req, answer } if req == self.req && req != 0 => {
                self.heard(ctx);
                self.on_answer(ctx, answer);
            }
            Msg::Watch { kind, path } => {
                self.notified += 1;
                self.heard(ctx);
                self.watch_fired(ctx, kind, path);
            }
            Msg::ResourceReply { req, reply } if req == self.req && req != 0 => {
                self.req = 0;
                ctx.cancel_timer(TIMEOUT);
                match reply {
                    ResourceReply::Value(v) => self.read(ctx, v),
                    ResourceReply::Accepted => self.written(ctx, true, 0),
                    ResourceReply::Rejected { max } => self.written(ctx, false, max),
                }
            }
            _ => {}
        }
    }

    /// Sends a request of the session to the leader.
    fn ask(&mut self, ctx: &mut ClientCtx<'_>, op: Op) {
        let Some(session) = self.session else { return };
        self.next_req += 1;
        self.req = self.next_req;
        self.request = Some(op.clone());
        ctx.send(
            self.leader,
            Msg::Request {
                req: self.req,
                session,
                op,
            },
        );
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
            Phase::Connecting => self.connect(ctx),
            // The create's answer is lost: look for my node among the children (Curator's
            // protected mode) rather than create a second one.
            Phase::Creating => self.find(ctx),
            Phase::Finding | Phase::Checking | Phase::Releasing => {
                if let Some(op) = self.request.take() {
                    self.ask(ctx, op);
                }
            }
            Phase::Writing => {
                self.record(ctx, crate::lock::LockObs::WriteTimedOut);
                self.release(ctx);
            }
            Phase::Reading => self.release(ctx),
            _ => {}
        }
    }

    fn on_answer(&mut self, ctx: &mut ClientCtx<'_>, answer: Answer) {
        self.req = 0;
        ctx.cancel_timer(TIMEOUT);
        match (self.phase, answer) {
            (Phase::Creating, Answer::Created { name, czxid }) => {
                self.mine = Some((name, Some(czxid)));
                self.find(ctx);
            }
            (Phase::Finding, Answer::Children { names }) => self.children_read(ctx, names),
            (Phase::Checking, Answer::Exists { czxid }) => self.checked(ctx, czxid),
            (Phase::Releasing, Answer::Deleted) => self.think(ctx),
            _ => {}
        }
    }
}
