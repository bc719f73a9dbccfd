//! A segment-ID fact's members as its trace line has them, written by hand: a run records an
//! `id_issued` per ID, and through serde each cost more than the rest of its line. The bytes
//! are serde's (`tests.rs` compares every fact with it): keys sorted, a segment's too, the tag
//! `event` among them, a missing segment as `null`, a `NodeId` as its number. Each arm names
//! every field, so a field added to a fact does not compile until it is written.

use locksim_sim::{Members, NodeId};

use super::super::buffer::Segment;
use super::SegObs;

pub(super) fn write(obs: &SegObs, m: &mut Members<'_>) {
    // The serde tag `event` holds the fact's kind.
    let event = |m: &mut Members<'_>| m.kind("event");
    match *obs {
        SegObs::IdIssued { id, starts, resumed } => {
            event(m);
            m.uint("id", id);
            m.bool("resumed", resumed);
            opt_segment("starts", starts, m);
        }
        SegObs::SegmentRequested { prefetch } => {
            event(m);
            m.bool("prefetch", prefetch);
        }
        SegObs::MaxRead { max }
        | SegObs::Replicated { max }
        | SegObs::PromotedWith { max }
        | SegObs::SteppedDown { max } => {
            event(m);
            m.uint("max", max);
        }
        SegObs::SegmentReceived { segment } => {
            event(m);
            write_segment("segment", segment, m);
        }
        SegObs::Starved { requests } => {
            event(m);
            m.uint("requests", requests);
        }
        SegObs::IdsAbandoned { rest, prefetched } => {
            event(m);
            opt_segment("prefetched", prefetched, m);
            opt_segment("rest", rest, m);
        }
        SegObs::ProcessRestarted { resumed } => {
            event(m);
            opt_segment("resumed", resumed, m);
        }
        SegObs::SegmentGranted { to, segment } => {
            event(m);
            write_segment("segment", segment, m);
            m.uint("to", node(to));
        }
        SegObs::MaxReadBy { by, max } => {
            m.uint("by", node(by));
            event(m);
            m.uint("max", max);
        }
        SegObs::MaxWrittenBy { by, max, was } => {
            m.uint("by", node(by));
            event(m);
            m.uint("max", max);
            m.uint("was", was);
        }
    }
}

/// A node as serde writes it: its number.
fn node(id: NodeId) -> u64 {
    u64::from(id.0)
}

fn write_segment(key: &'static str, Segment { from_exclusive, to }: Segment, m: &mut Members<'_>) {
    m.object(key, |m| {
        m.uint("from_exclusive", from_exclusive);
        m.uint("to", to);
    });
}

fn opt_segment(key: &'static str, segment: Option<Segment>, m: &mut Members<'_>) {
    match segment {
        Some(segment) => write_segment(key, segment, m),
        None => m.null(key),
    }
}
