//! Issue 12, point 3: a world of 1,000 clients runs and is judged, and the client cap is what
//! `locksim list` documents. The scenario is generated here (a partition naming 500 clients is
//! no file to keep in the catalogue) and lasts 3 simulated seconds, so CI pays well under a
//! second for it in a release build.

mod common;

use std::fmt::Write as _;

/// 1,000 single-Redis clients with INCR tokens and a strictly fenced resource; the lower half
/// of the clients (the ones busy early) is cut off from everything else from 0.5 s to 1.5 s.
fn thousand_clients() -> String {
    let lower: Vec<String> = (0..500).map(|i| format!("\"client-{i}\"")).collect();
    let mut upper: Vec<String> = (500..1000).map(|i| format!("\"client-{i}\"")).collect();
    upper.extend(["\"server-0\"".to_string(), "\"resource\"".to_string()]);
    let mut toml = String::from(
        "name = \"thousand-clients\"\n\
         description = \"1,000 clients share one Redis lock for 3 s; half of them are cut off for a second.\"\n\
         seed = 1\nduration_ms = 3000\n\n\
         [protocol]\nkind = \"single-redis\"\nclients = 1000\nttl_ms = 10000\nwork_ms = 200\n\
         think_ms = 100\nfencing_tokens = \"incr\"\n\n\
         [resource]\nfencing = \"strict\"\n\n\
         [[fault]]\nkind = \"partition\"\nat_ms = 500\nheal_after_ms = 1000\n",
    );
    writeln!(toml, "groups = [[{}], [{}]]", lower.join(", "), upper.join(", ")).unwrap();
    toml.push_str(
        "\n[expect]\nmutual_exclusion = \"held\"\nfencing_order = \"held\"\nstale_write = \"held\"\n\
         lost_update = \"held\"\ntoken_monotonic = \"held\"\n",
    );
    toml
}

#[test]
fn a_thousand_single_redis_clients_run_and_are_judged() {
    let dir = common::scratch_dir("scale");
    let scenario = dir.join("thousand-clients.toml");
    let trace = dir.join("thousand-clients.trace.json");
    common::write_whole(&scenario, &thousand_clients());
    let o = common::run_writing_trace(&scenario, &trace);
    let out = common::stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{}", common::stderr(&o));
    assert!(out.contains("=> every expectation met"), "{out}");
    // Non-vacuous: the lock changed hands, and the partition cut messages of the lower half.
    assert!(out.contains("fenced writes accepted in token order"), "{out}");
    let trace = std::fs::read_to_string(&trace).unwrap();
    let cut = trace
        .lines()
        .filter(|l| l.contains("\"kind\":\"drop\"") && l.contains("\"reason\":\"partition\""))
        .count();
    assert!(cut > 0, "the partition dropped nothing");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn the_client_cap_is_a_thousand() {
    let dir = common::scratch_dir("scale-cap");
    let scenario = dir.join("too-many.toml");
    let text = "name = \"too-many\"\ndescription = \"one client too many\"\nseed = 1\nduration_ms = 10\n\n\
                [protocol]\nkind = \"single-redis\"\nclients = 1001\n";
    common::write_whole(&scenario, text);
    let o = common::locksim(&["run", scenario.to_str().unwrap(), "--timeline", "none"]);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("protocol.clients") && err.contains("1000"), "{err}");
    std::fs::remove_dir_all(dir).ok();
}
