//! The Snowflake wire: what generators and the node-ID lease server send each other, and the
//! context their steps run in.

use std::fmt;

use locksim_sim::Ctx;

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
