//! The Redis-family wire: what a lock client, a Redis server, Sentinel and the fenced resource
//! send each other in a Single Redis or Redlock world.

use std::fmt;

use locksim_sim::pieces::{Piece, fmt_piece};
use locksim_sim::{NodeId, push};

use super::cmd::{Cmd, Key, Reply};
use super::store::Entry;
use crate::lock::resource::{ResourceOp, ResourceReply};

/// A request carries the sender's request id; the reply echoes it, so late replies to
/// abandoned requests are recognised and ignored. `Copy`: every part is a plain value, and the
/// engine clones each message into its send and delivery events (a copy rather than a match).
#[derive(Copy, Clone, Debug)]
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

impl Piece for Msg {
    fn push_to(&self, out: &mut String) {
        match self {
            Msg::Redis { cmd, .. } => cmd.push_to(out),
            Msg::RedisReply { reply, .. } => reply.push_to(out),
            Msg::Resource { op, .. } => op.push_to(out),
            Msg::ResourceReply { reply, .. } => reply.push_to(out),
            Msg::Replicate { key, entry: Some(e) } => push!(out, "REPLICATE ", *key, " := ", e.value),
            Msg::Replicate { key, entry: None } => push!(out, "REPLICATE DEL ", *key),
            Msg::SwitchMaster { .. } => out.push_str("+switch-master: the sender is the primary now"),
            Msg::ReplAck => out.push_str("REPLCONF ACK"),
            Msg::DemotionAck => out.push_str("role:replica (the demotion took)"),
        }
    }
}

/// The trace formats a message once per send: its text pushed in place ([`fmt_piece`]), its
/// command's or reply's pieces with it.
impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_piece(self, f)
    }
}
