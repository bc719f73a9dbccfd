//! A segment-ID fact as one line of the timeline, appended piece by piece ([`push!`]), not
//! through `format!`: most of a run's trace lines are an issued ID's, and a `String` per fact
//! cost more than the text.

use locksim_sim::pieces::Piece;
use locksim_sim::{Names, push};

use super::super::buffer::Segment;
use super::SegObs;

/// Appends what the timeline prints for `obs` to `out`.
pub(super) fn write_line(obs: &SegObs, names: &Names, out: &mut String) {
    match *obs {
        SegObs::IdIssued {
            id,
            starts: Some(s),
            resumed,
        } => {
            push!(out, "issues ID ", id, ", the first of segment ", s);
            if resumed {
                out.push_str(" — RESUMED from disk after the crash: its IDs are issued AGAIN");
            }
        }
        SegObs::IdIssued { id, .. } => push!(out, "issues ID ", id),
        SegObs::SegmentRequested { prefetch: true } => {
            out.push_str("asks for the next segment (prefetch: the current one is partly used)")
        }
        SegObs::SegmentRequested { prefetch: false } => out.push_str("asks for a segment"),
        SegObs::MaxRead { max } => push!(out, "read max_id ", max, "; will write max_id + step back"),
        SegObs::SegmentReceived { segment } => push!(out, "received segment ", segment),
        SegObs::Starved { requests } => push!(
            out,
            "no ID left in its segments: ",
            requests,
            " request(s) WAIT for the allocator"
        ),
        SegObs::IdsAbandoned { rest, prefetched } => push!(
            out,
            "crashes: IDs ",
            Counted(rest),
            " of its segment and ",
            Counted(prefetched),
            " prefetched will never be issued — a gap, as Leaf accepts"
        ),
        SegObs::ProcessRestarted { resumed: None } => {
            out.push_str("restarts with no segment: it will ask for a new one")
        }
        SegObs::ProcessRestarted { resumed: Some(s) } => push!(
            out,
            "restarts and RESUMES segment ",
            s,
            " from its disk, to leave no gap"
        ),
        SegObs::SegmentGranted { to, segment } => push!(
            out,
            "max_id ",
            segment.from_exclusive,
            " -> ",
            segment.to,
            ": segment ",
            segment,
            " to ",
            names.of(to)
        ),
        SegObs::MaxReadBy { by, max } => push!(out, names.of(by), " reads max_id ", max),
        SegObs::MaxWrittenBy { by, max, was } => {
            push!(out, names.of(by), " writes max_id ", max, " over ", was);
            if max <= was {
                out.push_str(" — LOST UPDATE: not above what it was");
            }
        }
        SegObs::Replicated { max } => push!(out, "replicated max_id ", max),
        SegObs::PromotedWith { max } => push!(
            out,
            "PROMOTED to allocator with max_id ",
            max,
            ", what replication had brought it"
        ),
        SegObs::SteppedDown { max } => push!(out, "steps down (its max_id was ", max, "): allocates no more"),
    }
}

/// A segment and how many IDs it holds, or that there is none.
struct Counted(Option<Segment>);

impl Piece for Counted {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            Some(s) => push!(out, s, " (", s.ids(), " IDs)"),
            None => out.push_str("nothing"),
        }
    }
}
