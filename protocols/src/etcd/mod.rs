//! The etcd-style lease lock (DESIGN section 4): a Raft-replicated store (`server-0..`), the
//! clientv3 Mutex recipe over leases, revision fencing tokens, and — as `[resource] kind =
//! "etcd-txn"` — a counter kept in the store itself and written in a transaction that compares
//! the lock key. Sources: seed 004 (9.4-9.6), seeds 000-002, Jepsen's etcd 3.4.3 analysis and
//! etcd issue 11456.

pub mod client;
pub mod kv;
pub mod msg;
pub mod obs;
pub mod server;

use locksim_sim::{Ctx, Level, Node, NodeId, NodeSetup, TimerTag};

use crate::knobs::{KnobError, Knobs, MAX_CLIENTS};
use crate::layout::{Layout, Role};
use crate::lock::check::LOCK_INVARIANTS;
use crate::lock::knobs::{ClientConfig, FencingTokens, parse_liveness_window};
use crate::lock::obs::RESOURCE_EVENTS;
use crate::lock::resource::{Resource, ResourceKind};
use crate::lock::{LockJudge, LockSetup, SERVER_GROUP};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use client::{EtcdClient, EtcdClientConfig, SessionDeadline};
use msg::Msg;
use obs::EtcdObs;
use server::{Commit, EtcdServer, ServerConfig};

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "etcd-lease",
    summary: "a Raft-replicated store with leases: the clientv3 Mutex recipe, revision fencing tokens, an optional counter inside the store (etcd-txn)",
    parse: EtcdLease::parse,
    invariants: LOCK_INVARIANTS,
    protections: &[
        "protocol.fencing_tokens",
        "protocol.deadline_check",
        // The recipe's own-key check (issue 11456), majority commit, the session deadline
        // counted from the send, the counter's place.
        "protocol.waiter_recheck",
        "protocol.commit",
        "protocol.session_deadline",
        "resource.kind",
        "resource.fencing",
        "resource.persist_max_fence",
    ],
};

/// `kind = "etcd-lease"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EtcdLease {
    pub clients: u32,
    pub servers: u32,
    pub client: ClientConfig,
    pub keepalive_ns: u64,
    pub session_deadline: SessionDeadline,
    pub waiter_recheck: bool,
    pub server: ServerConfig,
    pub liveness_window_ns: u64,
}

/// The members' Raft timing and commit rule; a heartbeat must come more often than an
/// election timeout.
fn parse_server(k: &mut Knobs, revision_tokens: bool) -> Result<ServerConfig, KnobError> {
    let server = ServerConfig {
        heartbeat_ns: k.millis("heartbeat_ms", 100, 1, 3_600_000, "the leader's heartbeat period")?,
        election_ns: k.millis(
            "election_timeout_ms",
            1000,
            2,
            3_600_000,
            "a follower runs for leader after hearing none for a random time in [this, 2 x this)",
        )?,
        commit: k.choice(
            "commit",
            &[("majority", Commit::Majority), ("leader-only", Commit::LeaderOnly)],
            Commit::Majority,
            "acknowledge a write once a majority has it, or (wrong) as soon as the leader appended it",
        )?,
        revision_tokens,
    };
    if server.heartbeat_ns >= server.election_ns {
        return Err(k.error(
            "heartbeat_ms",
            "must be below election_timeout_ms, or followers keep electing",
        ));
    }
    Ok(server)
}

impl EtcdLease {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let servers = k.uint(
            "servers",
            3,
            1,
            31,
            "etcd members server-0.. (a majority must agree on every write)",
        )? as u32;
        let tokens = [("none", FencingTokens::None), ("revision", FencingTokens::Revision)];
        // `ttl_ms` below the cluster's minimum (1.5 election timeouts, rounded up to seconds) is
        // raised to it when the lease is granted, as etcd does.
        let client = ClientConfig::parse(k, &tokens, "retry_ms", false)?;
        let keepalive_ns = k.millis(
            "keepalive_every_ms",
            client.ttl_ns / 3_000_000,
            1,
            3_600_000,
            "how often the session sends a lease keep-alive (default a third of the TTL)",
        )?;
        if keepalive_ns >= client.ttl_ns {
            return Err(k.error(
                "keepalive_every_ms",
                "must be below ttl_ms, or the lease lapses between keep-alives",
            ));
        }
        let session_deadline = k.choice(
            "session_deadline",
            &[("from-send", SessionDeadline::FromSend), ("clientv3", SessionDeadline::Clientv3)],
            SessionDeadline::FromSend,
            "the client's lease deadline: from-send = last answered keep-alive's send + TTL; clientv3 = its answer's receipt + TTL, noticed at clientv3's once-a-second check",
        )?;
        let waiter_recheck = k.bool(
            "waiter_recheck",
            true,
            "after its predecessor goes, a waiter checks that its own key still exists (false: etcd issue 11456)",
        )?;
        let server = parse_server(k, client.fencing_tokens == FencingTokens::Revision)?;
        let liveness_window_ns = parse_liveness_window(k, client.ttl_ns)?;
        Ok(Box::new(EtcdLease {
            clients,
            servers,
            client,
            keepalive_ns,
            session_deadline,
            waiter_recheck,
            server,
            liveness_window_ns,
        }))
    }

    /// The nodes: the clients, the members, the resource.
    fn declare(&self) -> (Layout, EtcdNodes) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, obs::CLIENT_EVENTS);
        let servers = layout.group(SERVER_GROUP, self.servers, Role::Server, obs::SERVER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let nodes = EtcdNodes {
            clients,
            servers,
            resource,
        };
        (layout, nodes)
    }

    pub fn build(&self, setting: Setting<'_>) -> (Vec<NodeSetup<EtcdNode>>, LockSetup) {
        let (
            layout,
            EtcdNodes {
                clients,
                servers,
                resource,
            },
        ) = self.declare();
        let etcd = EtcdClientConfig {
            keepalive_ns: self.keepalive_ns,
            waiter_recheck: self.waiter_recheck,
            session_deadline: self.session_deadline,
            txn_resource: setting.resource.kind == ResourceKind::EtcdTxn,
        };
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            let client = EtcdClient::new(self.client, etcd, i as u64, servers.clone(), resource);
            nodes.add(c, EtcdNode::Client(client));
        }
        for (i, &server) in servers.iter().enumerate() {
            nodes.add(
                server,
                EtcdNode::Server(EtcdServer::new(self.server, i, servers.clone())),
            );
        }
        nodes.add(resource, EtcdNode::Resource(Resource::new(setting.resource)));
        let setup = LockSetup {
            clients,
            servers,
            quorum: 1,
            newest_serves_alone: self.server.commit == Commit::Majority,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes.finish(), setup)
    }
}

/// The etcd world's nodes, by what they are.
struct EtcdNodes {
    clients: Vec<NodeId>,
    servers: Vec<NodeId>,
    resource: NodeId,
}

impl Protocol for EtcdLease {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn failover_targets(&self) -> Vec<String> {
        (0..self.servers).map(|i| format!("server-{i}")).collect()
    }

    fn has_resource(&self) -> bool {
        true
    }

    fn has_store_resource(&self) -> bool {
        true
    }

    fn issues_tokens(&self) -> bool {
        self.client.fencing_tokens != FencingTokens::None
    }

    fn run(&self, setting: Setting<'_>, seed: u64, level: Level) -> Outcome {
        let (nodes, setup) = self.build(setting);
        run_world(nodes, setting, seed, level, LockJudge::new(setup))
    }
}

/// Every role of the etcd world.
pub enum EtcdNode {
    Client(EtcdClient),
    Server(EtcdServer),
    Resource(Resource),
}

type EtcdCtx<'a> = Ctx<'a, Msg, EtcdObs>;

impl Node for EtcdNode {
    type Msg = Msg;
    type Obs = EtcdObs;

    fn on_start(&mut self, ctx: &mut EtcdCtx<'_>) {
        match self {
            EtcdNode::Client(n) => n.on_start(ctx),
            EtcdNode::Server(n) => n.on_start(ctx),
            EtcdNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            EtcdNode::Client(n) => n.on_msg(ctx, msg),
            EtcdNode::Server(n) => n.on_msg(ctx, from, msg),
            EtcdNode::Resource(n) => {
                if let Msg::Resource { req, op } = msg {
                    n.serve(ctx, from, op, |reply| Msg::ResourceReply { req, reply });
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut EtcdCtx<'_>, tag: TimerTag) {
        match self {
            EtcdNode::Client(n) => n.on_timer(ctx, tag),
            EtcdNode::Server(n) => n.on_timer(ctx, tag),
            EtcdNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut EtcdCtx<'_>) {
        match self {
            EtcdNode::Client(n) => n.on_crash(),
            EtcdNode::Server(n) => n.on_crash(ctx),
            EtcdNode::Resource(n) => n.crash_in(ctx),
        }
    }

    fn on_failover(&mut self, ctx: &mut EtcdCtx<'_>, primary: NodeId) {
        if let EtcdNode::Server(n) = self {
            n.on_failover(ctx, primary);
        }
    }
}
