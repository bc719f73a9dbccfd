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

use locksim_sim::time::fmt_signed_secs;
use locksim_sim::{Names, NodeId, Observation, Salience};

use super::id::SnowflakeId;
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

/// A duration on a generator's clock, to the microsecond: waits are often below 1 ms.
fn fmt_wait(ns: u64) -> String {
    let us = ns / 1_000;
    if us.is_multiple_of(1_000) {
        format!("{} ms", us / 1_000)
    } else {
        format!("{}.{:03} ms", us / 1_000, us % 1_000)
    }
}

fn requests(n: u64) -> String {
    if n == 1 {
        "1 request".into()
    } else {
        format!("{n} requests")
    }
}

/// What the timeline adds after an issued ID: why this one is worth a look, if it is.
fn issue_note(note: &IssueNote, ms: u64, node_id: u16) -> String {
    match note {
        IssueNote::Plain => String::new(),
        IssueNote::First => " — its first".into(),
        IssueNote::AfterWait => " — the first after waiting".into(),
        IssueNote::AfterRefusing => " — the first since it refused".into(),
        IssueNote::WithNewNodeId => format!(" — the first with node ID {node_id}"),
        IssueNote::LastOfMs => format!(" — the 4096th in ms {ms}: its sequence is used up"),
        IssueNote::Wrapped => format!(" — request 4097 of ms {ms}: the sequence WRAPPED to 0"),
        IssueNote::Behind { last_ms } => format!(
            " — its clock is {} ms behind its last ID's ms {last_ms}: rollback IGNORED",
            last_ms - ms
        ),
    }
}

/// What a blocked generator waits for before it can issue again.
fn waits_for(why: &Blocked) -> String {
    match why {
        Blocked::SequenceExhausted { ms } | Blocked::SequenceUnknown { ms } => format!("ms {}", ms + 1),
        Blocked::ClockBehind { last_ms, .. } => format!("its clock to reach ms {last_ms}"),
        _ => "its clock".into(),
    }
}

fn blocked(why: &Blocked) -> String {
    match why {
        Blocked::ClockBehind { now_ms, last_ms } => format!(
            "its wall clock reads ms {now_ms}, {} ms behind its last ID's ms {last_ms} (clock rollback)",
            last_ms - now_ms
        ),
        Blocked::SequenceExhausted { ms } => {
            format!("all 4096 sequence numbers of ms {ms} are used")
        }
        Blocked::SequenceUnknown { ms } => {
            format!("ms {ms} is its last ID's, read back from disk without its sequence numbers")
        }
        Blocked::BeforeEpoch { wall_ms } => format!("its wall clock reads {wall_ms} ms, before the epoch"),
        Blocked::PastMaxMs { ms } => format!("ms {ms} does not fit in the 41-bit timestamp"),
    }
}

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
        match self {
            IdObs::IdIssued {
                ms, node_id, seq, note, ..
            } => {
                let id = SnowflakeId {
                    ms: *ms,
                    node: *node_id,
                    seq: *seq,
                };
                let why = issue_note(note, *ms, *node_id);
                format!("issues ID {id}{why}")
            }
            IdObs::IdRefused { why, requests: n } => {
                format!("REFUSES {}: {}", requests(*n), blocked(why))
            }
            IdObs::IdWaiting {
                why,
                wait_ns,
                requests: n,
            } => {
                let until = waits_for(why);
                format!(
                    "{}: WAITS {} for {until} ({} waiting)",
                    blocked(why),
                    fmt_wait(*wait_ns),
                    requests(*n)
                )
            }
            IdObs::GeneratorRestarted {
                last_ms: Some(ms),
                persisted: true,
            } => format!("restarts; reads its last ID's ms {ms} back from disk"),
            IdObs::GeneratorRestarted { persisted: true, .. } => "restarts; had issued nothing before the crash".into(),
            IdObs::GeneratorRestarted { persisted: false, .. } => {
                "restarts with its last ID's ms FORGOTTEN (not persisted)".into()
            }
            IdObs::NodeIdLeased {
                node_id,
                deadline_mono_ns,
            } => format!(
                "leased node ID {node_id} (deadline mono {})",
                fmt_signed_secs(*deadline_mono_ns as i64)
            ),
            IdObs::NodeIdWaiting { pool } => {
                format!("no free node ID (all {pool} leased): waits for one, takes no requests")
            }
            IdObs::NodeIdRenewed {
                node_id,
                deadline_mono_ns,
            } => format!(
                "renewed node ID {node_id} (deadline mono {})",
                fmt_signed_secs(*deadline_mono_ns as i64)
            ),
            IdObs::NodeIdLost { node_id, why, dropped } => {
                let why = match why {
                    LostWhy::DeadlinePassed { by_ns } => format!(
                        "its lease deadline passed {} ago on its monotonic clock",
                        fmt_signed_secs(*by_ns as i64)
                    ),
                    LostWhy::ServerSaysGone => "server-0 says the lease is not its own".into(),
                };
                format!(
                    "NODE ID {node_id} LOST: {why}; stops issuing ({} dropped)",
                    requests(*dropped)
                )
            }
            IdObs::NodeIdGranted {
                node_id,
                to,
                expires_mono_ns,
                previous,
            } => {
                let reused = match previous {
                    Some(p) => format!(" — REUSED: it was {}'s, whose lease expired", names.of(*p)),
                    None => String::new(),
                };
                format!(
                    "node ID {node_id} leased to {} until mono {}{reused}",
                    names.of(*to),
                    fmt_signed_secs(*expires_mono_ns as i64)
                )
            }
            IdObs::NodeIdExpired { node_id, holder } => {
                format!("node ID {node_id}'s lease ({}) EXPIRED", names.of(*holder))
            }
        }
    }
}

#[cfg(test)]
mod tests;
