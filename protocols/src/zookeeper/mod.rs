//! The ZooKeeper lock recipe (issue 14, point 1): an ensemble whose leader commits by majority
//! and expires sessions on its own clock, deleting their ephemeral nodes; clients running the
//! Recipes page's lock (ephemeral sequential nodes, the lowest holds, each waiter watching its
//! predecessor); the lock node's `czxid` as fencing token. Sources: seed 004 9.4 (9.4.1 the
//! recipe, 9.4.3 a session is a server-side TTL, 9.4.4 watches are not locks), seed 001's
//! comparison table, ZooKeeper's "Recipes and Solutions" (Locks) and programmer's guide
//! (sessions, watches), Curator's error-handling notes (treat `SUSPENDED` as lost).

pub mod client;
mod knobs;
pub mod msg;
pub mod obs;
pub mod server;
pub mod tree;

use locksim_sim::{Ctx, Node, NodeId, Recording, TimerTag};

use crate::layout::{Layout, Role};
use crate::lock::check::LOCK_INVARIANTS;
use crate::lock::knobs::{ClientConfig, FencingTokens};
use crate::lock::obs::RESOURCE_EVENTS;
use crate::lock::resource::Resource;
use crate::lock::{LockJudge, LockSetup, SERVER_GROUP};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use client::{ZkClient, ZkClientConfig};
use msg::Msg;
use obs::ZkObs;
use server::{ServerConfig, ZkServer};

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "zookeeper",
    summary: "a ZooKeeper ensemble (leader, majority commit, sessions expired on the leader's clock) and the lock recipe: ephemeral sequential nodes, predecessor watches, czxid fencing tokens",
    parse: ZooKeeper::parse,
    invariants: LOCK_INVARIANTS,
    protections: &[
        "protocol.fencing_tokens",
        "protocol.deadline_check",
        // Curator's SUSPENDED-is-lost, the re-read after a watch fires, the session timeout
        // against the pauses.
        "protocol.suspended",
        "protocol.reread_children",
        "protocol.session_timeout_ms",
        "resource.fencing",
        "resource.persist_max_fence",
    ],
};

/// `kind = "zookeeper"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZooKeeper {
    pub clients: u32,
    pub servers: u32,
    pub client: ClientConfig,
    pub zk: ZkClientConfig,
    pub server: ServerConfig,
    pub liveness_window_ns: u64,
}

/// The ZooKeeper world's nodes, by what they are.
struct ZkNodes {
    clients: Vec<NodeId>,
    servers: Vec<NodeId>,
    resource: NodeId,
}

impl ZooKeeper {
    /// The nodes: the clients, the ensemble (`server-0` leads), the resource.
    fn declare(&self) -> (Layout, ZkNodes) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, obs::CLIENT_EVENTS);
        let servers = layout.group(SERVER_GROUP, self.servers, Role::Server, obs::SERVER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let nodes = ZkNodes {
            clients,
            servers,
            resource,
        };
        (layout, nodes)
    }
}

impl Protocol for ZooKeeper {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn has_resource(&self) -> bool {
        true
    }

    fn issues_tokens(&self) -> bool {
        self.client.fencing_tokens != FencingTokens::None
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (
            layout,
            ZkNodes {
                clients,
                servers,
                resource,
            },
        ) = self.declare();
        let leader = servers[0];
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            let client = ZkClient::new(self.client, self.zk, i as u64, leader, resource);
            nodes.add(c, ZkNode::Client(client));
        }
        for (i, &s) in servers.iter().enumerate() {
            nodes.add(s, ZkNode::Server(ZkServer::new(self.server, i, servers.clone())));
        }
        nodes.add(resource, ZkNode::Resource(Resource::new(setting.resource)));
        // Only the leader's tree says who holds the lock: the followers serve no client.
        let setup = LockSetup {
            clients,
            servers: vec![leader],
            quorum: 1,
            newest_serves_alone: true,
            liveness_window_ns: self.liveness_window_ns,
        };
        run_world(nodes.finish(), setting, seed, recording, LockJudge::new(setup))
    }
}

/// Every role of the ZooKeeper world.
pub enum ZkNode {
    Client(ZkClient),
    Server(ZkServer),
    Resource(Resource),
}

type ZkCtx<'a> = Ctx<'a, Msg, ZkObs>;

impl Node for ZkNode {
    type Msg = Msg;
    type Obs = ZkObs;

    fn on_start(&mut self, ctx: &mut ZkCtx<'_>) {
        match self {
            ZkNode::Client(n) => n.on_start(ctx),
            ZkNode::Server(n) => n.on_start(ctx),
            ZkNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            ZkNode::Client(n) => n.on_msg(ctx, msg),
            ZkNode::Server(n) => n.on_msg(ctx, from, msg),
            ZkNode::Resource(n) => {
                if let Msg::Resource { req, op } = msg {
                    n.serve(ctx, from, op, |reply| Msg::ResourceReply { req, reply });
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &mut ZkCtx<'_>, tag: TimerTag) {
        match self {
            ZkNode::Client(n) => n.on_timer(ctx, tag),
            ZkNode::Server(n) => n.on_timer(ctx, tag),
            ZkNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut ZkCtx<'_>) {
        match self {
            ZkNode::Client(n) => n.on_crash(),
            ZkNode::Server(n) => n.on_crash(),
            ZkNode::Resource(n) => n.crash_in(ctx),
        }
    }
}
