//! Segment-ID facts' trace lines: their members and texts as serde and `format!` wrote them.

use super::super::buffer::Segment;
use super::*;

/// Segment-ID facts write their own trace members (`members.rs`): byte for byte what the serde
/// path writes, for every fact.
#[test]
fn every_fact_writes_the_members_serde_writes() {
    crate::hand_written::members_match_serde(
        every_fact(),
        &[PROCESS_EVENTS, ALLOCATOR_EVENTS].concat(),
        &["client-0", "client-1"],
    );
}

/// Segment-ID facts write their timeline texts piece by piece (`describe.rs`): the texts they
/// had through `format!`, kept in `texts.txt` (one per fact of [`every_fact`], in order), and
/// the same text when a trace line takes it in place.
#[test]
fn every_fact_reads_as_it_did_through_format() {
    crate::hand_written::texts_match_recorded(&every_fact(), include_str!("texts.txt"), &["client-0", "client-1"]);
}

/// One fact of every kind, with every branch of its text, and the values whose spelling
/// differs (zero, one, the largest, no segment).
fn every_fact() -> Vec<SegObs> {
    let seg = |from_exclusive, to| Segment { from_exclusive, to };
    let mut facts = vec![];
    for (starts, resumed) in [
        (None, false),
        (Some(seg(0, 1000)), false),
        (Some(seg(1000, 2000)), true),
        (None, true),
    ] {
        facts.push(SegObs::IdIssued {
            id: 1001,
            starts,
            resumed,
        });
    }
    facts.push(SegObs::IdIssued {
        id: u64::MAX,
        starts: Some(seg(u64::MAX - 1, u64::MAX)),
        resumed: false,
    });
    for prefetch in [true, false] {
        facts.push(SegObs::SegmentRequested { prefetch });
    }
    facts.push(SegObs::MaxRead { max: 0 });
    facts.push(SegObs::SegmentReceived { segment: seg(3, 7) });
    for requests in [0, 1, u64::MAX] {
        facts.push(SegObs::Starved { requests });
    }
    for (rest, prefetched) in [
        (None, None),
        (Some(seg(1500, 2000)), None),
        (None, Some(seg(2000, 3000))),
        (Some(seg(1999, 2000)), Some(seg(2000, 3000))),
    ] {
        facts.push(SegObs::IdsAbandoned { rest, prefetched });
    }
    for resumed in [None, Some(seg(1000, 2000))] {
        facts.push(SegObs::ProcessRestarted { resumed });
    }
    facts.push(SegObs::SegmentGranted {
        to: NodeId(1),
        segment: seg(0, 1000),
    });
    facts.push(SegObs::MaxReadBy { by: NodeId(0), max: 1 });
    for (max, was) in [(2000, 1000), (1000, 1000), (999, 1000)] {
        facts.push(SegObs::MaxWrittenBy {
            by: NodeId(1),
            max,
            was,
        });
    }
    facts.push(SegObs::Replicated { max: 5 });
    facts.push(SegObs::PromotedWith { max: u64::MAX });
    facts.push(SegObs::SteppedDown { max: 0 });
    facts
}
