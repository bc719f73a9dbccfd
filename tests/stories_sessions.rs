//! The session stories, checked event by event across seeds 0..100: not only the verdicts but
//! the facts that make them true — which save resurrected the session and what it had read,
//! which request was served past which deadline — so a model that reached the right verdict
//! for the wrong reason fails here.

mod common;

use locksim::load::{load_file, parse_scenario};
use locksim::protocols::run;
use locksim::protocols::session::check::{SESSION_DEADLINE, SESSION_REVOCATION};
use locksim::sim::trace::TraceEvent;
use locksim::sim::{Invariant, Recording, Status};
use serde_json::Value;

const SEEDS: u64 = 100;
const S: i64 = 1_000_000_000;

struct Run {
    seed: u64,
    verdicts: Vec<(Invariant, Status)>,
    events: Vec<Value>,
}

fn run_story(rel: &str, seed: u64) -> Run {
    let s = load_file(&common::scenario(rel)).unwrap().scenario;
    let mut trace: Vec<TraceEvent> = Vec::new();
    let o = run(&s, seed, Recording::Traced(&mut trace));
    Run {
        seed,
        verdicts: o.verdicts.into_iter().map(|v| (v.invariant, v.status)).collect(),
        events: trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
    }
}

impl Run {
    fn status(&self, i: Invariant) -> &Status {
        &self.verdicts.iter().find(|(x, _)| *x == i).unwrap().1
    }

    fn held(&self, i: Invariant) {
        assert!(
            matches!(self.status(i), Status::Held(_)),
            "seed {}: {i} {:?}",
            self.seed,
            self.status(i)
        );
    }

    fn violated_at(&self, i: Invariant) -> &Value {
        match self.status(i) {
            Status::Violated(v) => &self.events[v.event],
            other => panic!("seed {}: {i} not violated: {other:?}", self.seed),
        }
    }

    fn all(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["kind"] == kind).collect()
    }

    fn one(&self, kind: &str) -> &Value {
        let all = self.all(kind);
        assert_eq!(all.len(), 1, "seed {}: exactly one {kind}", self.seed);
        all[0]
    }

    /// The store's read of `client`'s request `req`.
    fn read_of(&self, client: u64, req: u64) -> &Value {
        self.all("session_read")
            .into_iter()
            .find(|e| e["client"] == client && e["req"] == req)
            .unwrap_or_else(|| panic!("seed {}: no store read of client-{client} #{req}", self.seed))
    }

    /// Every request served, with the store's read that authorised it.
    fn served(&self) -> Vec<(&Value, &Value)> {
        self.all("request_served")
            .into_iter()
            .map(|e| {
                let client = e["node"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("client-")
                    .parse()
                    .unwrap();
                (e, self.read_of(client, e["req"].as_u64().unwrap()))
            })
            .collect()
    }
}

fn idx(e: &Value) -> u64 {
    e["i"].as_u64().unwrap()
}

fn wall(e: &Value) -> i64 {
    e["wall_ns"].as_i64().unwrap()
}

#[test]
fn last_write_wins_the_save_that_read_before_the_logout_resurrects_the_session() {
    for seed in 0..SEEDS {
        let r = run_story("sessions/late-save-last-write-wins.toml", seed);
        let logout = r.one("session_revoked");
        let save = r.violated_at(SESSION_REVOCATION);
        assert_eq!(save["kind"], "session_saved", "seed {seed}: the violation is a save");
        assert_eq!(save["client"], 1, "seed {seed}: client-1's slow request");
        assert_eq!(
            save["prior"]["over"], "revoked",
            "seed {seed}: it wrote over the logout"
        );
        assert_eq!(save["record"]["revoked"], false);
        assert!(idx(save) > idx(logout));
        // What it saved it had read before the logout: request #9, the one the pause stalled.
        let req = save["req"].as_u64().unwrap();
        assert_eq!(req, 9, "seed {seed}");
        let read = r.read_of(1, req);
        assert!(idx(read) < idx(logout), "seed {seed}: read before the logout");
        assert_eq!(read["answer"]["answer"], "valid");
        assert_eq!(
            save["record"]["version"],
            read["answer"]["record"]["version"].as_u64().unwrap() + 1,
            "seed {seed}: the stale copy written back"
        );
        // The resurrected session is served again afterwards.
        let after = r.served().into_iter().filter(|(_, read)| idx(read) > idx(save)).count();
        assert!(
            after >= 5,
            "seed {seed}: {after} requests served after the resurrection"
        );
        r.held(SESSION_DEADLINE);
    }
}

#[test]
fn cas_refuses_the_late_save_and_every_request_after_the_logout() {
    for seed in 0..SEEDS {
        let r = run_story("sessions/late-save-cas.toml", seed);
        r.held(SESSION_REVOCATION);
        r.held(SESSION_DEADLINE);
        let logout = r.one("session_revoked");
        let refused = r.one("save_refused");
        assert_eq!(
            (refused["client"].as_u64(), refused["req"].as_u64()),
            (Some(1), Some(9))
        );
        let conditions: Vec<&str> = refused["refusals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["condition"].as_str().unwrap())
            .collect();
        assert_eq!(conditions, ["version_moved", "revoked"], "seed {seed}");
        assert_eq!(
            refused["refusals"][0]["current"], logout["record"]["version"],
            "seed {seed}: the version the logout bumped"
        );
        assert!(idx(refused) > idx(logout));
        assert!(
            r.all("session_saved").iter().all(|s| idx(s) < idx(logout)),
            "seed {seed}: nothing saved after the logout"
        );
        let late: Vec<&Value> = r
            .all("session_read")
            .into_iter()
            .filter(|e| idx(e) > idx(logout))
            .collect();
        assert!(late.len() >= 15, "seed {seed}: requests keep coming ({})", late.len());
        assert!(late.iter().all(|e| e["answer"]["why"] == "revoked"), "seed {seed}");
        assert!(r.served().iter().all(|(_, read)| idx(read) < idx(logout)));
    }
}

#[test]
fn uncapped_refresh_serves_past_the_absolute_deadline_capped_refuses_at_it() {
    for seed in 0..SEEDS {
        let r = run_story("sessions/absolute-deadline-uncapped.toml", seed);
        let created = r.one("session_created");
        let absolute = wall(created) + 30 * S;
        assert_eq!(created["record"]["absolute_until_ns"], absolute);
        let served = r.violated_at(SESSION_DEADLINE);
        assert_eq!(served["kind"], "request_served");
        let read = r.read_of(
            served["node"]
                .as_str()
                .unwrap()
                .trim_start_matches("client-")
                .parse()
                .unwrap(),
            served["req"].as_u64().unwrap(),
        );
        assert!(wall(read) >= absolute, "seed {seed}: read after the absolute deadline");
        assert!(wall(read) < absolute + S, "seed {seed}: the first request after it");
        let expiry = served["record"]["idle_until_ns"].as_i64().unwrap();
        assert!(
            expiry > absolute + 9 * S,
            "seed {seed}: the expiry was refreshed past it"
        );
        // Its save is refused by the CAS's own absolute_until check, not by the read.
        let refused = r.all("save_refused");
        assert!(!refused.is_empty());
        assert!(
            refused
                .iter()
                .all(|e| e["refusals"][0]["condition"] == "absolute_expired")
        );

        let c = run_story("sessions/absolute-deadline-capped.toml", seed);
        c.held(SESSION_DEADLINE);
        let absolute = wall(c.one("session_created")) + 30 * S;
        let saves = c.all("session_saved");
        assert!(
            saves
                .iter()
                .all(|s| s["record"]["idle_until_ns"].as_i64().unwrap() <= absolute)
        );
        assert_eq!(
            saves.last().unwrap()["record"]["idle_until_ns"],
            absolute,
            "seed {seed}: capped at the deadline"
        );
        let late: Vec<&Value> = c
            .all("session_read")
            .into_iter()
            .filter(|e| wall(e) >= absolute)
            .collect();
        assert!(late.len() >= 10, "seed {seed}");
        assert!(late.iter().all(|e| e["answer"]["why"] == "expired"), "seed {seed}");
        assert!(c.served().iter().all(|(_, read)| wall(read) < absolute));
    }
}

#[test]
fn a_read_that_trusts_the_lazy_cleanup_serves_the_expired_session_until_the_cleanup_runs() {
    for seed in 0..SEEDS {
        let r = run_story("sessions/lazy-cleanup-trusted.toml", seed);
        let served = r.violated_at(SESSION_DEADLINE);
        assert_eq!(
            (served["node"].as_str(), served["req"].as_u64()),
            (Some("client-0"), Some(2))
        );
        let read = r.read_of(0, 2);
        let expiry = served["record"]["idle_until_ns"].as_i64().unwrap();
        let cleaned = r.one("session_cleaned");
        assert!(wall(read) > expiry, "seed {seed}: read after the expiry");
        assert!(
            idx(read) < idx(cleaned),
            "seed {seed}: and before the cleanup deleted the row"
        );
        assert_eq!(cleaned["record"]["idle_until_ns"], expiry);
        assert_eq!(wall(cleaned), 60 * S, "the cleanup job runs at 60 s");
        let refused = r.one("save_refused");
        assert_eq!(refused["refusals"][0]["condition"], "idle_expired", "seed {seed}");
        assert_eq!(r.read_of(0, 3)["answer"]["why"], "missing");

        let c = run_story("sessions/lazy-cleanup-read-checks.toml", seed);
        c.held(SESSION_DEADLINE);
        assert_eq!(c.served().len(), 1, "seed {seed}: only the 17.5 s request");
        assert_eq!(c.read_of(0, 2)["answer"]["why"], "expired");
        assert_eq!(c.read_of(0, 3)["answer"]["why"], "missing");
    }
}

fn t(e: &Value) -> i64 {
    e["t_ns"].as_i64().unwrap()
}

/// `login_at_ms = 2000`: client-0 sends the login at 2 s and the store creates the session
/// then; no request is served before it. With the login held back 1.5 s by the network, the
/// requests that reach the store first find no session and are refused.
#[test]
fn a_login_at_2_s_creates_the_session_at_2_s_and_nothing_is_served_before_it() {
    let base = "name = \"late-login\"\nduration_ms = 5000\n[protocol]\nkind = \"session-cas\"\nclients = 2\nlogin_at_ms = 2000\n";
    let delayed = format!(
        "{base}[[fault]]\nkind = \"delay\"\nfrom = \"client-0\"\nto = \"server-0\"\nat_ms = 0\nwindow_ms = 2100\nextra_ms = 1500\n"
    );
    for (text, held_back) in [(base.to_string(), 0), (delayed, 1_500_000_000)] {
        let s = parse_scenario("late-login.toml", &text).unwrap();
        for seed in 0..SEEDS {
            let mut trace: Vec<TraceEvent> = Vec::new();
            let o = run(&s, seed, Recording::Traced(&mut trace));
            let r = Run {
                seed,
                verdicts: o.verdicts.into_iter().map(|v| (v.invariant, v.status)).collect(),
                events: trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
            };
            let login = r
                .all("send")
                .into_iter()
                .find(|e| e["msg"] == "LOGIN")
                .unwrap_or_else(|| panic!("seed {seed}: no login sent"));
            assert_eq!((login["node"].as_str(), t(login)), (Some("client-0"), 2 * S));
            let created = r.one("session_created");
            let lag = t(created) - 2 * S - held_back;
            assert!(
                (0..=5_000_000).contains(&lag),
                "seed {seed}: created {lag} ns after 2 s"
            );
            assert!(
                r.all("request_started").iter().all(|e| t(e) > 2 * S),
                "seed {seed}: the requests start after the login"
            );
            let early: Vec<&Value> = r
                .all("session_read")
                .into_iter()
                .filter(|e| idx(e) < idx(created))
                .collect();
            for read in &early {
                assert_eq!(read["answer"]["why"], "missing", "seed {seed}");
                let refused = r
                    .all("request_refused")
                    .into_iter()
                    .find(|e| e["node"] == format!("client-{}", read["client"]) && e["req"] == read["req"])
                    .unwrap_or_else(|| panic!("seed {seed}: {read} not refused"));
                assert_eq!(refused["why"], "missing");
            }
            assert_eq!(
                early.is_empty(),
                held_back == 0,
                "seed {seed}: {} early reads",
                early.len()
            );
            let served = r.served();
            assert!(served.len() >= 4, "seed {seed}: {} served", served.len());
            assert!(served.iter().all(|(_, read)| idx(read) > idx(created)), "seed {seed}");
            r.held(SESSION_DEADLINE);
        }
    }
}

#[test]
fn the_session_checkers_say_not_applicable_when_nothing_was_at_stake() {
    let text = "name = \"quiet\"\nduration_ms = 5000\n[protocol]\nkind = \"session-cas\"\nlogin_at_ms = 10000\n";
    let s = parse_scenario("quiet.toml", text).unwrap();
    let o = run(&s, 0, Recording::Facts);
    for v in &o.verdicts {
        assert!(
            matches!(v.status, Status::NotApplicable(_)),
            "{}: {:?}",
            v.invariant,
            v.status
        );
    }
}

#[test]
fn bad_session_knobs_name_the_key() {
    let base = "name = \"x\"\n[protocol]\nkind = \"session-cas\"\n";
    let err = parse_scenario("x.toml", &format!("{base}login_at_ms = 5000\nlogout_at_ms = 4000\n")).unwrap_err();
    assert_eq!(err.key.as_deref(), Some("protocol.logout_at_ms"), "{err}");
    assert!(err.message.contains("after login_at_ms"), "{err}");
    let err = parse_scenario("x.toml", &format!("{base}save = \"merge\"\n")).unwrap_err();
    assert_eq!(
        (err.key.as_deref(), err.line),
        (Some("protocol.save"), Some(4)),
        "{err}"
    );
    let err = parse_scenario(
        "x.toml",
        &format!("{base}[[fault]]\nkind = \"pause\"\nnode = \"client-0\"\nafter = \"acquired\"\nduration_ms = 5\n"),
    )
    .unwrap_err();
    assert!(
        err.message.contains("request_served"),
        "lists the session events: {err}"
    );
}
