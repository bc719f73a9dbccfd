//! What the election world records. The checkers read only these: who became leader of which
//! term, the register operations as the clients saw them (invoked, returned, or given up on),
//! and what the external resource accepted.

use locksim_sim::time::fmt_duration;
use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ElectObs {
    // ---- a server ----
    /// Won a majority of votes for `term` (or, at boot, leads term 1).
    BecameLeader {
        term: u64,
    },
    /// Leads no more: it saw a higher term, or (CheckQuorum) heard from no majority for an
    /// election timeout.
    SteppedDown {
        term: u64,
        why: &'static str,
    },
    /// A lease read's check: the lease runs `remaining_ns` more on this server's monotonic
    /// clock (negative: expired). A pause placed after this event falls between the check and
    /// the reply.
    LeaseChecked {
        remaining_ns: i64,
        ok: bool,
    },
    /// The leader sent its write to the external resource.
    ActSent {
        term: u64,
        seq: u64,
    },

    // ---- a client ----
    /// The client invoked an operation: a read (`write` none) or a write of `write`.
    Invoked {
        write: Option<u64>,
    },
    /// The operation returned: a read's value (none: never written), or the value written.
    Returned {
        value: Option<u64>,
    },
    /// No answer in time: the operation may or may not have taken effect.
    GaveUp,

    // ---- the external resource ----
    ActAccepted {
        leader: NodeId,
        term: u64,
        seq: u64,
    },
    /// Fenced: a write of an older term than one already accepted.
    ActRefused {
        leader: NodeId,
        term: u64,
        max: u64,
    },
}

pub const SERVER_EVENTS: &[&str] = &["became_leader", "stepped_down", "lease_checked", "act_sent"];
pub const CLIENT_EVENTS: &[&str] = &["invoked", "returned", "gave_up"];
pub const RESOURCE_EVENTS: &[&str] = &["act_accepted", "act_refused"];

impl Observation for ElectObs {
    fn kind(&self) -> &'static str {
        match self {
            ElectObs::BecameLeader { .. } => "became_leader",
            ElectObs::SteppedDown { .. } => "stepped_down",
            ElectObs::LeaseChecked { .. } => "lease_checked",
            ElectObs::ActSent { .. } => "act_sent",
            ElectObs::Invoked { .. } => "invoked",
            ElectObs::Returned { .. } => "returned",
            ElectObs::GaveUp => "gave_up",
            ElectObs::ActAccepted { .. } => "act_accepted",
            ElectObs::ActRefused { .. } => "act_refused",
        }
    }

    /// Leadership changes and refusals are the story; the operations are routine, the lease
    /// checks and the leader's acts chatter.
    fn salience(&self) -> Salience {
        match self {
            ElectObs::BecameLeader { .. } | ElectObs::SteppedDown { .. } | ElectObs::ActRefused { .. } => {
                Salience::Salient
            }
            ElectObs::LeaseChecked { ok: false, .. } | ElectObs::GaveUp => Salience::Salient,
            ElectObs::LeaseChecked { .. } | ElectObs::ActSent { .. } => Salience::Chatter,
            _ => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        let value = |v: &Option<u64>| v.map_or("nil".to_string(), |v| v.to_string());
        match self {
            ElectObs::BecameLeader { term } => format!("LEADER of term {term}"),
            ElectObs::SteppedDown { term, why } => format!("steps down from term {term}: {why}"),
            ElectObs::LeaseChecked { remaining_ns, ok: true } => {
                format!(
                    "lease read: lease valid for {} more",
                    fmt_duration(*remaining_ns as u64)
                )
            }
            ElectObs::LeaseChecked {
                remaining_ns,
                ok: false,
            } => format!(
                "lease read: lease expired {} ago, not served",
                fmt_duration(remaining_ns.unsigned_abs())
            ),
            ElectObs::ActSent { term, seq } => format!("acts on the resource (#{seq}, term {term})"),
            ElectObs::Invoked { write: None } => "read()".to_string(),
            ElectObs::Invoked { write: Some(v) } => format!("write({v})"),
            ElectObs::Returned { value: v } => format!("-> {}", value(v)),
            ElectObs::GaveUp => "no answer in time: outcome unknown".to_string(),
            ElectObs::ActAccepted { leader, term, seq } => {
                format!("accepts act #{seq} of {} (term {term})", names.of(*leader))
            }
            ElectObs::ActRefused { leader, term, max } => format!(
                "REFUSES {}'s act of term {term}: term {max} already wrote",
                names.of(*leader)
            ),
        }
    }
}
