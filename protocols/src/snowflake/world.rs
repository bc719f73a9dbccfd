//! The Snowflake world: the messages between generators and the node-ID lease server, and the
//! node type that puts both into one simulation.

use std::fmt;

use locksim_sim::{Ctx, Node, NodeId, TimerTag};

use super::generator::Generator;
use super::node_lease::NodeLeaseServer;
use super::obs::IdObs;

/// Generator <-> lease server. Every request carries the sender's request number and the
/// answer echoes it, so a late answer to an abandoned request is recognised and ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// "Give me a node ID" (or, from its current holder, "extend mine").
    Lease {
        req: u64,
    },
    Renew {
        req: u64,
        node_id: u16,
    },
    Granted {
        req: u64,
        node_id: u16,
    },
    /// Every node ID of the pool (`pool` of them) is leased: ask again later.
    NoneFree {
        req: u64,
        pool: u16,
    },
    Renewed {
        req: u64,
    },
    /// The renewed lease is not the sender's any more (it expired, maybe to another holder).
    Gone {
        req: u64,
    },
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Lease { .. } => f.write_str("LEASE a node ID"),
            Msg::Renew { node_id, .. } => write!(f, "RENEW node ID {node_id}"),
            Msg::Granted { node_id, .. } => write!(f, "GRANTED node ID {node_id}"),
            Msg::NoneFree { pool, .. } => write!(f, "NONE FREE (all {pool} leased)"),
            Msg::Renewed { .. } => f.write_str("RENEWED"),
            Msg::Gone { .. } => f.write_str("GONE: not your lease"),
        }
    }
}

pub type IdCtx<'a> = Ctx<'a, Msg, IdObs>;

/// Every role of a Snowflake world.
pub enum IdNode {
    Generator(Box<Generator>),
    LeaseServer(NodeLeaseServer),
}

impl Node for IdNode {
    type Msg = Msg;
    type Obs = IdObs;

    fn on_start(&mut self, ctx: &mut IdCtx<'_>) {
        match self {
            IdNode::Generator(g) => g.on_start(ctx),
            IdNode::LeaseServer(s) => s.on_start(ctx),
        }
    }

    fn on_msg(&mut self, ctx: &mut IdCtx<'_>, from: NodeId, msg: Msg) {
        match self {
            IdNode::Generator(g) => g.on_msg(ctx, msg),
            IdNode::LeaseServer(s) => s.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut IdCtx<'_>, tag: TimerTag) {
        match self {
            IdNode::Generator(g) => g.on_timer(ctx, tag),
            IdNode::LeaseServer(s) => s.on_timer(ctx, tag),
        }
    }

    fn on_crash(&mut self, _ctx: &mut IdCtx<'_>) {
        match self {
            IdNode::Generator(g) => g.on_crash(),
            // The lease table is durable (as in etcd or ZooKeeper): a crash loses only time.
            IdNode::LeaseServer(_) => {}
        }
    }
}
