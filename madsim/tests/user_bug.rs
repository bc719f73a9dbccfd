//! Issue 13, point 6: a deliberately wrong variant of the example client (validity counted
//! from after the reply) is found by exploring seeds through the front-end, shrunk, and
//! written as a scenario file that replays to the violation — and the correct client holds
//! on the same file.
#![cfg(madsim)]

#[path = "common/user_client.rs"]
mod user_client;

use locksim::load::{load_file, parse_scenario};
use locksim_madsim::hunt::{hunt, violates};
use locksim_madsim::{ClientFn, refuse};
use locksim_protocols::Scenario;
use locksim_protocols::lock::check::MUTUAL_EXCLUSION;
use user_redis_lock::ValidityFrom;

fn clients(s: &Scenario) -> (ClientFn, ClientFn) {
    let model = refuse::supported(s).expect("supported");
    let wrong = user_client::client_fn(&model.client, ValidityFrom::Reply).expect("client");
    let right = user_client::client_fn(&model.client, ValidityFrom::Send).expect("client");
    (wrong, right)
}

#[test]
fn exploring_finds_and_shrinks_the_wrong_client() {
    let loaded = load_file("tests/scenarios/validity-hunt.toml".as_ref()).expect("loads");
    let (wrong, right) = clients(&loaded.scenario);
    let found = hunt(&loaded, 0..200, MUTUAL_EXCLUSION, 100, &wrong, Some(&right), "found").expect("a finding");
    assert_eq!(found.entries, 1, "{}", found.text);
    let s = parse_scenario("found.toml", &found.text).expect("the written file loads");
    assert!(violates(&s, found.seed, MUTUAL_EXCLUSION, &wrong));
    assert!(!violates(&s, found.seed, MUTUAL_EXCLUSION, &right));
    // The correct client alone finds nothing to write.
    assert!(hunt(&loaded, 0..200, MUTUAL_EXCLUSION, 0, &right, None, "none").is_none());
}

#[test]
fn the_written_counterexample_replays_to_the_violation() {
    let loaded = load_file("tests/scenarios/validity-from-reply.toml".as_ref()).expect("loads");
    let s = &loaded.scenario;
    let (wrong, right) = clients(s);
    assert!(violates(s, s.seed, MUTUAL_EXCLUSION, &wrong));
    assert!(!violates(s, s.seed, MUTUAL_EXCLUSION, &right));
}
