//! Segment-ID facts' trace lines: their members and texts as serde and `format!` wrote them.

use super::super::buffer::Segment;
use super::*;

/// Segment-ID facts write their own trace members (`members.rs`): byte for byte what the serde
/// path writes, for every fact.
#[test]
fn every_fact_writes_the_members_serde_writes() {
    use locksim_sim::trace::{LineWriter, erase_event};
    use locksim_sim::{Event, What};

    let facts = every_fact();
    let kinds: std::collections::BTreeSet<&str> = facts.iter().map(Observation::kind).collect();
    let all = [PROCESS_EVENTS, ALLOCATOR_EVENTS].concat().into_iter().collect();
    assert_eq!(kinds, all, "every fact");
    let names = Names::new(vec!["client-0".into(), "client-1".into()]);
    let mut lines = LineWriter::default();
    for (index, fact) in facts.into_iter().enumerate() {
        let e: Event<&str, SegObs> = Event {
            t_ns: 1,
            node: NodeId(0),
            wall_ns: 2,
            mono_ns: 3,
            what: What::Observe(fact),
        };
        assert_eq!(lines.write(&names, index, &e).0, erase_event(&names, index, &e).json);
    }
}

/// Segment-ID facts write their timeline texts piece by piece (`describe.rs`): the texts they
/// had through `format!`, kept in `texts.txt` (one per fact of [`every_fact`], in order), and
/// the same text when a trace line takes it in place.
#[test]
fn every_fact_reads_as_it_did_through_format() {
    let names = Names::new(vec!["client-0".into(), "client-1".into()]);
    let texts: Vec<&str> = include_str!("texts.txt").lines().collect();
    let facts = every_fact();
    assert_eq!(facts.len(), texts.len());
    for (fact, text) in facts.iter().zip(texts) {
        assert_eq!(fact.describe(&names), text, "{fact:?}");
        let mut line = String::from("{\"text\":\"");
        fact.describe_into(&names, &mut line);
        assert_eq!(line, format!("{{\"text\":\"{text}"));
    }
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
