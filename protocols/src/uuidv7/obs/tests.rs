//! What UUIDv7's observations say, and how their trace lines are written.

use super::super::uuid::{MAX_MS, Uuid};
use super::*;

#[test]
fn only_id_issued_carries_a_uuid_and_plain_ones_are_chatter() {
    let plain = UuidObs::IdIssued {
        uuid: Uuid::v7(5, 1),
        ms: 5,
        counter: Some(1),
        note: IssueNote::Plain,
    };
    assert_eq!(plain.issued_id(), Some(Uuid::v7(5, 1)));
    assert_eq!(plain.salience(), Salience::Chatter);
    let wrapped = UuidObs::IdIssued {
        uuid: Uuid::v7(5, 0),
        ms: 5,
        counter: Some(0),
        note: IssueNote::Wrapped,
    };
    assert_eq!(wrapped.salience(), Salience::Salient);
    let names = Names::new(vec!["client-0".into()]);
    assert_eq!(
        wrapped.describe(&names),
        "issues UUID 00000000-0005-7000-8000-000000000000 (ms 5, counter 0) — counter used up: WRAPPED to 0 within ms 5"
    );
    let waiting = UuidObs::IdWaiting {
        why: Blocked::ClockBehind {
            now_ms: 495,
            last_ms: 499,
        },
        wait_ns: 4_000_000,
        requests: 1,
    };
    assert_eq!(waiting.issued_id(), None);
    assert_eq!(
        waiting.describe(&names),
        "its wall clock reads Unix ms 495, 4 ms behind its last UUID's ms 499: WAITS 4.000 ms (1 request waiting)"
    );
}

#[test]
fn a_trace_line_carries_the_uuid_as_its_canonical_text() {
    let o = UuidObs::IdIssued {
        uuid: Uuid::v7(1, 2),
        ms: 1,
        counter: None,
        note: IssueNote::First,
    };
    assert_eq!(
        serde_json::to_string(&o).unwrap(),
        r#"{"event":"id_issued","uuid":"00000000-0001-7000-8000-000000000002","ms":1,"counter":null,"note":{"kind":"first"}}"#
    );
}

/// UUIDv7 facts write their own trace members (`members.rs`): byte for byte what the serde path
/// writes, for every fact.
#[test]
fn every_fact_writes_the_members_serde_writes() {
    crate::hand_written::members_match_serde(every_fact(), GENERATOR_EVENTS, &["client-0"]);
}

/// UUIDv7 facts write their timeline texts piece by piece (`describe.rs`): the texts they had
/// through `format!`, kept in `texts.txt` (one per fact of [`every_fact`], in order), and the
/// same text when a trace line takes it in place.
#[test]
fn every_fact_reads_as_it_did_through_format() {
    crate::hand_written::texts_match_recorded(&every_fact(), include_str!("texts.txt"), &["client-0"]);
}

/// One fact of every kind, with every note and reason, and the values whose spelling differs
/// (zero, one, the largest, negative, no counter).
fn every_fact() -> Vec<UuidObs> {
    let id = |ms, counter: Option<u64>, note| UuidObs::IdIssued {
        uuid: Uuid::v7(ms, u128::from(counter.unwrap_or(0)) << 40 | 0xabc),
        ms,
        counter,
        note,
    };
    let mut facts = vec![
        id(0, None, IssueNote::Plain),
        id(MAX_MS, Some(u64::from(u32::MAX)), IssueNote::Plain),
        id(1_700_000_000_000, Some(0), IssueNote::First),
        id(5, Some(1), IssueNote::AfterWait),
        id(7, Some(2), IssueNote::KeptTimestamp { clock_ms: 6 }),
        id(9, None, IssueNote::Advanced { clock_ms: 8 }),
        id(11, Some(0), IssueNote::Wrapped),
        id(490, Some(3), IssueNote::Behind { last_ms: 499 }),
    ];
    facts.push(UuidObs::GeneratorRestarted);
    let blocked = [
        Blocked::ClockBehind {
            now_ms: 495,
            last_ms: 499,
        },
        Blocked::CounterExhausted { ms: 10 },
        Blocked::BeforeUnixEpoch { wall_ms: -3 },
        Blocked::BeforeUnixEpoch { wall_ms: i64::MIN },
    ];
    let waits = [0, 999_999, 4_000_000, u64::MAX];
    for ((why, wait_ns), n) in blocked.into_iter().zip(waits).zip([0, 1, 904, u64::MAX]) {
        facts.push(UuidObs::IdRefused { why, requests: n });
        facts.push(UuidObs::IdWaiting {
            why,
            wait_ns,
            requests: n,
        });
    }
    facts
}
