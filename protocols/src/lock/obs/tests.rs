//! Lock facts read back from their JSON, as renderers read them from a trace.

use super::*;

/// Renderers read lock facts back from a trace: each one decodes to itself, and "no
/// deadline" keeps the number traces have always written for it.
#[test]
fn facts_read_back_as_written() {
    let facts = [
        LockObs::AcquireFailed {
            lease: u64::MAX,
            why: "the key is held".into(),
            validity_ns: -1,
        },
        LockObs::Acquired {
            lease: 1,
            token: None,
            validity_ns: 0,
            deadline_mono_ns: Deadline::Untracked,
            servers: 0,
        },
        LockObs::Acquired {
            lease: 1,
            token: Some(2),
            validity_ns: 3,
            deadline_mono_ns: Deadline::Mono(4),
            servers: 5,
        },
        LockObs::KeySet {
            lease: 1,
            expiry: Some(Expiry {
                clock: ClockKind::Mono,
                at_ns: -2,
            }),
        },
        LockObs::TokenIssued { token: 1, lease: None },
        LockObs::RoleChanged {
            authoritative: false,
            role: "replica".into(),
        },
        LockObs::WriteApplied {
            client: NodeId(3),
            lease: 1,
            token: None,
            value: 2,
            based_on: 1,
            prev_value: 1,
        },
        LockObs::WriteTimedOut,
    ];
    for fact in &facts {
        let json = serde_json::to_value(fact).unwrap();
        assert_eq!(
            serde_json::from_value::<LockObs>(json.clone()).unwrap(),
            *fact,
            "{json}"
        );
    }
    let untracked = serde_json::to_value(&facts[1]).unwrap();
    assert_eq!(untracked["deadline_mono_ns"], u64::MAX);
}

/// The engine records and drops a fact per event: a fact that owned heap memory (a `String`, a
/// `Cow`) would cost a drop per event on the hot path (it did, briefly: +10% instructions per
/// event). Texts are `Text`, a `&'static str`.
#[test]
fn a_fact_owns_nothing_to_drop() {
    assert!(!std::mem::needs_drop::<LockObs>());
}

#[test]
fn texts_read_back_are_the_same_text() {
    let lost = LockObs::LockLost {
        why: "lease revoked".into(),
    };
    let json = serde_json::to_value(lost.clone()).unwrap();
    assert_eq!(json["why"], "lease revoked");
    let first = serde_json::from_value::<LockObs>(json.clone()).unwrap();
    let second = serde_json::from_value::<LockObs>(json).unwrap();
    assert_eq!((&first, &second), (&lost, &lost));
    let (LockObs::LockLost { why: a }, LockObs::LockLost { why: b }) = (first, second) else {
        unreachable!("decoded as written")
    };
    assert!(
        std::ptr::eq(a.as_ptr(), b.as_ptr()),
        "one interned copy per distinct text"
    );
}
