//! Redlock (DESIGN section 4; the Redis documentation's distributed-lock algorithm): N
//! independent Redis masters, no replication. A client sends `SET NX PX` to all of them,
//! computes `validity = ttl - elapsed - (ttl * drift_factor + 2 ms)`, `elapsed` on the clock
//! `elapsed_clock` names (monotonic, or the wall clock redlock-py reads), and holds only with a
//! majority and validity > 0; otherwise it unlocks every instance and
//! retries after a random delay. Redlock offers no fencing token (Kleppmann's point); a scenario
//! may give the resource tokens from a separate counter Redis.

use locksim_sim::{NodeId, NodeSetup, Recording};

use crate::knobs::{KnobError, Knobs, MAX_CLIENTS};
use crate::layout::{Layout, Role};
use crate::lock::check::LOCK_INVARIANTS;
use crate::lock::knobs::{Acquire, ClientConfig, ElapsedClock, FencingTokens, parse_liveness_window};
use crate::lock::obs::{CLIENT_EVENTS, RESOURCE_EVENTS, SERVER_EVENTS};
use crate::lock::resource::Resource;
use crate::lock::{LockSetup, SERVER_GROUP};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::redis::client::{LockClient, LockService, drift_allowance_ns};
use crate::redis::min_replicas::MinReplicasConfig;
use crate::redis::parse_server;
use crate::redis::server::{Persistence, RedisConfig, RedisServer, Role as RedisRole, ServerClock};
use crate::redis::world::{RedisWorldNode, run_redis_world};
use crate::setting::Setting;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "redlock",
    summary: "N independent Redis masters, majority quorum, validity = ttl - elapsed - (ttl * drift_factor + 2 ms); no fencing of its own",
    parse: Redlock::parse,
    invariants: LOCK_INVARIANTS,
    protections: &[
        "protocol.fencing_tokens",
        "protocol.release",
        "protocol.deadline_check",
        "protocol.server_clock",
        "protocol.persistence",
        "protocol.delayed_restart_ms",
        // The clock the client measures the acquisition's elapsed time on.
        "protocol.elapsed_clock",
        "resource.fencing",
        "resource.persist_max_fence",
    ],
};

/// `kind = "redlock"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redlock {
    pub clients: u32,
    pub servers: u32,
    pub client: ClientConfig,
    pub server: RedisConfig,
    pub drift_factor_ppm: u32,
    pub per_node_timeout_ns: u64,
    pub retry_count: u32,
    pub elapsed_clock: ElapsedClock,
    pub liveness_window_ns: u64,
}

/// The most lock servers: acquisitions are tracked as bit sets.
const MAX_SERVERS: u64 = 31;

impl Redlock {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let servers = k.uint(
            "servers",
            5,
            1,
            MAX_SERVERS,
            "independent Redis masters server-0.. (odd)",
        )? as u32;
        if servers.is_multiple_of(2) {
            return Err(k.error(
                "servers",
                format!("must be odd (got {servers}): an even count tolerates no more failures than one fewer"),
            ));
        }
        let tokens = [("none", FencingTokens::None), ("counter", FencingTokens::Counter)];
        let client = ClientConfig::parse(k, &tokens, "retry_delay_ms", true)?;
        if client.renew_every_ns > 0 {
            return Err(k.error(
                "renew_every_ms",
                "Redlock's lock extension is not modelled; leave renewal off",
            ));
        }
        if client.acquire != Acquire::SetNxPx {
            return Err(k.error("acquire", "Redlock acquires with SET NX PX on every instance"));
        }
        let drift_factor_ppm = k.fraction_ppm(
            "clock_drift_factor",
            10_000,
            "validity allowance for clock drift, as a fraction of the TTL (plus 2 ms)",
        )?;
        let per_node_timeout_ns = k.millis(
            "per_node_timeout_ms",
            50,
            1,
            3_600_000,
            "how long an acquire waits for the instances' answers (small against the TTL)",
        )?;
        let retry_count = k.uint(
            "retry_count",
            3,
            0,
            1_000_000,
            "failed attempts before a round gives up and starts over with a new lease (0 = never)",
        )? as u32;
        let elapsed_clock = k.choice(
            "elapsed_clock",
            &[("monotonic", ElapsedClock::Monotonic), ("wall", ElapsedClock::Wall)],
            ElapsedClock::Monotonic,
            "the clock the acquisition's elapsed time is measured on (redlock-py: wall, time.time())",
        )?;
        let server = parse_server(k)?;
        let liveness_window_ns = parse_liveness_window(k, client.ttl_ns)?;
        Ok(Box::new(Redlock {
            clients,
            servers,
            client,
            server,
            drift_factor_ppm,
            per_node_timeout_ns,
            retry_count,
            elapsed_clock,
            liveness_window_ns,
        }))
    }

    fn has_counter(&self) -> bool {
        self.client.fencing_tokens == FencingTokens::Counter
    }

    /// The nodes: the clients, the masters, the token counter if any, the resource.
    fn declare(&self) -> (Layout, RedlockNodes) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, CLIENT_EVENTS);
        let servers = layout.group(SERVER_GROUP, self.servers, Role::Server, SERVER_EVENTS);
        let counter = self
            .has_counter()
            .then(|| layout.one("counter", Role::Server, SERVER_EVENTS));
        let resource = layout.one("resource", Role::Resource, RESOURCE_EVENTS);
        let nodes = RedlockNodes {
            clients,
            servers,
            counter,
            resource,
        };
        (layout, nodes)
    }

    pub fn build(&self, setting: Setting<'_>) -> (Vec<NodeSetup<RedisWorldNode>>, LockSetup) {
        let (
            layout,
            RedlockNodes {
                clients,
                servers,
                counter,
                resource,
            },
        ) = self.declare();
        let quorum = self.servers / 2 + 1;
        let service = LockService {
            servers: servers.clone(),
            quorum,
            drift_ns: drift_allowance_ns(self.client.ttl_ns, self.drift_factor_ppm),
            per_node_timeout_ns: self.per_node_timeout_ns,
            retry_count: self.retry_count,
            unlock_all_after_failure: true,
            elapsed_clock: self.elapsed_clock,
            counter,
            resource,
        };
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            let client = LockClient::new(self.client, i as u64, service.clone());
            nodes.add(c, RedisWorldNode::Client(client));
        }
        let primary = RedisRole::Primary;
        for &server in &servers {
            nodes.add(
                server,
                RedisWorldNode::Redis(RedisServer::new(self.server, primary, Vec::new())),
            );
        }
        if let Some(counter) = counter {
            // The token counter must never go back: it persists every write.
            let cfg = RedisConfig {
                persistence: Persistence::Always,
                clock: ServerClock::Wall,
                delayed_restart_ns: 0,
                min_replicas: MinReplicasConfig::OFF,
            };
            nodes.add(
                counter,
                RedisWorldNode::Redis(RedisServer::new(cfg, primary, Vec::new())),
            );
        }
        nodes.add(resource, RedisWorldNode::Resource(Resource::new(setting.resource)));
        let setup = LockSetup {
            clients,
            servers,
            quorum: quorum as usize,
            newest_serves_alone: false,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes.finish(), setup)
    }
}

/// The Redlock world's nodes, by what they are.
struct RedlockNodes {
    clients: Vec<NodeId>,
    servers: Vec<NodeId>,
    counter: Option<NodeId>,
    resource: NodeId,
}

impl Protocol for Redlock {
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
        let (nodes, setup) = self.build(setting);
        run_redis_world(nodes, setup, setting, seed, recording)
    }
}
