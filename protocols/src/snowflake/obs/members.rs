//! A Snowflake fact's members as its trace line has them, written by hand: a run records an
//! `id_issued` per ID, half its events, and through serde each cost more than the rest of its
//! line. The bytes are serde's (`tests.rs` compares every fact with it): keys sorted, nested
//! ones too, the tags `event`, `kind` and `reason` among them (constants, copied unescaped), an `Option` as `null`, a
//! `NodeId` as its number. Each arm names every field, so a field added to a fact does not
//! compile until it is written.

use locksim_sim::{Members, NodeId};

use super::{Blocked, IdObs, IssueNote, LostWhy};

pub(super) fn write(obs: &IdObs, m: &mut Members<'_>) {
    // The serde tag `event` holds the fact's kind.
    let event = |m: &mut Members<'_>| m.kind("event");
    match *obs {
        IdObs::IdIssued {
            id,
            ms,
            node_id,
            seq,
            note,
        } => {
            event(m);
            m.uint("id", id);
            m.uint("ms", ms);
            m.uint("node_id", u64::from(node_id));
            m.object("note", |m| write_note(note, m));
            m.uint("seq", u64::from(seq));
        }
        IdObs::IdRefused { why, requests } => {
            event(m);
            m.uint("requests", requests);
            m.object("why", |m| write_blocked(why, m));
        }
        IdObs::IdWaiting { why, wait_ns, requests } => {
            event(m);
            m.uint("requests", requests);
            m.uint("wait_ns", wait_ns);
            m.object("why", |m| write_blocked(why, m));
        }
        IdObs::GeneratorRestarted { last_ms, persisted } => {
            event(m);
            m.opt_uint("last_ms", last_ms);
            m.bool("persisted", persisted);
        }
        IdObs::NodeIdLeased {
            node_id,
            deadline_mono_ns,
        }
        | IdObs::NodeIdRenewed {
            node_id,
            deadline_mono_ns,
        } => {
            m.uint("deadline_mono_ns", deadline_mono_ns);
            event(m);
            m.uint("node_id", u64::from(node_id));
        }
        IdObs::NodeIdWaiting { pool } => {
            event(m);
            m.uint("pool", u64::from(pool));
        }
        IdObs::NodeIdLost { node_id, why, dropped } => {
            m.uint("dropped", dropped);
            event(m);
            m.uint("node_id", u64::from(node_id));
            m.object("why", |m| match why {
                LostWhy::DeadlinePassed { by_ns } => {
                    m.uint("by_ns", by_ns);
                    m.tag("reason", "deadline_passed");
                }
                LostWhy::ServerSaysGone => m.tag("reason", "server_says_gone"),
            });
        }
        IdObs::NodeIdGranted {
            node_id,
            to,
            expires_mono_ns,
            previous,
        } => {
            event(m);
            m.uint("expires_mono_ns", expires_mono_ns);
            m.uint("node_id", u64::from(node_id));
            m.opt_uint("previous", previous.map(node));
            m.uint("to", node(to));
        }
        IdObs::NodeIdExpired { node_id, holder } => {
            event(m);
            m.uint("holder", node(holder));
            m.uint("node_id", u64::from(node_id));
        }
    }
}

/// A node as serde writes it: its number.
fn node(id: NodeId) -> u64 {
    u64::from(id.0)
}

fn write_note(note: IssueNote, m: &mut Members<'_>) {
    let kind = match note {
        IssueNote::Plain => "plain",
        IssueNote::First => "first",
        IssueNote::AfterWait => "after_wait",
        IssueNote::AfterRefusing => "after_refusing",
        IssueNote::WithNewNodeId => "with_new_node_id",
        IssueNote::LastOfMs => "last_of_ms",
        IssueNote::Wrapped => "wrapped",
        IssueNote::Behind { last_ms } => {
            m.tag("kind", "behind");
            m.uint("last_ms", last_ms);
            return;
        }
    };
    m.tag("kind", kind);
}

fn write_blocked(why: Blocked, m: &mut Members<'_>) {
    match why {
        Blocked::ClockBehind { now_ms, last_ms } => {
            m.uint("last_ms", last_ms);
            m.uint("now_ms", now_ms);
            m.tag("reason", "clock_behind");
        }
        Blocked::SequenceExhausted { ms } => {
            m.uint("ms", ms);
            m.tag("reason", "sequence_exhausted");
        }
        Blocked::SequenceUnknown { ms } => {
            m.uint("ms", ms);
            m.tag("reason", "sequence_unknown");
        }
        Blocked::BeforeEpoch { wall_ms } => {
            m.tag("reason", "before_epoch");
            m.int("wall_ms", wall_ms);
        }
        Blocked::PastMaxMs { ms } => {
            m.uint("ms", ms);
            m.tag("reason", "past_max_ms");
        }
    }
}
