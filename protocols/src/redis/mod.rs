//! The single Redis lock (DESIGN section 4): one Redis server, the lock clients of
//! `lock_client`, and the fenced resource.

pub mod cmd;
pub mod server;
pub mod store;

use locksim_sim::{LockSetup, NodeId, NodeSetup};

use crate::knobs::{KnobError, Knobs};
use crate::lock_client::{ClientConfig, FencingTokens, LockClient};
use crate::lock_world::LockNode;
use crate::resource::Resource;
use crate::scenario::{ProtocolConfig, Role, Scenario};
use server::{Persistence, RedisServer};

/// `kind = "single-redis"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleRedis {
    pub clients: u32,
    pub client: ClientConfig,
    pub persistence: Persistence,
    pub liveness_window_ns: u64,
}

/// The most clients a world may have.
pub const MAX_CLIENTS: u64 = 64;

impl SingleRedis {
    pub fn parse(k: &mut Knobs) -> Result<ProtocolConfig, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let client = ClientConfig::parse(k)?;
        let persistence = k.choice(
            "persistence",
            &[
                ("none", Persistence::None),
                ("everysec", Persistence::EverySec),
                ("always", Persistence::Always),
            ],
            Persistence::None,
            "what of the server's keyspace survives a crash",
        )?;
        let default_window_ms = 3 * client.ttl_ns / 1_000_000;
        let liveness_window_ns = k.millis(
            "liveness_window_ms",
            default_window_ms,
            1,
            30 * 24 * 3_600_000,
            "liveness: some client must acquire within this after the last fault (default 3 x ttl)",
        )?;
        Ok(ProtocolConfig::SingleRedis(SingleRedis {
            clients,
            client,
            persistence,
            liveness_window_ns,
        }))
    }

    pub fn topology(&self) -> Vec<(String, Role)> {
        let mut nodes: Vec<(String, Role)> = (0..self.clients)
            .map(|i| (format!("client-{i}"), Role::Client))
            .collect();
        nodes.push(("server-0".into(), Role::Server));
        nodes.push(("resource".into(), Role::Resource));
        nodes
    }

    pub fn issues_tokens(&self) -> bool {
        self.client.fencing_tokens != FencingTokens::None
    }

    /// The world's nodes and what the checkers need to know about them.
    pub fn build(&self, s: &Scenario) -> (Vec<NodeSetup<LockNode>>, LockSetup) {
        let n = self.clients;
        let server = NodeId(n);
        let resource = NodeId(n + 1);
        let mut nodes: Vec<NodeSetup<LockNode>> = (0..n)
            .map(|i| NodeSetup {
                name: format!("client-{i}"),
                clock: s.clock_of(NodeId(i)),
                model: LockNode::Client(LockClient::new(self.client, u64::from(i), server, resource)),
            })
            .collect();
        nodes.push(NodeSetup {
            name: "server-0".into(),
            clock: s.clock_of(server),
            model: LockNode::Redis(RedisServer::new(self.persistence)),
        });
        nodes.push(NodeSetup {
            name: "resource".into(),
            clock: s.clock_of(resource),
            model: LockNode::Resource(Resource::new(s.resource)),
        });
        let setup = LockSetup {
            clients: (0..n).map(NodeId).collect(),
            servers: vec![server],
            quorum: 1,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes, setup)
    }
}
