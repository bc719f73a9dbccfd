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

/// A trace line takes a fact's text in place, after what the line holds already: the same
/// words `describe` gives the timeline.
#[test]
fn a_text_written_in_place_is_the_described_text() {
    let names = Names::new(vec!["client-0".into()]);
    let facts = [
        (
            LockObs::AcquireReplies {
                granted: 0b101,
                answered: 0,
            },
            "answers in: granted by {0,2}, answered by {}",
        ),
        (
            LockObs::KeySet {
                lease: 0xcaa5 << 48,
                expiry: Some(Expiry {
                    clock: ClockKind::Wall,
                    at_ns: -1_500_000_000,
                }),
            },
            "lock key := lease caa5 (expires at wall -1.500 s)",
        ),
        (
            LockObs::WriteRefused {
                client: NodeId(0),
                token: None,
                max: 3,
            },
            "REJECTED write from client-0 (no token < max 3)",
        ),
        (
            LockObs::WriteSent {
                token: Some(7),
                value: 1,
            },
            "sends write counter := 1 (token 7)",
        ),
    ];
    for (fact, text) in &facts {
        assert_eq!(fact.describe(&names), *text);
        let mut line = String::from("{\"text\":\"");
        fact.describe_into(&names, &mut line);
        assert_eq!(line, format!("{{\"text\":\"{text}"));
    }
}

/// Lock facts write their own trace members (`members.rs`): byte for byte what the serde path
/// writes, for every fact, with the values whose spelling differs (none, negative, the
/// largest, a text to escape, a nested expiry).
#[test]
fn facts_write_the_members_serde_writes() {
    let texts = [Text("no quorum"), Text("a \"quoted\\\" why\n")];
    let mut facts = vec![
        LockObs::AcquireStarted {
            lease: u64::MAX,
            attempt: 0,
        },
        LockObs::AcquireReplies {
            granted: 5,
            answered: u32::MAX,
        },
        LockObs::ReadDone { value: 0 },
        LockObs::DeadlineChecked {
            remaining_ns: -i64::MAX,
            ok: false,
        },
        LockObs::DeadlineChecked {
            remaining_ns: 7,
            ok: true,
        },
        LockObs::WriteAccepted { value: 9 },
        LockObs::WriteTimedOut,
        LockObs::Released { lease: 1 },
        LockObs::Renewed {
            deadline_mono_ns: u64::MAX,
        },
        LockObs::KeyExpired { lease: 2 },
        LockObs::TokenIssued { token: 3, lease: None },
        LockObs::TokenIssued {
            token: 3,
            lease: Some(4),
        },
        LockObs::FenceForgotten { was: 10 },
    ];
    for why in texts {
        facts.push(LockObs::AcquireFailed {
            lease: 1,
            why,
            validity_ns: -1,
        });
        facts.push(LockObs::LockLost { why });
        for authoritative in [false, true] {
            facts.push(LockObs::RoleChanged {
                authoritative,
                role: why,
            });
        }
    }
    for token in [None, Some(0), Some(u64::MAX)] {
        for deadline_mono_ns in [Deadline::Untracked, Deadline::Mono(4)] {
            facts.push(LockObs::Acquired {
                lease: 1,
                token,
                validity_ns: i64::MAX,
                deadline_mono_ns,
                servers: 3,
            });
        }
        facts.push(LockObs::WriteSent { token, value: 2 });
        facts.push(LockObs::WriteRejected { token, max: 5 });
        facts.push(LockObs::WriteApplied {
            client: NodeId(3),
            lease: 1,
            token,
            value: 2,
            based_on: 0,
            prev_value: 1,
        });
        facts.push(LockObs::WriteRefused {
            client: NodeId(0),
            token,
            max: 6,
        });
    }
    let expiries = [None, Some((ClockKind::Wall, -3)), Some((ClockKind::Mono, 4))];
    for expiry in expiries.map(|e| e.map(|(clock, at_ns)| Expiry { clock, at_ns })) {
        facts.push(LockObs::KeySet { lease: 1, expiry });
        facts.push(LockObs::KeyExtended { lease: 1, expiry });
    }
    for cause in [DeleteCause::Release, DeleteCause::PlainDel, DeleteCause::Crash] {
        facts.push(LockObs::KeyDeleted { lease: 1, cause });
    }

    crate::hand_written::members_match_serde(
        facts,
        &[CLIENT_EVENTS, SERVER_EVENTS, RESOURCE_EVENTS].concat(),
        &["client-0", "client-1", "client-2", "client-3"],
    );
}

#[test]
fn a_short_lease_is_its_top_four_hex_digits() {
    for l in [
        0,
        1,
        u64::MAX,
        0xcaa5_0000_0000_0000,
        0x0a05_ffff_ffff_ffff,
        1 << 48,
        0xffff << 44,
    ] {
        assert_eq!(short_lease(l), format!("{:04x}", l >> 48), "{l:x}");
    }
}

#[test]
fn server_sets_list_their_bits() {
    let replies = LockObs::AcquireReplies {
        granted: 0b1011,
        answered: 1 << 31 | 1 << 10 | 1 << 9 | 1,
    };
    let none = LockObs::AcquireReplies {
        granted: 0,
        answered: 1,
    };
    let names = Names::default();
    assert_eq!(
        replies.describe(&names),
        "answers in: granted by {0,1,3}, answered by {0,9,10,31}"
    );
    assert_eq!(none.describe(&names), "answers in: granted by {}, answered by {0}");
}
