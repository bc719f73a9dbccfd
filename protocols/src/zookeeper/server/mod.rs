//! A ZooKeeper ensemble member. `server-0` leads; the others follow. The leader orders every
//! request in one pipeline, proposes each write to the followers and commits it — applies it
//! to the tree and answers — once a majority (itself included) has logged it, in order, as ZAB
//! does. A read waits in the same pipeline behind the writes before it, so a client reads its
//! own writes, as ZooKeeper's per-session ordering promises.
//!
//! What the model leaves out, and why the stories do not need it: leader election (a leader
//! that crashes comes back as leader of the next epoch, with its log — ZooKeeper logs before it
//! acknowledges — and its sessions given a fresh timeout, as a new leader gives them; a leader
//! cut off from its followers commits nothing until the partition heals, where ZooKeeper would
//! elect another: either way nothing commits on the minority side), and clients connecting to
//! followers (every client talks to the leader, so a read is never stale).
//!
//! Split by concern: `sessions.rs` is the leader's session tracker (timeouts, touches, the
//! expiry tick on its own monotonic clock); `apply.rs` applies committed transactions and
//! records the lock facts.

mod apply;
mod sessions;

pub use sessions::negotiated_timeout_ns;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::{LOCK_PATH, Msg, Op};
use super::obs::ZkObs;
use super::tree::{CreateMode, SessionId, Tree, Zxid};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// ZooKeeper's `tickTime`: the session tracker's expiry granularity, and the bounds of a
    /// negotiated session timeout (2 to 20 ticks).
    pub tick_ns: u64,
    /// The lock node's `czxid` is the clients' fencing token: record it as issued.
    pub czxid_tokens: bool,
}

const TICK: TimerTag = 0;

type ZkCtx<'a> = Ctx<'a, Msg, ZkObs>;

/// A write transaction, as the leader proposes it.
#[derive(Clone, Debug)]
enum Txn {
    CreateSession {
        timeout_ns: u64,
    },
    /// The session tracker expired the session.
    Expire,
    Create {
        lease: u64,
    },
    Delete {
        name: String,
    },
}

/// One request in the leader's pipeline: a write waiting for its majority, or a read waiting
/// for the writes before it.
struct Pending {
    zxid: Option<Zxid>,
    acks: BTreeSet<NodeId>,
    from: NodeId,
    session: SessionId,
    req: u64,
    work: Work,
}

enum Work {
    Write(Txn),
    Read(Op),
}

pub struct ZkServer {
    cfg: ServerConfig,
    me: usize,
    peers: Vec<NodeId>,
    // Persisted: the committed tree, its sessions' timeouts, the epoch, the session counter.
    tree: Tree,
    timeouts: BTreeMap<SessionId, u64>,
    epoch: u32,
    sessions_made: u64,
    /// The lock owner last recorded (its acquisition's lease).
    owner: Option<u64>,
    // Volatile.
    pipeline: VecDeque<Pending>,
    /// Each live session's expiry on this leader's monotonic clock, rounded up to a tick.
    expiry: BTreeMap<SessionId, u64>,
    /// Sessions whose expiry is proposed: their requests are refused from then on.
    closing: BTreeSet<SessionId>,
    /// Where each session's connection is, for its answers and watch notifications.
    conns: BTreeMap<SessionId, NodeId>,
    /// Watch notifications sent on each session's connection since it was made.
    notified: BTreeMap<SessionId, u64>,
}

impl ZkServer {
    /// A member whose log already holds the lock path (`/locks/l`, made by whoever set the
    /// ensemble up).
    pub fn new(cfg: ServerConfig, me: usize, peers: Vec<NodeId>) -> Self {
        let mut tree = Tree::new(1);
        for path in ["/locks", LOCK_PATH] {
            // Cannot fail: the parent exists and the name does not.
            let _ = tree.create(path, b"", CreateMode::Persistent, 0);
        }
        ZkServer {
            cfg,
            me,
            peers,
            tree,
            timeouts: BTreeMap::new(),
            epoch: 1,
            sessions_made: 0,
            owner: None,
            pipeline: VecDeque::new(),
            expiry: BTreeMap::new(),
            closing: BTreeSet::new(),
            conns: BTreeMap::new(),
            notified: BTreeMap::new(),
        }
    }

    fn leads(&self) -> bool {
        self.me == 0
    }

    fn record(&self, ctx: &mut ZkCtx<'_>, obs: impl Into<ZkObs>) {
        ctx.record(obs.into());
    }

    pub fn on_start(&mut self, ctx: &mut ZkCtx<'_>) {
        if self.leads() {
            self.start_tracking(ctx);
        }
    }

    /// A crash loses what lives in memory: the pipeline (nothing in it was answered), the
    /// session deadlines, the connections and the watches. The log survives; the next start
    /// is a new epoch, so zxids keep growing.
    pub fn on_crash(&mut self) {
        self.pipeline.clear();
        self.expiry.clear();
        self.closing.clear();
        self.conns.clear();
        self.notified.clear();
        self.tree.forget_watches();
        self.epoch += 1;
        self.tree.new_epoch(self.epoch);
    }

    pub fn on_timer(&mut self, ctx: &mut ZkCtx<'_>, tag: TimerTag) {
        if tag == TICK && self.leads() {
            self.tick(ctx);
        }
    }

    pub fn on_msg(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, msg: Msg) {
        if !self.leads() {
            // A follower logs what the leader proposes and says so.
            if let Msg::Propose { zxid } = msg {
                ctx.send(from, Msg::Ack { zxid });
            }
            return;
        }
        match msg {
            Msg::Connect { session, timeout_ms } => self.connect(ctx, from, session, timeout_ms),
            // A message from an expired session is answered `Expired` by `touch`, and goes no
            // further.
            Msg::Ping { session } if self.touch(ctx, from, session) => {
                let notified = self.notified.get(&session).copied().unwrap_or(0);
                ctx.send(
                    from,
                    Msg::Pong {
                        epoch: self.epoch,
                        notified,
                    },
                )
            }
            Msg::Request { req, session, op } if self.touch(ctx, from, session) => {
                let work = match op {
                    Op::Create { lease } => Work::Write(Txn::Create { lease }),
                    Op::Delete { name } => Work::Write(Txn::Delete { name }),
                    read => Work::Read(read),
                };
                self.enqueue(ctx, from, session, req, work);
            }
            Msg::Ack { zxid } => {
                if let Some(p) = self.pipeline.iter_mut().find(|p| p.zxid == Some(zxid)) {
                    p.acks.insert(from);
                }
                self.advance(ctx);
            }
            _ => {}
        }
    }

    /// Puts a request in the pipeline; a write is proposed to the followers at once.
    fn enqueue(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, session: SessionId, req: u64, work: Work) {
        let zxid = match &work {
            Work::Write(_) => {
                let writes = self.pipeline.iter().filter(|p| p.zxid.is_some()).count() as u64;
                let zxid = self.tree.last_zxid() + writes + 1;
                for (i, &peer) in self.peers.iter().enumerate() {
                    if i != self.me {
                        ctx.send(peer, Msg::Propose { zxid });
                    }
                }
                Some(zxid)
            }
            Work::Read(_) => None,
        };
        self.pipeline.push_back(Pending {
            zxid,
            acks: BTreeSet::from([ctx.me()]),
            from,
            session,
            req,
            work,
        });
        self.advance(ctx);
    }

    /// Commits what can be: the pipeline's head, while it is a read or a write a majority has.
    fn advance(&mut self, ctx: &mut ZkCtx<'_>) {
        let majority = self.peers.len() / 2 + 1;
        while let Some(head) = self.pipeline.front() {
            if head.zxid.is_some() && head.acks.len() < majority {
                return;
            }
            let Some(p) = self.pipeline.pop_front() else { return };
            match p.work {
                Work::Write(txn) => self.apply(ctx, p.from, p.session, p.req, txn),
                Work::Read(op) => self.read(ctx, p.from, p.session, p.req, op),
            }
        }
    }

    /// Proposes again what a majority has not logged yet: a proposal lost to a partition or a
    /// crashed follower would otherwise stall the pipeline for ever.
    fn repropose(&mut self, ctx: &mut ZkCtx<'_>) {
        let majority = self.peers.len() / 2 + 1;
        for p in self.pipeline.iter().filter(|p| p.acks.len() < majority) {
            if let Some(zxid) = p.zxid {
                for (i, &peer) in self.peers.iter().enumerate() {
                    if i != self.me && !p.acks.contains(&peer) {
                        ctx.send(peer, Msg::Propose { zxid });
                    }
                }
            }
        }
    }
}
