//! Leader election (`kind = "election"`, seed 004 section 9.5): `servers` servers
//! `server-<i>` elect a leader, which acts on an external `resource` every `act_every_ms`,
//! fenced by term or not. With `algorithm = "raft"` they replicate a register that `clients`
//! clients `client-<i>` read and write through the leader; knobs choose how reads are served
//! (ReadIndex, or a leader lease) and CheckQuorum on or off. With `algorithm = "bully"` they
//! only elect a coordinator (bully replicates nothing, so there are no clients); with
//! `algorithm = "lease"` the leader is whoever holds a TTL key in a `store` (no clients
//! either), and `stop` says whether stepping down stops its writes or only its role.
//!
//! Raft here is the paper's (terms, one vote per term, majorities, the log restriction, the
//! commit rule for the leader's own term) with etcd's CheckQuorum; bully is 9.5.1's, with a
//! coordinator epoch in place of a term (`bully.rs`); the lease leader is 9.5.3's, its key's
//! epoch as its term (`lease.rs`, `store.rs`).

pub mod bully;
pub mod check;
pub mod client;
pub mod lease;
pub mod msg;
pub mod obs;
mod parse;
pub mod resource;
pub mod server;
pub mod store;

use bully::{Bully, BullyConfig};
use lease::{Candidate, LeaseConfig};
use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};
use store::Store;

use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use client::{Client, ClientConfig};
use msg::Msg;
use obs::{CLIENT_EVENTS, ElectObs, RESOURCE_EVENTS, SERVER_EVENTS};
use resource::Resource;
use server::Server;

/// A vote is a bit of a `u64`.
const MAX_SERVERS: u64 = 63;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "election",
    summary: "servers electing a leader — Raft (terms, majority votes, the log restriction) serving a register by ReadIndex or a leader lease, with CheckQuorum on or off, bully (highest id wins), or a holder of a TTL key in a lock service — that acts on an external resource fenced by term or not",
    parse: Election::parse,
    invariants: check::ELECTION_INVARIANTS,
    protections: &[
        "protocol.read",
        "protocol.check_quorum",
        "protocol.fencing",
        "protocol.stop",
    ],
};

/// Which election the servers run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Raft,
    Bully(BullyConfig),
    Lease(LeaseConfig),
}

/// How the leader serves reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReadMode {
    ReadIndex,
    Lease,
}

/// How election timeouts are drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Spread {
    /// Raft's: uniform in [e, 2e).
    Random,
    /// server-i waits e + i x e/20: who campaigns first is known.
    Ranked,
}

/// The servers' knobs, shared by every server.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RaftConfig {
    pub election_ns: u64,
    pub spread: Spread,
    pub heartbeat_ns: u64,
    pub read: ReadMode,
    pub lease_ns: u64,
    pub check_quorum: bool,
    pub act_every_ns: u64,
}

/// `kind = "election"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Election {
    pub algorithm: Algorithm,
    pub servers: u32,
    pub clients: u32,
    pub raft: RaftConfig,
    pub client: ClientConfig,
    pub fenced: bool,
    pub readers: u32,
}

impl Election {
    /// The store, when there is one, comes last: the other nodes keep the ids they have
    /// without it.
    fn declare(&self) -> (Layout, Vec<NodeId>, Vec<NodeId>, NodeId, Option<NodeId>) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, CLIENT_EVENTS);
        let servers = layout.group("server", self.servers, Role::Server, SERVER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let store =
            matches!(self.algorithm, Algorithm::Lease(_)).then(|| layout.one("store", Role::Server, SERVER_EVENTS));
        (layout, clients, servers, resource, store)
    }
}

impl Protocol for Election {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (layout, clients, servers, resource, store) = self.declare();
        let mut nodes = layout.setups(|n| setting.clock_of(n));
        for (i, &c) in clients.iter().enumerate() {
            let reader = i as u32 >= self.clients - self.readers;
            nodes.add(
                c,
                ElectNode::Client(Client::new(self.client, i as u64, servers.clone(), reader)),
            );
        }
        for (i, &s) in servers.iter().enumerate() {
            let node = match self.algorithm {
                Algorithm::Raft => ElectNode::Server(Box::new(Server::new(self.raft, i, servers.clone(), resource))),
                Algorithm::Bully(cfg) => ElectNode::Bully(Bully::new(cfg, i, servers.clone(), resource)),
                Algorithm::Lease(cfg) => ElectNode::Candidate(Candidate::new(
                    cfg,
                    i == 0,
                    store.expect("declared with the lease"),
                    resource,
                )),
            };
            nodes.add(s, node);
        }
        nodes.add(resource, ElectNode::Resource(Resource::new(self.fenced)));
        if let (Some(store), Algorithm::Lease(cfg)) = (store, self.algorithm) {
            nodes.add(store, ElectNode::Store(Store::new(cfg.ttl_ns)));
        }
        let nodes: Vec<NodeSetup<ElectNode>> = nodes.finish();
        run_world(nodes, setting, seed, recording, check::ElectionJudge::default())
    }
}

/// Every role of an election world.
pub enum ElectNode {
    Client(Client),
    /// Boxed: a server's state is three times a client's.
    Server(Box<Server>),
    Bully(Bully),
    Candidate(Candidate),
    Store(Store),
    Resource(Resource),
}

type ElectCtx<'a> = Ctx<'a, Msg, ElectObs>;

impl Node for ElectNode {
    type Msg = Msg;
    type Obs = ElectObs;

    fn on_start(&mut self, ctx: &mut ElectCtx<'_>) {
        match self {
            ElectNode::Client(n) => n.on_start(ctx),
            ElectNode::Server(n) => n.on_start(ctx),
            ElectNode::Bully(n) => n.on_start(ctx),
            ElectNode::Candidate(n) => n.on_start(ctx),
            ElectNode::Store(_) | ElectNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut ElectCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            ElectNode::Client(n) => n.on_msg(ctx, msg),
            ElectNode::Server(n) => n.on_msg(ctx, from, msg),
            ElectNode::Bully(n) => n.on_msg(ctx, from, msg),
            ElectNode::Candidate(n) => n.on_msg(ctx, from, msg),
            ElectNode::Store(n) => n.on_msg(ctx, from, msg),
            ElectNode::Resource(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut ElectCtx<'_>, tag: TimerTag) {
        match self {
            ElectNode::Client(n) => n.on_timer(ctx, tag),
            ElectNode::Server(n) => n.on_timer(ctx, tag),
            ElectNode::Bully(n) => n.on_timer(ctx, tag),
            ElectNode::Candidate(n) => n.on_timer(ctx, tag),
            ElectNode::Store(_) | ElectNode::Resource(_) => {}
        }
    }

    /// A client forgets its operation; a server keeps its term, vote and log (a bully node its
    /// epoch; a lease candidate nothing); the store loses its key but not its epoch; the
    /// resource keeps what it accepted.
    fn on_crash(&mut self, ctx: &mut ElectCtx<'_>) {
        match self {
            ElectNode::Client(n) => n.on_crash(),
            ElectNode::Server(n) => n.on_crash(ctx),
            ElectNode::Bully(n) => n.on_crash(ctx),
            ElectNode::Candidate(n) => n.on_crash(ctx),
            ElectNode::Store(n) => n.on_crash(),
            ElectNode::Resource(_) => {}
        }
    }
}
