//! The model's open description, as a built-in model gives it: [`SPEC`] (its kind, written
//! once, its knob parser, the invariants it judges, its protections) and [`TokenLease`], its
//! configuration, which declares the nodes once, builds the world from the ids that declaration
//! hands back, and runs and judges a scenario through locksim's runner.

use locksim::protocols::knobs::{KnobError, Knobs, MAX_CLIENTS};
use locksim::protocols::lock::check::LOCK_INVARIANTS;
use locksim::protocols::lock::knobs::parse_liveness_window;
use locksim::protocols::lock::obs::RESOURCE_EVENTS;
use locksim::protocols::lock::resource::Resource;
use locksim::protocols::lock::{LockJudge, LockSetup, SERVER_GROUP};
use locksim::protocols::redis::min_replicas::MinReplicasConfig;
use locksim::protocols::redis::server::{Persistence, RedisConfig, RedisServer, Role as RedisRole, ServerClock};
use locksim::protocols::{Layout, Outcome, Protocol, ProtocolSpec, Role, Setting, run_world};
use locksim::sim::time::NS_PER_MS;
use locksim::sim::{Level, NodeId, NodeSetup};

use crate::client::{CLIENT_EVENTS, Peers, TTL_MS, TokenLeaseClient};
use crate::world::{COUNTER_EVENTS, CounterService, TokenLeaseNode};

/// What the loader knows of the model before parsing a scenario; `main` registers it with
/// `Registry::builtin().with(&SPEC)`, as the registry lists a built-in's.
pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "token-lease",
    summary: "a lease lock on locksim's Redis (SET NX PX, compare-and-delete release) whose fencing tokens come from a counter service of its own, durable or volatile, checked by locksim's fenced resource",
    parse: TokenLease::parse,
    invariants: LOCK_INVARIANTS,
    protections: &["protocol.counter", "resource.fencing", "resource.persist_max_fence"],
};

/// Whether the counter service's count survives a crash.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CounterDurability {
    /// On disk before each answer.
    Durable,
    /// In memory only: a restarted counter counts from 1 again.
    Volatile,
}

/// `kind = "token-lease"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenLease {
    pub clients: u32,
    pub counter: CounterDurability,
    pub liveness_window_ns: u64,
}

/// The events locksim's Redis server records for this lock (it never extends a key or changes
/// role here): what a fault's `after` on it may name.
const REDIS_EVENTS: &[&str] = &["key_set", "key_deleted", "key_expired"];

/// The Redis server's settings: every write on disk, expiry by the wall clock, as a
/// production Redis with `appendfsync always`.
const REDIS: RedisConfig = RedisConfig {
    persistence: Persistence::Always,
    clock: ServerClock::Wall,
    delayed_restart_ns: 0,
    min_replicas: MinReplicasConfig::OFF,
};

impl TokenLease {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let counter = k.choice(
            "counter",
            &[
                ("durable", CounterDurability::Durable),
                ("volatile", CounterDurability::Volatile),
            ],
            CounterDurability::Durable,
            "whether the token counter's count survives a crash (volatile: it restarts from 1)",
        )?;
        let liveness_window_ns = parse_liveness_window(k, TTL_MS * NS_PER_MS)?;
        Ok(Box::new(TokenLease {
            clients,
            counter,
            liveness_window_ns,
        }))
    }

    /// The nodes, once: the clients, the Redis server (the lock service's only server, so
    /// grant bit 0 names it), the counter service, the resource.
    fn declare(&self) -> (Layout, TokenLeaseNodes) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, CLIENT_EVENTS);
        let redis = layout.group(SERVER_GROUP, 1, Role::Server, REDIS_EVENTS)[0];
        let counter = layout.one("counter", Role::Server, COUNTER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let nodes = TokenLeaseNodes {
            clients,
            peers: Peers {
                redis,
                counter,
                resource,
            },
        };
        (layout, nodes)
    }

    /// The world's nodes in `setting`, and what the lock checkers need to judge its history.
    fn build(&self, setting: Setting<'_>) -> (Vec<NodeSetup<TokenLeaseNode>>, LockSetup) {
        let (layout, TokenLeaseNodes { clients, peers }) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            nodes.add(c, TokenLeaseNode::Client(TokenLeaseClient::new(i as u64, peers)));
        }
        let redis = RedisServer::new(REDIS, RedisRole::Primary, clients.clone());
        nodes.add(peers.redis, TokenLeaseNode::Redis(Box::new(redis)));
        nodes.add(
            peers.counter,
            TokenLeaseNode::Counter(CounterService::new(self.counter)),
        );
        nodes.add(
            peers.resource,
            TokenLeaseNode::Resource(Resource::new(setting.resource)),
        );
        let setup = LockSetup {
            clients,
            servers: vec![peers.redis],
            quorum: 1,
            newest_serves_alone: false,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes.finish(), setup)
    }
}

/// The world's nodes, by what they are.
struct TokenLeaseNodes {
    clients: Vec<NodeId>,
    peers: Peers,
}

impl Protocol for TokenLease {
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
        true
    }

    fn run(&self, setting: Setting<'_>, seed: u64, level: Level) -> Outcome {
        let (nodes, setup) = self.build(setting);
        run_world(nodes, setting, seed, level, LockJudge::new(setup))
    }
}
