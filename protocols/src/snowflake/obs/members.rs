//! A Snowflake fact's members as its trace line has them, written by hand: a run records an
//! `id_issued` per ID, half its events, and through serde each cost more than the rest of its
//! line. The bytes are serde's (`tests.rs` compares every fact with it): keys sorted, nested
//! ones too, the tags `event`, `kind` and `reason` among them (constants, copied unescaped), an `Option` as `null`, a
//! `NodeId` as its number. Each arm names every field, so a field added to a fact does not
//! compile until it is written.

use locksim_sim::{Members, NodeId, Observation, member_key};

use crate::ids::SmallUint;

use super::{Blocked, IdObs, IssueNote, LostWhy};

pub(super) fn write(obs: &IdObs, m: &mut Members<'_>) {
    // The serde tag `event` holds the fact's kind.
    let event = |m: &mut Members<'_>| m.plain_kind(member_key!("event"), obs.kind());
    match *obs {
        IdObs::IdIssued {
            id,
            ms,
            node_id,
            seq,
            note,
        } => {
            // The tag's member, key and value, as one constant ([`Members::raw`]): three pieces
            // fewer than `plain_kind`'s.
            m.raw(&["event"], ",\"event\":\"id_issued\"");
            m.uint(member_key!("id"), id);
            m.uint(member_key!("ms"), ms);
            m.digits(member_key!("node_id"), &SmallUint(node_id));
            write_note(note, m);
            m.digits(member_key!("seq"), &SmallUint(seq));
        }
        IdObs::IdRefused { why, requests } => {
            event(m);
            m.uint(member_key!("requests"), requests);
            m.object(member_key!("why"), |m| write_blocked(why, m));
        }
        IdObs::IdWaiting { why, wait_ns, requests } => {
            event(m);
            m.uint(member_key!("requests"), requests);
            m.uint(member_key!("wait_ns"), wait_ns);
            m.object(member_key!("why"), |m| write_blocked(why, m));
        }
        IdObs::GeneratorRestarted { last_ms, persisted } => {
            event(m);
            m.opt_uint(member_key!("last_ms"), last_ms);
            m.bool(member_key!("persisted"), persisted);
        }
        IdObs::NodeIdLeased {
            node_id,
            deadline_mono_ns,
        }
        | IdObs::NodeIdRenewed {
            node_id,
            deadline_mono_ns,
        } => {
            m.uint(member_key!("deadline_mono_ns"), deadline_mono_ns);
            event(m);
            m.uint(member_key!("node_id"), u64::from(node_id));
        }
        IdObs::NodeIdWaiting { pool } => {
            event(m);
            m.uint(member_key!("pool"), u64::from(pool));
        }
        IdObs::NodeIdLost { node_id, why, dropped } => {
            m.uint(member_key!("dropped"), dropped);
            event(m);
            m.uint(member_key!("node_id"), u64::from(node_id));
            m.object(member_key!("why"), |m| match why {
                LostWhy::DeadlinePassed { by_ns } => {
                    m.uint(member_key!("by_ns"), by_ns);
                    m.tag(member_key!("reason"), "deadline_passed");
                }
                LostWhy::ServerSaysGone => m.tag(member_key!("reason"), "server_says_gone"),
            });
        }
        IdObs::NodeIdGranted {
            node_id,
            to,
            expires_mono_ns,
            previous,
        } => {
            event(m);
            m.uint(member_key!("expires_mono_ns"), expires_mono_ns);
            m.uint(member_key!("node_id"), u64::from(node_id));
            m.opt_uint(member_key!("previous"), previous.map(node));
            m.uint(member_key!("to"), node(to));
        }
        IdObs::NodeIdExpired { node_id, holder } => {
            event(m);
            m.uint(member_key!("holder"), node(holder));
            m.uint(member_key!("node_id"), u64::from(node_id));
        }
    }
}

/// A node as serde writes it: its number.
fn node(id: NodeId) -> u64 {
    u64::from(id.0)
}

/// `"note"`: a unit variant's member a constant, key and object copied whole
/// ([`Members::raw`]), as most issued IDs' notes are — each arm its own call, so that the copy's length is a constant too
/// (one `&str` chosen among seven was a `memcpy` call); `Behind`'s (rare) written member by
/// member.
fn write_note(note: IssueNote, m: &mut Members<'_>) {
    macro_rules! unit {
        ($kind:literal) => {
            m.raw(&["note"], concat!(",\"note\":{\"kind\":\"", $kind, "\"}"))
        };
    }
    match note {
        IssueNote::Plain => unit!("plain"),
        IssueNote::First => unit!("first"),
        IssueNote::AfterWait => unit!("after_wait"),
        IssueNote::AfterRefusing => unit!("after_refusing"),
        IssueNote::WithNewNodeId => unit!("with_new_node_id"),
        IssueNote::LastOfMs => unit!("last_of_ms"),
        IssueNote::Wrapped => unit!("wrapped"),
        IssueNote::Behind { last_ms } => m.object(member_key!("note"), |m| {
            m.tag(member_key!("kind"), "behind");
            m.uint(member_key!("last_ms"), last_ms);
        }),
    }
}

fn write_blocked(why: Blocked, m: &mut Members<'_>) {
    match why {
        Blocked::ClockBehind { now_ms, last_ms } => {
            m.uint(member_key!("last_ms"), last_ms);
            m.uint(member_key!("now_ms"), now_ms);
            m.tag(member_key!("reason"), "clock_behind");
        }
        Blocked::SequenceExhausted { ms } => {
            m.uint(member_key!("ms"), ms);
            m.tag(member_key!("reason"), "sequence_exhausted");
        }
        Blocked::SequenceUnknown { ms } => {
            m.uint(member_key!("ms"), ms);
            m.tag(member_key!("reason"), "sequence_unknown");
        }
        Blocked::BeforeEpoch { wall_ms } => {
            m.tag(member_key!("reason"), "before_epoch");
            m.int(member_key!("wall_ms"), wall_ms);
        }
        Blocked::PastMaxMs { ms } => {
            m.uint(member_key!("ms"), ms);
            m.tag(member_key!("reason"), "past_max_ms");
        }
    }
}
