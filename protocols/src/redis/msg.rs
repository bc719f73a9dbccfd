//! The Redis-family wire: what a lock client, a Redis server, Sentinel and the fenced resource
//! send each other in a Single Redis or Redlock world.

use std::fmt;

use locksim_sim::{NodeId, write_pieces};

use super::cmd::{Cmd, Key, Reply};
use super::store::Entry;
use crate::lock::resource::{ResourceOp, ResourceReply};

/// A request carries the sender's request id; the reply echoes it, so late replies to
/// abandoned requests are recognised and ignored.
#[derive(Clone, Debug)]
pub enum Msg {
    Redis {
        req: u64,
        cmd: Cmd,
    },
    RedisReply {
        req: u64,
        reply: Reply,
    },
    Resource {
        req: u64,
        op: ResourceOp,
    },
    ResourceReply {
        req: u64,
        reply: ResourceReply,
    },
    /// A primary's replication stream: `key` is now `entry` (absent: deleted).
    Replicate {
        key: Key,
        entry: Option<Entry>,
    },
    /// Sentinel's `+switch-master`: `primary` now serves. Sent to the old primary it stands for
    /// Sentinel's `REPLICAOF`, which demotes it.
    SwitchMaster {
        primary: NodeId,
    },
    /// A replica's `REPLCONF ACK`, once a second: the primary counts it for
    /// `min-replicas-to-write`.
    ReplAck,
    /// The old primary's answer to a demotion: it now reports `role:slave` in its `INFO`,
    /// which is how Sentinel learns that the reconfiguration took and stops sending it.
    DemotionAck,
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Redis { cmd, .. } => fmt::Display::fmt(cmd, f),
            Msg::RedisReply { reply, .. } => fmt::Display::fmt(reply, f),
            Msg::Resource { op, .. } => fmt::Display::fmt(op, f),
            Msg::ResourceReply { reply, .. } => fmt::Display::fmt(reply, f),
            Msg::Replicate { key, entry: Some(e) } => write_pieces!(f, "REPLICATE ", key, " := ", e.value),
            Msg::Replicate { key, entry: None } => write_pieces!(f, "REPLICATE DEL ", key),
            Msg::SwitchMaster { .. } => f.write_str("+switch-master: the sender is the primary now"),
            Msg::ReplAck => f.write_str("REPLCONF ACK"),
            Msg::DemotionAck => f.write_str("role:replica (the demotion took)"),
        }
    }
}
