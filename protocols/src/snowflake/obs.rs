//! What Snowflake generators and the node-ID lease server record. `id_issued` is what the
//! generic `unique_ids` and `id_monotonic` checkers read (through [`IssuesIds`]); the rest is
//! the story a reader follows: refusals and waits on a clock rollback or an exhausted
//! sequence, restarts, and node-ID leases being granted, renewed, lost, expired and reused.
//!
//! A run issues thousands of IDs, so a plain `id_issued` is chatter; an ID that means something
//! (the first after a wait, the first with a new node ID, a wrapped sequence, a rollback
//! ignored) is shown. A generator never judges its own safety: it records what it saw (its
//! clock behind its last ID) and the checkers decide.

use serde::Serialize;

use locksim_sim::{Members, Names, NodeId, Observation, Salience};

use crate::ids::{HexId, IssuesIds};

/// Why a generator could not issue an ID.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Blocked {
    /// Its wall clock reads millisecond `now_ms`, before its last ID's `last_ms`.
    ClockBehind { now_ms: u64, last_ms: u64 },
    /// All 4096 sequence numbers of `ms` are used.
    SequenceExhausted { ms: u64 },
    /// `ms` is its last ID's, read back from disk after a restart without its sequence.
    SequenceUnknown { ms: u64 },
    /// Its wall clock reads before the epoch (`wall_ms` since the epoch, negative).
    BeforeEpoch { wall_ms: i64 },
    /// Millisecond `ms` does not fit in the 41-bit timestamp.
    PastMaxMs { ms: u64 },
}

/// What is worth saying about one issued ID.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IssueNote {
    Plain,
    /// The first ID of this process (at start or after a restart).
    First,
    /// The first after waiting out a rollback or an exhausted sequence.
    AfterWait,
    /// The first after refusing requests (`rollback = "reject"`).
    AfterRefusing,
    /// The first with a newly leased node ID.
    WithNewNodeId,
    /// Sequence 4095: the last ID its millisecond has room for.
    LastOfMs,
    /// The sequence wrapped to 0 within the millisecond (`sequence_overflow = "wrap"`).
    Wrapped,
    /// Issued although the clock is behind the last ID's `last_ms` (`rollback = "ignore"`).
    Behind {
        last_ms: u64,
    },
}

/// Why a generator stopped using its node ID.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum LostWhy {
    /// Its own lease deadline passed `by_ns` ago on its monotonic clock.
    DeadlinePassed { by_ns: u64 },
    /// The lease server answered a renewal: the lease is not this generator's any more.
    ServerSaysGone,
}

/// One fact of a Snowflake world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum IdObs {
    // ---- a generator (client-<i>) ----
    IdIssued {
        id: u64,
        ms: u64,
        node_id: u16,
        seq: u16,
        note: IssueNote,
    },
    /// `requests` were refused (`rollback = "reject"`, or a timestamp that cannot be encoded).
    IdRefused {
        why: Blocked,
        requests: u64,
    },
    /// The generator waits `wait_ns` (its clock) before issuing again; `requests` wait with it.
    IdWaiting {
        why: Blocked,
        wait_ns: u64,
        requests: u64,
    },
    /// It came back after a crash knowing `last_ms` (from disk, with `persist_last_ms`).
    GeneratorRestarted {
        last_ms: Option<u64>,
        persisted: bool,
    },
    /// It holds `node_id` until its monotonic clock reads `deadline_mono_ns`.
    NodeIdLeased {
        node_id: u16,
        deadline_mono_ns: u64,
    },
    /// Every node ID of the pool is leased: it waits for one, taking no requests meanwhile.
    NodeIdWaiting {
        pool: u16,
    },
    NodeIdRenewed {
        node_id: u16,
        deadline_mono_ns: u64,
    },
    /// It stopped issuing with `node_id`; `dropped` accepted requests go unanswered.
    NodeIdLost {
        node_id: u16,
        why: LostWhy,
        dropped: u64,
    },

    // ---- the node-ID lease server (server-0) ----
    /// `node_id` is now `to`'s until the server's monotonic clock reads `expires_mono_ns`;
    /// `previous` held it before (and let its lease expire).
    NodeIdGranted {
        node_id: u16,
        to: NodeId,
        expires_mono_ns: u64,
        previous: Option<NodeId>,
    },
    /// `holder`'s lease of `node_id` ran out by the server's clock: the ID is free again.
    NodeIdExpired {
        node_id: u16,
        holder: NodeId,
    },
}

/// Event names a fault can be triggered `after`, by role.
pub const GENERATOR_EVENTS: &[&str] = &[
    "id_issued",
    "id_refused",
    "id_waiting",
    "generator_restarted",
    "node_id_leased",
    "node_id_waiting",
    "node_id_renewed",
    "node_id_lost",
];
pub const LEASE_SERVER_EVENTS: &[&str] = &["node_id_granted", "node_id_expired"];

impl IssuesIds for IdObs {
    type Id = HexId;

    fn issued_id(&self) -> Option<HexId> {
        match self {
            IdObs::IdIssued { id, .. } => Some(HexId(*id)),
            _ => None,
        }
    }
}

impl Observation for IdObs {
    fn kind(&self) -> &'static str {
        match self {
            IdObs::IdIssued { .. } => "id_issued",
            IdObs::IdRefused { .. } => "id_refused",
            IdObs::IdWaiting { .. } => "id_waiting",
            IdObs::GeneratorRestarted { .. } => "generator_restarted",
            IdObs::NodeIdLeased { .. } => "node_id_leased",
            IdObs::NodeIdWaiting { .. } => "node_id_waiting",
            IdObs::NodeIdRenewed { .. } => "node_id_renewed",
            IdObs::NodeIdLost { .. } => "node_id_lost",
            IdObs::NodeIdGranted { .. } => "node_id_granted",
            IdObs::NodeIdExpired { .. } => "node_id_expired",
        }
    }

    /// Every text is this model's own literals, numbers and node names: nothing from
    /// outside the model (a fact that ever carries such a text must say `false` for it).
    fn plain_text(&self) -> bool {
        true
    }

    fn salience(&self) -> Salience {
        match self {
            IdObs::IdIssued {
                note: IssueNote::Plain, ..
            }
            | IdObs::NodeIdRenewed { .. } => Salience::Chatter,
            IdObs::IdIssued {
                note: IssueNote::Wrapped | IssueNote::Behind { .. },
                ..
            }
            | IdObs::IdRefused { .. }
            | IdObs::IdWaiting { .. }
            | IdObs::GeneratorRestarted { .. }
            | IdObs::NodeIdLost { .. }
            | IdObs::NodeIdExpired { .. }
            | IdObs::NodeIdGranted { previous: Some(_), .. } => Salience::Salient,
            IdObs::IdIssued { .. }
            | IdObs::NodeIdLeased { .. }
            | IdObs::NodeIdWaiting { .. }
            | IdObs::NodeIdGranted { previous: None, .. } => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        let mut line = String::new();
        describe::write_line(self, names, &mut line);
        line
    }

    fn describe_into(&self, names: &Names, out: &mut String) {
        describe::write_line(self, names, out);
    }

    fn write_members(&self, m: &mut Members<'_>) -> bool {
        members::write(self, m);
        true
    }

    #[inline(always)]
    fn write_line_after_stamp(&self, _: &Names, out: &mut String) -> Option<Salience> {
        match *self {
            IdObs::IdIssued {
                id,
                ms,
                node_id,
                seq,
                note,
            } => {
                let salience = self.salience();
                line::issued(out, id, ms, node_id, seq, note, salience);
                Some(salience)
            }
            _ => None,
        }
    }
}

mod describe;
mod line;
mod members;
#[cfg(test)]
mod tests;
