//! The segment-ID wire: processes and the allocator database, and the database's replication.
//! Every request carries the sender's request number and its answer echoes it, so a late
//! answer to an abandoned request is recognised and ignored.

use std::fmt;

use locksim_sim::Ctx;

use super::obs::SegObs;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    // ---- a process -> the allocator ----
    /// Atomically: `UPDATE leaf_alloc SET max_id = max_id + step; SELECT max_id` in one
    /// transaction (Leaf).
    Allocate {
        req: u64,
    },
    /// The wrong variant's first half: `SELECT max_id`.
    ReadMax {
        req: u64,
    },
    /// The wrong variant's second half: `UPDATE leaf_alloc SET max_id = <max>`, computed by
    /// the process from what it read.
    WriteMax {
        req: u64,
        max: u64,
    },

    // ---- the allocator -> a process ----
    Granted {
        req: u64,
        from_exclusive: u64,
        to: u64,
    },
    MaxIs {
        req: u64,
        max: u64,
    },
    MaxWritten {
        req: u64,
    },
    /// This database is not the allocator (any more).
    NotPrimary {
        req: u64,
    },

    // ---- replication ----
    /// The primary's max after its `version`-th change, shipped to its replica.
    Replicate {
        version: u64,
        max: u64,
    },
    /// The replica has applied change `version` (semi-synchronous replication waits for it).
    ReplicaAck {
        version: u64,
    },
    /// The replica was promoted: send allocations here from now on.
    Promoted,
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Allocate { .. } => f.write_str("ALLOCATE: max_id = max_id + step"),
            Msg::ReadMax { .. } => f.write_str("SELECT max_id"),
            Msg::WriteMax { max, .. } => write!(f, "UPDATE max_id = {max}"),
            Msg::Granted { from_exclusive, to, .. } => write!(f, "GRANTED ({from_exclusive}, {to}]"),
            Msg::MaxIs { max, .. } => write!(f, "max_id = {max}"),
            Msg::MaxWritten { .. } => f.write_str("UPDATED"),
            Msg::NotPrimary { .. } => f.write_str("NOT PRIMARY"),
            Msg::Replicate { version, max } => write!(f, "REPLICATE change {version}: max_id = {max}"),
            Msg::ReplicaAck { version } => write!(f, "ACK change {version}"),
            Msg::Promoted => f.write_str("PROMOTED: I am the allocator"),
        }
    }
}

pub type SegCtx<'a> = Ctx<'a, Msg, SegObs>;
