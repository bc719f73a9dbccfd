//! What Snowflake's observations say, and which of them are chatter.

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
