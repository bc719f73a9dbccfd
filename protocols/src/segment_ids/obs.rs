//! What segment-ID processes and the allocator database record. `id_issued` is what the
//! generic ID checkers read (through [`IssuesIds`]); the rest is the story a reader follows:
//! segments asked for, granted and switched to, the IDs a crash throws away (the gaps Leaf
//! accepts), a segment resumed after a crash, the max read and written by the non-atomic
//! variant, replication and a failover.

use serde::Serialize;

use locksim_sim::{Members, Names, NodeId, Observation, Salience};

use super::buffer::Segment;
use crate::ids::IssuesIds;

/// One fact of a segment-ID world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SegObs {
    // ---- a process (client-<i>) ----
    /// `starts` is the segment this ID is the first of; `resumed` when that segment was
    /// read back from disk after a restart (`after_crash = "resume_segment"`).
    IdIssued {
        id: u64,
        starts: Option<Segment>,
        resumed: bool,
    },
    /// It asked the allocator for a segment (or again, after a retry or a promotion);
    /// `prefetch` when the current one still has IDs.
    SegmentRequested {
        prefetch: bool,
    },
    /// The non-atomic variant read the max, and will write `max + step` back.
    MaxRead {
        max: u64,
    },
    SegmentReceived {
        segment: Segment,
    },
    /// No ID left in either segment: `requests` wait for the next one.
    Starved {
        requests: u64,
    },
    /// It crashed: these IDs will never be issued.
    IdsAbandoned {
        rest: Option<Segment>,
        prefetched: Option<Segment>,
    },
    /// It came back; `resumed` is the segment it read back from disk to use again.
    ProcessRestarted {
        resumed: Option<Segment>,
    },

    // ---- the allocator database (server-0, replica-0) ----
    SegmentGranted {
        to: NodeId,
        segment: Segment,
    },
    MaxReadBy {
        by: NodeId,
        max: u64,
    },
    /// `by` wrote `max` over `was`: a lost update when `max` is not above `was + step`.
    MaxWrittenBy {
        by: NodeId,
        max: u64,
        was: u64,
    },
    Replicated {
        max: u64,
    },
    /// The replica took over as the allocator with the max it had.
    PromotedWith {
        max: u64,
    },
    /// The old primary heard of the promotion and stopped allocating.
    SteppedDown {
        max: u64,
    },
}

/// Event names a fault can be triggered `after`, by role.
pub const PROCESS_EVENTS: &[&str] = &[
    "id_issued",
    "segment_requested",
    "max_read",
    "segment_received",
    "starved",
    "ids_abandoned",
    "process_restarted",
];
pub const ALLOCATOR_EVENTS: &[&str] = &[
    "segment_granted",
    "max_read_by",
    "max_written_by",
    "replicated",
    "promoted_with",
    "stepped_down",
];

impl IssuesIds for SegObs {
    type Id = u64;

    fn issued_id(&self) -> Option<u64> {
        match self {
            SegObs::IdIssued { id, .. } => Some(*id),
            _ => None,
        }
    }
}

impl Observation for SegObs {
    fn kind(&self) -> &'static str {
        match self {
            SegObs::IdIssued { .. } => "id_issued",
            SegObs::SegmentRequested { .. } => "segment_requested",
            SegObs::MaxRead { .. } => "max_read",
            SegObs::SegmentReceived { .. } => "segment_received",
            SegObs::Starved { .. } => "starved",
            SegObs::IdsAbandoned { .. } => "ids_abandoned",
            SegObs::ProcessRestarted { .. } => "process_restarted",
            SegObs::SegmentGranted { .. } => "segment_granted",
            SegObs::MaxReadBy { .. } => "max_read_by",
            SegObs::MaxWrittenBy { .. } => "max_written_by",
            SegObs::Replicated { .. } => "replicated",
            SegObs::PromotedWith { .. } => "promoted_with",
            SegObs::SteppedDown { .. } => "stepped_down",
        }
    }

    /// Every text is this model's own literals, numbers and node names: nothing from
    /// outside the model (a fact that ever carries such a text must say `false` for it).
    fn plain_text(&self) -> bool {
        true
    }

    fn salience(&self) -> Salience {
        match self {
            SegObs::IdIssued {
                starts: None,
                resumed: false,
                ..
            }
            | SegObs::Replicated { .. }
            | SegObs::MaxReadBy { .. }
            | SegObs::SegmentRequested { .. } => Salience::Chatter,
            SegObs::IdIssued { resumed: true, .. }
            | SegObs::IdsAbandoned { .. }
            | SegObs::ProcessRestarted { .. }
            | SegObs::PromotedWith { .. }
            | SegObs::SteppedDown { .. } => Salience::Salient,
            SegObs::MaxWrittenBy { max, was, .. } if max <= was => Salience::Salient,
            _ => Salience::Routine,
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
}

mod describe;
mod members;
#[cfg(test)]
mod tests;
