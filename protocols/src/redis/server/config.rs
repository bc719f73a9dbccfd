//! How a Redis server is run, and where it stands in its replication group.

use locksim_sim::NodeId;
use serde::Serialize;

use crate::redis::min_replicas::MinReplicasConfig;

/// What survives a crash (`appendfsync` policy).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Persistence {
    /// Nothing: the server restarts empty.
    None,
    /// The keyspace as of the last once-a-second fsync: the last second is lost.
    EverySec,
    /// Every write.
    Always,
}

/// The clock key expiry follows. Real Redis uses the wall clock (redis/redis#217, #416).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerClock {
    Wall,
    Monotonic,
}

/// How a server is run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RedisConfig {
    pub persistence: Persistence,
    pub clock: ServerClock,
    /// After a crash, stay unavailable this long after restarting (Redlock's advice: longer
    /// than the TTL, so that no lock the crash forgot can be granted again while still valid).
    pub delayed_restart_ns: u64,
    /// `min-replicas-to-write` / `min-replicas-max-lag`, for a primary with replicas.
    pub min_replicas: MinReplicasConfig,
}

/// Where a server stands in its replication group.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Serves clients; streams its writes to its replicas (with the lag).
    Primary,
    /// Applies `primary`'s stream; the heir among them takes over on failover.
    Replica { primary: NodeId },
    /// A primary that learned it was replaced: answers clients with `READONLY`.
    /// `primary` replaced it: a client that gets `READONLY` here is told of it (a
    /// Sentinel-aware client asks Sentinel for the master after `READONLY`).
    Demoted { primary: NodeId },
}
