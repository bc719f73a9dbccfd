use locksim_sim::{ClockTrack, Event, History, Names, Stats, Status, What};

use super::*;
use crate::judge::judge_history;
use crate::session::obs::SessionMsg;

type SessionHistory = History<SessionMsg, SessionObs>;
use crate::session::store::{Invalid, Prior, ReadAnswer, Record, Refusal};

const S: i64 = 1_000_000_000;
const APP: NodeId = NodeId(0);
const STORE: NodeId = NodeId(1);

/// A history of observations `(true seconds x 1000, node, obs)`, every clock exact.
fn history(obs: Vec<(i64, NodeId, SessionObs)>) -> SessionHistory {
    History {
        names: Names::new(vec!["client-0".into(), "server-0".into()]),
        events: obs
            .into_iter()
            .map(|(ms, node, o)| Event {
                t_ns: (ms * 1_000_000) as u64,
                node,
                wall_ns: ms * 1_000_000,
                mono_ns: (ms * 1_000_000) as u64,
                what: What::Observe(o),
            })
            .collect(),
        clocks: vec![ClockTrack::default(), ClockTrack::default()],
        end_ns: 100 * S as u64,
        stats: Stats::default(),
    }
}

fn record(version: u64, idle_until_s: i64) -> Record {
    Record {
        version,
        revoked: false,
        idle_until_ns: idle_until_s * S,
        absolute_until_ns: 30 * S,
    }
}

fn created() -> (i64, NodeId, SessionObs) {
    let obs = SessionObs::SessionCreated {
        record: record(1, 10),
        idle_ns: 10 * S as u64,
        absolute_ns: 30 * S as u64,
    };
    (0, STORE, obs)
}

fn read(ms: i64, req: u64, answer: ReadAnswer) -> (i64, NodeId, SessionObs) {
    let obs = SessionObs::SessionRead {
        client: APP,
        req,
        answer,
    };
    (ms, STORE, obs)
}

fn served(ms: i64, req: u64) -> (i64, NodeId, SessionObs) {
    (
        ms,
        APP,
        SessionObs::RequestServed {
            req,
            record: record(1, 10),
        },
    )
}

fn check_sessions(h: &SessionHistory) -> Vec<Verdict> {
    judge_history(SessionJudge::default(), h)
}

fn status(h: &SessionHistory, i: Invariant) -> Status {
    check_sessions(h).into_iter().find(|v| v.invariant == i).unwrap().status
}

#[test]
fn a_reply_in_flight_across_the_deadline_is_not_a_violation() {
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let h = history(vec![created(), read(9_999, 1, valid), served(10_003, 1)]);
    assert!(matches!(status(&h, SESSION_DEADLINE), Status::Held(_)));
    let h = history(vec![created(), read(10_000, 1, valid), served(10_003, 1)]);
    let Status::Violated(v) = status(&h, SESSION_DEADLINE) else {
        panic!("a read at the deadline serves an ended session")
    };
    assert_eq!(v.event, 2, "reported at the serving");
    assert!(v.why.contains("idle deadline 10.000 s"), "{}", v.why);
}

#[test]
fn a_save_after_the_end_does_not_bring_the_session_back() {
    let valid = ReadAnswer::Valid { record: record(2, 25) };
    let late_save = SessionObs::SessionSaved {
        client: APP,
        req: 1,
        record: record(2, 25),
        prior: Prior::Missing,
    };
    let h = history(vec![
        created(),
        (15_000, STORE, late_save),
        read(16_000, 2, valid),
        served(16_002, 2),
    ]);
    assert!(matches!(status(&h, SESSION_DEADLINE), Status::Violated(_)));
    // The same save before the end refreshes it: min(9 + 10, 30).
    let on_time = SessionObs::SessionSaved {
        client: APP,
        req: 1,
        record: record(2, 19),
        prior: Prior::Current,
    };
    let h = history(vec![
        created(),
        (9_000, STORE, on_time),
        read(16_000, 2, valid),
        served(16_002, 2),
    ]);
    assert!(matches!(status(&h, SESSION_DEADLINE), Status::Held(_)));
}

#[test]
fn the_absolute_deadline_bounds_every_refresh() {
    let mut obs = vec![created()];
    for (i, s) in (5..30).step_by(5).enumerate() {
        let save = SessionObs::SessionSaved {
            client: APP,
            req: i as u64,
            record: record(i as u64 + 2, s + 10),
            prior: Prior::Current,
        };
        obs.push((s * 1000, STORE, save));
    }
    obs.push(read(30_500, 99, ReadAnswer::Valid { record: record(7, 35) }));
    obs.push(served(30_502, 99));
    let Status::Violated(v) = status(&history(obs), SESSION_DEADLINE) else {
        panic!("served after the absolute deadline")
    };
    assert!(v.why.contains("absolute deadline 30.000 s"), "{}", v.why);
}

#[test]
fn revocation_judges_by_the_read_not_by_the_reply() {
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let logout = SessionObs::SessionRevoked {
        record: Some(Record {
            revoked: true,
            ..record(2, 10)
        }),
    };
    let refused = ReadAnswer::Invalid { why: Invalid::Revoked };
    let h = history(vec![
        created(),
        read(1_000, 1, valid),
        (1_001, STORE, logout.clone()),
        served(1_002, 1),
        read(2_000, 2, refused),
    ]);
    let Status::Held(why) = status(&h, SESSION_REVOCATION) else {
        panic!("read before the logout")
    };
    assert!(why.contains("1 of 1 read refused"), "{why}");
    let h = history(vec![
        created(),
        (1_001, STORE, logout),
        read(2_000, 2, valid),
        served(2_002, 2),
    ]);
    assert!(matches!(status(&h, SESSION_REVOCATION), Status::Violated(v) if v.event == 3));
    let h = history(vec![created(), read(1_000, 1, valid), served(1_002, 1)]);
    assert!(matches!(status(&h, SESSION_REVOCATION), Status::NotApplicable(_)));
}

fn save(ms: i64, req: u64, idle_until_s: i64, prior: Prior) -> (i64, NodeId, SessionObs) {
    let obs = SessionObs::SessionSaved {
        client: APP,
        req,
        record: record(req + 1, idle_until_s),
        prior,
    };
    (ms, STORE, obs)
}

fn logout(ms: i64) -> (i64, NodeId, SessionObs) {
    let record = Record {
        revoked: true,
        ..record(2, 10)
    };
    (ms, STORE, SessionObs::SessionRevoked { record: Some(record) })
}

#[test]
fn a_save_at_exactly_the_deadline_refreshes_nothing_as_a_read_there_serves_nothing() {
    let valid = ReadAnswer::Valid { record: record(2, 20) };
    // The session ends at 10 s; a save at 10 s comes too late, so a read at 15 s reads an
    // ended session.
    let h = history(vec![
        created(),
        save(10_000, 1, 20, Prior::Expired { version: 1 }),
        read(15_000, 2, valid),
        served(15_002, 2),
    ]);
    let v = match status(&h, SESSION_DEADLINE) {
        Status::Violated(v) => v,
        other => panic!("a save at the deadline revived the session: {other:?}"),
    };
    assert!(
        v.why.contains("5 s past the session's idle deadline 10.000 s"),
        "{}",
        v.why
    );
    // One millisecond earlier it refreshes the session to 19.999 s.
    let h = history(vec![
        created(),
        save(9_999, 1, 19, Prior::Current),
        read(15_000, 2, valid),
        served(15_002, 2),
        read(19_999, 3, valid),
        served(20_001, 3),
    ]);
    let Status::Violated(v) = status(&h, SESSION_DEADLINE) else {
        panic!("the refreshed session ends at 19.999 s")
    };
    assert_eq!(v.event, 5, "request #3, read at the refreshed deadline");
}

#[test]
fn a_deadline_verdict_counts_what_was_served_and_refused_late() {
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let expired = ReadAnswer::Invalid { why: Invalid::Expired };
    let h = history(vec![
        created(),
        read(1_000, 1, valid),
        served(1_002, 1),
        // Refused before the deadline (say, no row yet): not a late refusal.
        read(2_000, 2, ReadAnswer::Invalid { why: Invalid::Missing }),
        read(10_000, 3, expired),
        read(12_000, 4, expired),
        // A serving the checker has no read for is not counted.
        served(10_002, 9),
    ]);
    let Status::Held(why) = status(&h, SESSION_DEADLINE) else {
        panic!()
    };
    assert_eq!(
        why,
        "1 request served, each read before the session's deadlines; 2 reads after a deadline refused"
    );
}

#[test]
fn deadline_is_not_applicable_without_a_session_or_a_read() {
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let h = history(vec![read(1_000, 1, valid), served(1_002, 1)]);
    assert_eq!(
        status(&h, SESSION_DEADLINE),
        Status::NotApplicable("no session was created".into())
    );
    let h = history(vec![created(), save(1_000, 1, 11, Prior::Current)]);
    assert_eq!(
        status(&h, SESSION_DEADLINE),
        Status::NotApplicable("no request read the session".into())
    );
}

#[test]
fn a_logout_with_no_later_traffic_is_not_applicable() {
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let h = history(vec![created(), read(1_000, 1, valid), served(1_002, 1), logout(2_000)]);
    assert_eq!(
        status(&h, SESSION_REVOCATION),
        Status::NotApplicable("nothing reached the store after the logout at 2.000 s".into())
    );
    // A refused late save alone is traffic: the logout held against it.
    let refused = SessionObs::SaveRefused {
        client: APP,
        req: 2,
        refusals: vec![Refusal::Revoked],
    };
    let h = history(vec![created(), logout(2_000), (3_000, STORE, refused.clone())]);
    let Status::Held(why) = status(&h, SESSION_REVOCATION) else {
        panic!()
    };
    assert_eq!(
        why,
        "logout committed at 2.000 s; after it 0 of 0 reads refused and 1 late save refused; none served or revived"
    );
    // Before the logout, a refused save is no evidence about it.
    let h = history(vec![created(), (1_000, STORE, refused), logout(2_000)]);
    assert!(matches!(status(&h, SESSION_REVOCATION), Status::NotApplicable(_)));
}

#[test]
fn a_save_that_commits_a_live_record_after_the_logout_revives_the_session() {
    let h = history(vec![
        created(),
        logout(2_000),
        save(3_000, 1, 13, Prior::Revoked { version: 2 }),
        logout(4_000),
    ]);
    let Status::Violated(v) = status(&h, SESSION_REVOCATION) else {
        panic!()
    };
    assert_eq!((v.event, v.t_ns), (2, 3 * S as u64));
    assert_eq!(
        v.why,
        "client-0's save (request #1) at 3.000 s made the session valid again (over the revoked version 2) after the logout committed at 2.000 s"
    );
    // A save that writes the record back still revoked revives nothing; the first logout
    // is the one that counts.
    let still_revoked = SessionObs::SessionSaved {
        client: APP,
        req: 1,
        record: Record {
            revoked: true,
            ..record(3, 13)
        },
        prior: Prior::Current,
    };
    let refused = ReadAnswer::Invalid { why: Invalid::Revoked };
    let h = history(vec![
        created(),
        logout(2_000),
        (3_000, STORE, still_revoked),
        logout(4_000),
        read(5_000, 2, refused),
    ]);
    let Status::Held(why) = status(&h, SESSION_REVOCATION) else {
        panic!()
    };
    assert!(
        why.starts_with("logout committed at 2.000 s; after it 1 of 1 read refused"),
        "{why}"
    );
}

#[test]
fn late_reads_are_counted_per_request_and_found_out_of_order() {
    let refused = ReadAnswer::Invalid { why: Invalid::Revoked };
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    // After the logout: request 2 read, then a delayed READ of request 1, then request 2's
    // READ again (duplicated): two requests read, one refused.
    let after = vec![
        created(),
        logout(2_000),
        read(3_000, 2, refused),
        read(3_100, 1, valid),
        read(3_200, 2, valid),
    ];
    let Status::Held(why) = status(&history(after.clone()), SESSION_REVOCATION) else {
        panic!()
    };
    assert!(why.contains("after it 1 of 2 reads refused"), "{why}");
    // Request 1, read below the latest request, is still found when it is served.
    let mut served_late = after;
    served_late.push(served(3_300, 1));
    let Status::Violated(v) = status(&history(served_late), SESSION_REVOCATION) else {
        panic!("request 1 was read after the logout")
    };
    assert_eq!(
        v.why,
        "client-0 served request #1 as the session at 3.300 s: the store read it at 3.100 s, after the logout committed at 2.000 s"
    );
}

#[test]
fn a_read_is_forgotten_once_its_app_server_starts_a_later_request() {
    // An app server serves only the request it started last, so request 1's read (after the
    // deadline) is dropped when request 2 starts: were it kept, this serve would be judged.
    let valid = ReadAnswer::Valid { record: record(1, 10) };
    let h = history(vec![
        created(),
        read(12_000, 1, valid),
        (13_000, APP, SessionObs::RequestStarted { req: 2 }),
        served(13_002, 1),
    ]);
    let Status::Held(why) = status(&h, SESSION_DEADLINE) else {
        panic!()
    };
    assert!(why.starts_with("0 requests served"), "{why}");
    // Without the later start it is judged.
    let h = history(vec![created(), read(12_000, 1, valid), served(13_002, 1)]);
    assert!(matches!(status(&h, SESSION_DEADLINE), Status::Violated(_)));
    // The same for revocation: request 1's read after the logout is dropped, but still
    // counted.
    let started = (3_500, APP, SessionObs::RequestStarted { req: 2 });
    let h = history(vec![
        created(),
        logout(2_000),
        read(3_000, 1, valid),
        started,
        served(3_600, 1),
    ]);
    let Status::Held(why) = status(&h, SESSION_REVOCATION) else {
        panic!()
    };
    assert!(why.contains("after it 0 of 1 read refused"), "{why}");
}
