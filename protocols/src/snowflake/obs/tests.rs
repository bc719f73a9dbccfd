//! What Snowflake's observations say, and which of them are chatter.

use super::super::id::{MAX_MS, NODE_IDS, SEQUENCES_PER_MS, SnowflakeId};
use super::*;

#[test]
fn only_id_issued_carries_an_id_and_plain_ones_are_chatter() {
    let plain = IdObs::IdIssued {
        id: 5,
        ms: 0,
        node_id: 0,
        seq: 5,
        note: IssueNote::Plain,
    };
    assert_eq!(plain.issued_id(), Some(HexId(5)));
    assert_eq!(plain.salience(), Salience::Chatter);
    let wrapped = IdObs::IdIssued {
        id: 5,
        ms: 0,
        node_id: 0,
        seq: 0,
        note: IssueNote::Wrapped,
    };
    assert_eq!(wrapped.salience(), Salience::Salient);
    let refused = IdObs::IdRefused {
        why: Blocked::ClockBehind {
            now_ms: 995,
            last_ms: 999,
        },
        requests: 1,
    };
    assert_eq!(refused.issued_id(), None);
    assert_eq!(refused.salience(), Salience::Salient);
}

#[test]
fn every_kind_is_listed_for_after() {
    let names = Names::new(vec!["client-0".into(), "server-0".into()]);
    let samples = [
        IdObs::IdIssued {
            id: 0,
            ms: 0,
            node_id: 0,
            seq: 0,
            note: IssueNote::First,
        },
        IdObs::IdRefused {
            why: Blocked::BeforeEpoch { wall_ms: -3 },
            requests: 2,
        },
        IdObs::IdWaiting {
            why: Blocked::SequenceExhausted { ms: 10 },
            wait_ns: 500_000,
            requests: 904,
        },
        IdObs::GeneratorRestarted {
            last_ms: None,
            persisted: false,
        },
        IdObs::NodeIdLeased {
            node_id: 1,
            deadline_mono_ns: 0,
        },
        IdObs::NodeIdWaiting { pool: 2 },
        IdObs::NodeIdRenewed {
            node_id: 1,
            deadline_mono_ns: 0,
        },
        IdObs::NodeIdLost {
            node_id: 1,
            why: LostWhy::ServerSaysGone,
            dropped: 0,
        },
    ];
    for o in &samples {
        assert!(GENERATOR_EVENTS.contains(&o.kind()), "{}", o.kind());
        assert!(!o.describe(&names).is_empty());
    }
    let server = [
        IdObs::NodeIdGranted {
            node_id: 1,
            to: NodeId(0),
            expires_mono_ns: 0,
            previous: Some(NodeId(0)),
        },
        IdObs::NodeIdExpired {
            node_id: 1,
            holder: NodeId(0),
        },
    ];
    for o in &server {
        assert!(LEASE_SERVER_EVENTS.contains(&o.kind()), "{}", o.kind());
    }
    assert_eq!(
        samples[2].describe(&names),
        "all 4096 sequence numbers of ms 10 are used: WAITS 0.500 ms for ms 11 (904 requests waiting)"
    );
    assert!(server[0].describe(&names).contains("REUSED: it was client-0's"));
}

/// Snowflake facts write their own trace members (`members.rs`): byte for byte what the serde
/// path writes, for every fact.
#[test]
fn every_fact_writes_the_members_serde_writes() {
    crate::hand_written::members_match_serde(
        every_fact(),
        &[GENERATOR_EVENTS, LEASE_SERVER_EVENTS].concat(),
        &["client-0", "client-1"],
    );
}

/// Snowflake facts write their timeline texts piece by piece (`describe.rs`): the texts they
/// had through `format!`, kept in `texts.txt` (one per fact of [`every_fact`], in order), and
/// the same text when a trace line takes it in place.
#[test]
fn every_fact_reads_as_it_did_through_format() {
    crate::hand_written::texts_match_recorded(&every_fact(), include_str!("texts.txt"), &["client-0", "client-1"]);
}

/// One fact of every kind, with every note, reason and cause, and the values whose spelling
/// differs (zero, one, the largest, negative, under a millisecond).
fn every_fact() -> Vec<IdObs> {
    let id = |ms, node_id, seq, note| IdObs::IdIssued {
        id: SnowflakeId { ms, node: node_id, seq }.encode(),
        ms,
        node_id,
        seq,
        note,
    };
    let mut facts = vec![
        id(0, 0, 0, IssueNote::Plain),
        id(MAX_MS, NODE_IDS - 1, SEQUENCES_PER_MS - 1, IssueNote::Plain),
        id(1_288_834_974_657, 3, 7, IssueNote::First),
        id(10, 0, 0, IssueNote::AfterWait),
        id(11, 1, 2, IssueNote::AfterRefusing),
        id(12, 5, 0, IssueNote::WithNewNodeId),
        id(13, 2, 4095, IssueNote::LastOfMs),
        id(14, 2, 0, IssueNote::Wrapped),
        id(990, 9, 1, IssueNote::Behind { last_ms: 999 }),
        id(999, 0, 0xabc, IssueNote::Behind { last_ms: 999 }),
    ];
    let blocked = [
        Blocked::ClockBehind {
            now_ms: 995,
            last_ms: 999,
        },
        Blocked::SequenceExhausted { ms: 10 },
        Blocked::SequenceUnknown { ms: 0 },
        Blocked::BeforeEpoch { wall_ms: -3 },
        Blocked::BeforeEpoch { wall_ms: i64::MIN },
        Blocked::PastMaxMs { ms: u64::MAX },
    ];
    let waits = [0, 999, 500_000, 3_000_000, 1_234_567_890, u64::MAX];
    for ((why, wait_ns), n) in blocked.into_iter().zip(waits).zip([0, 1, 2, 904, u64::MAX, 1]) {
        facts.push(IdObs::IdRefused { why, requests: n });
        facts.push(IdObs::IdWaiting {
            why,
            wait_ns,
            requests: n,
        });
    }
    for (last_ms, persisted) in [(Some(41), true), (None, true), (None, false), (Some(u64::MAX), false)] {
        facts.push(IdObs::GeneratorRestarted { last_ms, persisted });
    }
    for (node_id, deadline_mono_ns) in [(0, 0), (1, 2_500_000_000), (NODE_IDS - 1, u64::MAX), (7, 1 << 63)] {
        facts.push(IdObs::NodeIdLeased {
            node_id,
            deadline_mono_ns,
        });
        facts.push(IdObs::NodeIdRenewed {
            node_id,
            deadline_mono_ns,
        });
    }
    facts.push(IdObs::NodeIdWaiting { pool: 2 });
    facts.push(IdObs::NodeIdWaiting { pool: u16::MAX });
    for (why, dropped) in [
        (LostWhy::ServerSaysGone, 0),
        (LostWhy::DeadlinePassed { by_ns: 1 }, 1),
        (LostWhy::DeadlinePassed { by_ns: 1_500_000_000 }, 17),
    ] {
        facts.push(IdObs::NodeIdLost {
            node_id: 3,
            why,
            dropped,
        });
    }
    for previous in [None, Some(NodeId(1))] {
        facts.push(IdObs::NodeIdGranted {
            node_id: 4,
            to: NodeId(0),
            expires_mono_ns: 9_000_000_001,
            previous,
        });
    }
    facts.push(IdObs::NodeIdExpired {
        node_id: 1023,
        holder: NodeId(1),
    });
    facts
}
