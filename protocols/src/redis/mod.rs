//! The single Redis lock (DESIGN section 4): one Redis server — optionally with one or two
//! replicas fed asynchronously, the first of which a `failover` promotes (the other then
//! follows it) — the lock clients of [`client`], and the fenced resource.

pub mod client;
pub mod cmd;
pub mod min_replicas;
pub mod msg;
pub mod sentinel;
pub mod server;
pub mod store;
pub mod world;

use locksim_sim::{NodeId, NodeSetup, Recording};

use crate::knobs::{KnobError, Knobs, MAX_CLIENTS, MAX_MS};
use crate::layout::{Layout, Role};
use crate::lock::check::LOCK_INVARIANTS;
use crate::lock::knobs::{ClientConfig, ElapsedClock, FencingTokens, parse_liveness_window};
use crate::lock::obs::{CLIENT_EVENTS, RESOURCE_EVENTS, SERVER_EVENTS};
use crate::lock::resource::Resource;
use crate::lock::{LockSetup, SERVER_GROUP};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::setting::Setting;
use client::{LockClient, LockService};
use min_replicas::MinReplicasConfig;
use server::{Persistence, RedisConfig, RedisServer, Role as RedisRole, ServerClock};
use world::{RedisWorldNode, run_redis_world};

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "single-redis",
    summary: "one Redis (optionally with async replicas, failover and min-replicas-to-write): SET NX PX lock, compare-and-delete release, optional renewal and INCR fencing tokens",
    parse: SingleRedis::parse,
    invariants: LOCK_INVARIANTS,
    protections: &[
        "protocol.fencing_tokens",
        "protocol.release",
        "protocol.acquire",
        "protocol.renew",
        "protocol.deadline_check",
        "protocol.server_clock",
        "protocol.persistence",
        "protocol.delayed_restart_ms",
        // Redis replication: a primary refuses writes without enough recently acked replicas.
        "protocol.min_replicas_to_write",
        "resource.fencing",
        "resource.persist_max_fence",
    ],
};

/// `kind = "single-redis"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleRedis {
    pub clients: u32,
    pub client: ClientConfig,
    pub server: RedisConfig,
    /// 0, 1 or 2.
    pub replicas: u32,
    pub replication_lag_ns: u64,
    pub liveness_window_ns: u64,
}

/// Reads the knobs of a Redis server process (shared with Redlock's servers).
pub fn parse_server(k: &mut Knobs) -> Result<RedisConfig, KnobError> {
    Ok(RedisConfig {
        persistence: k.choice(
            "persistence",
            &[
                ("none", Persistence::None),
                ("everysec", Persistence::EverySec),
                ("always", Persistence::Always),
            ],
            Persistence::None,
            "what of a server's keyspace survives a crash",
        )?,
        clock: k.choice(
            "server_clock",
            &[("wall", ServerClock::Wall), ("monotonic", ServerClock::Monotonic)],
            ServerClock::Wall,
            "the clock key expiry follows (real Redis: the wall clock)",
        )?,
        delayed_restart_ns: k.millis(
            "delayed_restart_ms",
            0,
            0,
            MAX_MS,
            "after a crash a server stays unavailable this long after restarting (0 = serves at once)",
        )?,
        min_replicas: MinReplicasConfig::OFF,
    })
}

impl SingleRedis {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let tokens = [("none", FencingTokens::None), ("incr", FencingTokens::Incr)];
        let client = ClientConfig::parse(k, &tokens, "retry_ms", true)?;
        let mut server = parse_server(k)?;
        let replicas = k.uint(
            "replicas",
            0,
            0,
            2,
            "server-0 replicates to replica-0 (and replica-1); a failover promotes replica-0, which replica-1 then follows",
        )? as u32;
        let replication_lag_ns = k.millis(
            "replication_lag_ms",
            0,
            0,
            MAX_MS,
            "how long each write waits on the primary before it is sent to the replica",
        )?;
        if replicas == 0 && k.has("replication_lag_ms") {
            return Err(k.error("replication_lag_ms", "there is no replica (set replicas = 1)"));
        }
        server.min_replicas = MinReplicasConfig {
            to_write: k.uint(
                "min_replicas_to_write",
                0,
                0,
                2,
                "a primary refuses writes (NOREPLICAS) with fewer good replicas than this (0 = off)",
            )? as u32,
            max_lag_s: k.uint(
                "min_replicas_max_lag",
                10,
                0,
                3_600,
                "seconds since a replica's last once-a-second ack for it to count as good (0 = off)",
            )?,
        };
        if server.min_replicas.to_write > replicas {
            return Err(k.error(
                "min_replicas_to_write",
                format!("must be at most replicas ({replicas}): the primary would refuse every write"),
            ));
        }
        if k.has("min_replicas_max_lag") && !k.has("min_replicas_to_write") {
            return Err(k.error("min_replicas_max_lag", "has no effect without min_replicas_to_write"));
        }
        let liveness_window_ns = parse_liveness_window(k, client.ttl_ns)?;
        Ok(Box::new(SingleRedis {
            clients,
            client,
            server,
            replicas,
            replication_lag_ns,
            liveness_window_ns,
        }))
    }

    /// The nodes: the clients, the primary, its replicas, the resource.
    fn declare(&self) -> (Layout, RedisNodes) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, CLIENT_EVENTS);
        // One lock server, in the lock servers' group: `server-0`.
        let server = layout.group(SERVER_GROUP, 1, Role::Server, SERVER_EVENTS)[0];
        let replicas = layout.group("replica", self.replicas, Role::Server, SERVER_EVENTS);
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let nodes = RedisNodes {
            clients,
            server,
            replicas,
            resource,
        };
        (layout, nodes)
    }

    /// The world's nodes and what the checkers need to know about them.
    pub fn build(&self, setting: Setting<'_>) -> (Vec<NodeSetup<RedisWorldNode>>, LockSetup) {
        let (
            layout,
            RedisNodes {
                clients,
                server,
                replicas,
                resource,
            },
        ) = self.declare();
        let service = LockService {
            servers: vec![server],
            quorum: 1,
            drift_ns: 0,
            per_node_timeout_ns: self.client.request_timeout_ns,
            retry_count: 0,
            // The single-instance section of the Redis page releases only a lock it holds.
            unlock_all_after_failure: false,
            // Quorum 1 and no drift: the validity is `ttl - elapsed`, counted from the send.
            elapsed_clock: ElapsedClock::Monotonic,
            counter: None,
            resource,
        };
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            let client = LockClient::new(self.client, i as u64, service.clone());
            nodes.add(c, RedisWorldNode::Client(client));
        }
        let lag_ns = self.replication_lag_ns;
        let primary = RedisServer::new(self.server, RedisRole::Primary, clients.clone());
        nodes.add(
            server,
            RedisWorldNode::Redis(primary.with_replicas(replicas.clone(), lag_ns)),
        );
        for (i, &replica) in replicas.iter().enumerate() {
            let model = RedisServer::new(self.server, RedisRole::Replica { primary: server }, clients.clone());
            let model = if i == 0 {
                model.heir(replicas[1..].to_vec(), lag_ns)
            } else {
                model
            };
            nodes.add(replica, RedisWorldNode::Redis(model));
        }
        nodes.add(resource, RedisWorldNode::Resource(Resource::new(setting.resource)));
        let setup = LockSetup {
            clients,
            servers: std::iter::once(server).chain(replicas).collect(),
            quorum: 1,
            newest_serves_alone: false,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes.finish(), setup)
    }
}

/// The single Redis world's nodes, by what they are.
struct RedisNodes {
    clients: Vec<NodeId>,
    server: NodeId,
    replicas: Vec<NodeId>,
    resource: NodeId,
}

impl Protocol for SingleRedis {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn failover_targets(&self) -> Vec<String> {
        if self.replicas > 0 {
            vec!["server-0".into()]
        } else {
            Vec::new()
        }
    }

    fn has_resource(&self) -> bool {
        true
    }

    fn issues_tokens(&self) -> bool {
        self.client.fencing_tokens != FencingTokens::None
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (nodes, setup) = self.build(setting);
        run_redis_world(nodes, setup, setting, seed, recording)
    }
}
