//! Leader election (`kind = "election"`, seed 004 section 9.5): `servers` servers
//! `server-<i>` elect a leader, which acts on an external `resource` every `act_every_ms`,
//! fenced by term or not. With `algorithm = "raft"` they replicate a register that `clients`
//! clients `client-<i>` read and write through the leader; knobs choose how reads are served
//! (ReadIndex, or a leader lease) and CheckQuorum on or off. With `algorithm = "bully"` they
//! only elect a coordinator (bully replicates nothing, so there are no clients).
//!
//! Raft here is the paper's (terms, one vote per term, majorities, the log restriction, the
//! commit rule for the leader's own term) with etcd's CheckQuorum; bully is 9.5.1's, with a
//! coordinator epoch in place of a term (`bully.rs`). A leader on an external lease (9.5.3)
//! is not modelled.

pub mod bully;
pub mod check;
pub mod client;
pub mod msg;
pub mod obs;
pub mod resource;
pub mod server;

use bully::{Bully, BullyConfig};
use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS};
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
    summary: "servers electing a leader — Raft (terms, majority votes, the log restriction) serving a register by ReadIndex or a leader lease, with CheckQuorum on or off, or bully (highest id wins) — that acts on an external resource fenced by term or not",
    parse: Election::parse,
    invariants: check::ELECTION_INVARIANTS,
    protections: &["protocol.read", "protocol.check_quorum", "protocol.fencing"],
};

/// Which election the servers run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Raft,
    Bully(BullyConfig),
}

/// Knobs only Raft (and its register clients) read: set with bully, they are an error.
const RAFT_ONLY: &[&str] = &[
    "clients",
    "election_spread",
    "read",
    "lease_ms",
    "check_quorum",
    "think_ms",
    "request_timeout_ms",
    "read_percent",
    "readers",
];

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
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let bully = k.choice(
            "algorithm",
            &[("raft", false), ("bully", true)],
            false,
            "Raft (seed 004, 9.5.2), or bully (9.5.1: highest id wins; a teaching algorithm, not a production one)",
        )?;
        let servers = k.uint(
            "servers",
            3,
            1,
            MAX_SERVERS,
            "servers server-0..; server-0 leads Raft's term 1, the highest id coordinates bully's epoch 1",
        )?;
        let clients = k.uint(
            "clients",
            if bully { 0 } else { 2 },
            0,
            MAX_CLIENTS,
            "register clients client-0.. (Raft only)",
        )?;
        let election_ns = k.millis(
            "election_timeout_ms",
            1_000,
            2,
            HOUR_MS,
            "a follower that hears no leader for this long (at least) campaigns",
        )?;
        let spread = k.choice(
            "election_spread",
            &[("random", Spread::Random), ("ranked", Spread::Ranked)],
            Spread::Random,
            "election timeouts uniform in [e, 2e) as Raft draws them, or server-i waiting e + i x e/20 so the first to campaign is known",
        )?;
        let heartbeat_ns = k.millis(
            "heartbeat_ms",
            100,
            1,
            HOUR_MS,
            "the leader's AppendEntries round interval",
        )?;
        let read = k.choice(
            "read",
            &[("read-index", ReadMode::ReadIndex), ("lease", ReadMode::Lease)],
            ReadMode::ReadIndex,
            "reads confirmed by a majority round (ReadIndex), or served from a leader lease",
        )?;
        let lease_ns = k.millis(
            "lease_ms",
            900,
            1,
            HOUR_MS,
            "a lease read's lease, from the send time of a round a majority acknowledged; safe only if lease + max clock drift < election_timeout_ms",
        )?;
        let check_quorum = k.bool(
            "check_quorum",
            true,
            "a leader that heard no majority for an election timeout steps down, and a follower that heard its leader ignores votes (etcd's CheckQuorum)",
        )?;
        let act_every_ns = k.millis(
            "act_every_ms",
            200,
            1,
            HOUR_MS,
            "the leader writes to the resource this often",
        )?;
        let fenced = k.choice(
            "fencing",
            &[("term", true), ("none", false)],
            true,
            "the resource refuses a write of a term older than one it accepted, or accepts every write",
        )?;
        let think_ns = k.millis("think_ms", 20, 1, HOUR_MS, "a client's pause between operations")?;
        let request_timeout_ns = k.millis(
            "request_timeout_ms",
            500,
            1,
            HOUR_MS,
            "a client gives an operation up (outcome unknown) after this long",
        )?;
        let read_percent = k.uint(
            "read_percent",
            50,
            0,
            100,
            "the share of operations that are reads, in percent",
        )?;
        let readers = k.uint(
            "readers",
            0,
            0,
            MAX_CLIENTS,
            "how many of the clients (the last ones) only read",
        )?;
        if readers > clients {
            return Err(k.error("readers", format!("{readers} readers but only {clients} clients")));
        }
        let answer_ns = k.millis(
            "answer_timeout_ms",
            100,
            1,
            HOUR_MS,
            "bully: an electing node that gets no OK from a higher id this long after its ELECTION coordinates",
        )?;
        let algorithm = match bully {
            true => {
                if let Some(key) = RAFT_ONLY.iter().find(|key| k.has(key)) {
                    return Err(k.error(
                        key,
                        "only Raft reads this: bully elects a coordinator and serves no register",
                    ));
                }
                Algorithm::Bully(BullyConfig {
                    election_ns,
                    answer_ns,
                    heartbeat_ns,
                    act_every_ns,
                })
            }
            false if k.has("answer_timeout_ms") => {
                return Err(k.error("answer_timeout_ms", "only bully reads this (set algorithm = \"bully\")"));
            }
            false => Algorithm::Raft,
        };
        Ok(Box::new(Election {
            algorithm,
            servers: servers as u32,
            clients: clients as u32,
            raft: RaftConfig {
                election_ns,
                spread,
                heartbeat_ns,
                read,
                lease_ns,
                check_quorum,
                act_every_ns,
            },
            client: ClientConfig {
                servers: servers as usize,
                think_ns,
                request_timeout_ns,
                read_percent,
            },
            fenced,
            readers: readers as u32,
        }))
    }

    fn declare(&self) -> (Layout, Vec<NodeId>, Vec<NodeId>, NodeId) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, CLIENT_EVENTS);
        let servers = layout.group("server", self.servers, Role::Server, SERVER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        (layout, clients, servers, resource)
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
        let (layout, clients, servers, resource) = self.declare();
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
            };
            nodes.add(s, node);
        }
        nodes.add(resource, ElectNode::Resource(Resource::new(self.fenced)));
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
            ElectNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut ElectCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            ElectNode::Client(n) => n.on_msg(ctx, msg),
            ElectNode::Server(n) => n.on_msg(ctx, from, msg),
            ElectNode::Bully(n) => n.on_msg(ctx, from, msg),
            ElectNode::Resource(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut ElectCtx<'_>, tag: TimerTag) {
        match self {
            ElectNode::Client(n) => n.on_timer(ctx, tag),
            ElectNode::Server(n) => n.on_timer(ctx, tag),
            ElectNode::Bully(n) => n.on_timer(ctx, tag),
            ElectNode::Resource(_) => {}
        }
    }

    /// A client forgets its operation; a server keeps its term, vote and log (a bully node its
    /// epoch); the resource keeps what it accepted.
    fn on_crash(&mut self, ctx: &mut ElectCtx<'_>) {
        match self {
            ElectNode::Client(n) => n.on_crash(),
            ElectNode::Server(n) => n.on_crash(ctx),
            ElectNode::Bully(n) => n.on_crash(ctx),
            ElectNode::Resource(_) => {}
        }
    }
}
