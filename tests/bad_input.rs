//! Bad input gets a clear error, never a panic: the file, the line, the key and what is wrong,
//! and exit status 2 (DESIGN section 6).

mod common;

use std::path::PathBuf;

/// A minimal valid scenario, edited by each case.
const VALID: &str = r#"name = "ok"
duration_ms = 60000

[protocol]
kind = "single-redis"
ttl_ms = 10000

[[fault]]
kind = "pause"
node = "client-0"
after = "read_done"
duration_ms = 15000
"#;

fn write(name: &str, text: &str) -> PathBuf {
    let path = common::scratch_dir("bad-input").join(name);
    common::write_whole(&path, text);
    path
}

/// Runs `locksim run` on `text` and checks exit 2 and that stderr says each of `says`.
fn rejects(name: &str, text: &str, says: &[&str]) {
    let path = write(name, text);
    let o = common::locksim(&["run", path.to_str().unwrap()]);
    let err = common::stderr(&o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{name}: exit 2, got {:?}; stderr: {err}",
        o.status.code()
    );
    assert!(!err.contains("panicked"), "{name}: no panic: {err}");
    assert!(err.contains(path.to_str().unwrap()), "{name}: names the file: {err}");
    for s in says {
        assert!(err.contains(s), "{name}: says {s:?}: {err}");
    }
}

#[test]
fn the_valid_base_runs() {
    let path = write("valid.toml", VALID);
    let o = common::locksim(&["run", path.to_str().unwrap(), "--timeline", "none"]);
    assert_ne!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

#[test]
fn missing_file() {
    let o = common::locksim(&["run", "scenarios/no-such-scenario.toml"]);
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(
        err.contains("scenarios/no-such-scenario.toml") && err.contains("cannot read"),
        "{err}"
    );
}

#[test]
fn toml_syntax_error_names_the_line() {
    rejects(
        "syntax.toml",
        &VALID.replace("ttl_ms = 10000", "ttl_ms = = 10000"),
        &[":6:", "TOML syntax error"],
    );
}

#[test]
fn unknown_key_names_line_and_key() {
    rejects(
        "unknown-key.toml",
        &VALID.replace("ttl_ms = 10000", "ttl_ms = 10000\nttl_msec = 5"),
        &[":7:", "key `protocol.ttl_msec`", "unknown key"],
    );
    rejects(
        "unknown-top.toml",
        &format!("durration_ms = 5\n{VALID}"),
        &[":1:", "key `durration_ms`", "unknown key"],
    );
    rejects(
        "unknown-fault-key.toml",
        &VALID.replace("duration_ms = 15000", "duration_ms = 15000\nsuspnd = true"),
        &[":13:", "key `fault[0].suspnd`", "unknown key"],
    );
}

#[test]
fn unknown_protocol_kind() {
    rejects(
        "kind.toml",
        &VALID.replace("\"single-redis\"", "\"chubby\""),
        &[
            ":5:",
            "key `protocol.kind`",
            "unknown protocol kind \"chubby\"",
            "single-redis",
        ],
    );
}

#[test]
fn fault_on_a_node_that_does_not_exist() {
    rejects(
        "node.toml",
        &VALID.replace("node = \"client-0\"", "node = \"client-7\""),
        &[
            ":10:",
            "key `fault[0].node`",
            "unknown node \"client-7\"",
            "client-0, client-1, server-0, resource",
        ],
    );
}

#[test]
fn zero_ttl() {
    rejects(
        "ttl.toml",
        &VALID.replace("ttl_ms = 10000", "ttl_ms = 0"),
        &[":6:", "key `protocol.ttl_ms`", "got 0"],
    );
}

#[test]
fn durations_that_overflow() {
    rejects(
        "overflow-int.toml",
        &VALID.replace("duration_ms = 60000", "duration_ms = 99999999999999999999"),
        &[":2:", "key `duration_ms`", "out of range"],
    );
    rejects(
        "overflow-ns.toml",
        &VALID.replace("duration_ms = 60000", "duration_ms = 9223372036854775807"),
        &[":2:", "key `duration_ms`", "between 1 and"],
    );
    rejects(
        "overflow-fault.toml",
        &VALID.replace("duration_ms = 15000", "duration_ms = 18446744073709"),
        &[":12:", "key `fault[0].duration_ms`", "between 1 and"],
    );
}

#[test]
fn other_impossible_values() {
    let cases: &[(&str, String, &[&str])] = &[
        (
            "event.toml",
            VALID.replace("after = \"read_done\"", "after = \"aquired\""),
            &["key `fault[0].after`", "no event \"aquired\"", "acquired"],
        ),
        (
            "trigger.toml",
            VALID.replace("after = \"read_done\"", "after = \"read_done\"\nat_ms = 5"),
            &["key `fault[0].after`", "not both"],
        ),
        (
            "no-trigger.toml",
            VALID.replace("after = \"read_done\"\n", ""),
            &["key `fault[0].at_ms`", "missing"],
        ),
        (
            "expect.toml",
            format!("{VALID}\n[expect]\nmutual_exclusions = \"held\"\n"),
            &["key `expect.mutual_exclusions`", "unknown invariant"],
        ),
        (
            "verdict.toml",
            format!("{VALID}\n[expect]\nmutual_exclusion = \"ok\"\n"),
            &["key `expect.mutual_exclusion`", "unknown value \"ok\""],
        ),
        (
            "fencing.toml",
            format!("{VALID}\n[resource]\nfencing = \"strict\"\n"),
            &["key `resource.fencing`", "issues none"],
        ),
        (
            "drift.toml",
            format!("{VALID}\n[[clock]]\nnode = \"server-0\"\ndrift_ppm = -1000000\n"),
            &["key `clock[0].drift_ppm`", "got -1000000"],
        ),
        (
            "latency.toml",
            format!("{VALID}\n[network]\nlatency_min_ms = 10\nlatency_max_ms = 2\n"),
            &["key `network.latency_max_ms`", "at least latency_min_ms"],
        ),
        (
            "type.toml",
            VALID.replace("ttl_ms = 10000", "ttl_ms = \"10s\""),
            &["key `protocol.ttl_ms`", "must be an integer, not a string"],
        ),
        (
            "renew.toml",
            VALID.replace("ttl_ms = 10000", "ttl_ms = 10000\nrenew_every_ms = 10000"),
            &["key `protocol.renew_every_ms`", "below ttl_ms"],
        ),
        (
            "partition.toml",
            format!(
                "{VALID}\n[[fault]]\nkind = \"partition\"\nat_ms = 5\ngroups = [[\"client-0\"], [\"client-0\", \"server-0\"]]\n"
            ),
            &["key `fault[1].groups`", "in two groups"],
        ),
        (
            "no-name.toml",
            VALID.replace("name = \"ok\"\n", ""),
            &["key `name`", "missing"],
        ),
    ];
    for (name, text, says) in cases {
        rejects(name, text, says);
    }
}

/// `min-replicas-to-write` needs that many replicas (else every write is refused), and its
/// max lag means nothing without it.
#[test]
fn min_replicas_beyond_the_replicas_or_a_lag_alone_are_refused() {
    let with = |knobs: &str| VALID.replace("ttl_ms = 10000", &format!("ttl_ms = 10000\n{knobs}"));
    rejects(
        "min-replicas-too-many.toml",
        &with("replicas = 1\nmin_replicas_to_write = 2"),
        &[
            ":8:",
            "key `protocol.min_replicas_to_write`",
            "must be at most replicas (1)",
        ],
    );
    rejects(
        "min-replicas-lag-alone.toml",
        &with("replicas = 2\nmin_replicas_max_lag = 5"),
        &[
            ":8:",
            "key `protocol.min_replicas_max_lag`",
            "no effect without min_replicas_to_write",
        ],
    );
    rejects(
        "min-replicas-lag-range.toml",
        &with("replicas = 2\nmin_replicas_to_write = 1\nmin_replicas_max_lag = -1"),
        &[
            ":9:",
            "key `protocol.min_replicas_max_lag`",
            "between 0 and 3600 (got -1)",
        ],
    );
}

/// Redlock's own rules: a majority of an odd number of masters, and no fencing token of its
/// own (Kleppmann's point) — tokens only from a separate counter.
#[test]
fn redlock_rejects_an_even_server_count_and_incr_tokens() {
    let base = "name = \"x\"\nduration_ms = 60000\n\n[protocol]\nkind = \"redlock\"\nttl_ms = 10000\n";
    rejects(
        "redlock-even.toml",
        &format!("{base}servers = 4\n"),
        &[":7:", "key `protocol.servers`", "must be odd (got 4)"],
    );
    rejects(
        "redlock-incr.toml",
        &format!("{base}fencing_tokens = \"incr\"\n"),
        &[
            ":7:",
            "key `protocol.fencing_tokens`",
            "unknown value \"incr\"",
            "\"none\", \"counter\"",
        ],
    );
    rejects(
        "redlock-elapsed-clock.toml",
        &format!("{base}elapsed_clock = \"sundial\"\n"),
        &[
            ":7:",
            "key `protocol.elapsed_clock`",
            "unknown value \"sundial\"",
            "\"monotonic\", \"wall\"",
        ],
    );
    // Redlock's knob: a single Redis client computes no validity to measure.
    rejects(
        "single-redis-elapsed-clock.toml",
        &VALID.replace("ttl_ms = 10000", "ttl_ms = 10000\nelapsed_clock = \"wall\""),
        &[":7:", "key `protocol.elapsed_clock`", "unknown key"],
    );
    rejects(
        "redlock-min-replicas.toml",
        &format!("{base}min_replicas_to_write = 1\n"),
        &[":7:", "key `protocol.min_replicas_to_write`", "unknown key"],
    );
    // The same base with an odd count and counter tokens is fine: the two errors are the knobs'.
    let path = write(
        "redlock-ok.toml",
        &format!("{base}servers = 3\nfencing_tokens = \"counter\"\n"),
    );
    let o = common::locksim(&["run", path.to_str().unwrap(), "--timeline", "none"]);
    assert_ne!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

/// etcd's session deadline is a choice of two; Redis clients have no session to choose for.
#[test]
fn session_deadline_is_an_etcd_choice() {
    let base = "name = \"x\"\nduration_ms = 60000\n\n[protocol]\nkind = \"etcd-lease\"\n";
    rejects(
        "etcd-session.toml",
        &format!("{base}session_deadline = \"from-receipt\"\n"),
        &[
            ":6:",
            "key `protocol.session_deadline`",
            "unknown value \"from-receipt\"",
            "\"from-send\", \"clientv3\"",
        ],
    );
    rejects(
        "redis-session.toml",
        &VALID.replace("ttl_ms = 10000", "ttl_ms = 10000\nsession_deadline = \"clientv3\""),
        &["key `protocol.session_deadline`"],
    );
}

/// Bully and the lease leader serve no register: Raft's read and client knobs are an error
/// with them, each one's own knobs an error with the others.
#[test]
fn each_election_algorithm_refuses_the_others_knobs() {
    let base = "name = \"x\"\nduration_ms = 6000\n\n[protocol]\nkind = \"election\"\n";
    for knob in ["clients = 1", "read = \"lease\"", "check_quorum = false"] {
        let key = knob.split(' ').next().unwrap();
        rejects(
            "bully-raft-knob.toml",
            &format!("{base}algorithm = \"bully\"\n{knob}\n"),
            &[
                &format!("key `protocol.{key}`"),
                "only Raft (bully elects a coordinator and serves no register) reads this knob",
            ],
        );
    }
    rejects(
        "raft-answer-timeout.toml",
        &format!("{base}answer_timeout_ms = 50\n"),
        &[
            "key `protocol.answer_timeout_ms`",
            "only algorithm = \"bully\" reads this knob",
        ],
    );
    rejects(
        "lease-raft-knob.toml",
        &format!("{base}algorithm = \"lease\"\nlease_ms = 500\n"),
        &[
            "key `protocol.lease_ms`",
            "only Raft (a leader on a lease serves no register) reads this knob",
        ],
    );
    rejects(
        "bully-stop.toml",
        &format!("{base}algorithm = \"bully\"\nstop = \"real\"\n"),
        &["key `protocol.stop`", "only algorithm = \"lease\" reads this knob"],
    );
    rejects(
        "lease-stop-value.toml",
        &format!("{base}algorithm = \"lease\"\nstop = \"soft\"\n"),
        &["key `protocol.stop`", "\"real\", \"role_only\""],
    );
    let path = write(
        "bully-ok.toml",
        &format!("{base}algorithm = \"bully\"\nanswer_timeout_ms = 50\n"),
    );
    let o = common::locksim(&["run", path.to_str().unwrap(), "--timeline", "none"]);
    assert_ne!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

#[test]
fn bad_traces_and_arguments_exit_2() {
    let not_json = write("not-a-trace.json", "{ nope");
    let o = common::locksim(&["replay", not_json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("not a JSON trace"),
        "{}",
        common::stderr(&o)
    );
    let other_json = write("other.json", "{\"format\": \"something-else\"}");
    let o = common::locksim(&["replay", other_json.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("not a locksim trace"));
    let o = common::locksim(&["run", "scenarios/single-redis/no-faults.toml", "--seed", "-1"]);
    assert_eq!(o.status.code(), Some(2));
    let o = common::locksim(&["run", "scenarios/single-redis/no-faults.toml", "--format", "yaml"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Issue 10, point 10: input the loader used to accept but cannot mean. A second `[[clock]]`
/// for a node silently replaced the first; `[expect] unique_ids` on a lock loaded, then failed
/// every run (exit 1), where `explore --invariant` refuses it; a misspelt twin paired the
/// scenario with nothing. Each is bad input now: exit 2, the file, the line and the key.
#[test]
fn input_that_cannot_mean_anything_is_refused() {
    rejects(
        "two-clocks.toml",
        &format!(
            "{VALID}\n[[clock]]\nnode = \"server-0\"\ndrift_ppm = 100\n\n[[clock]]\nnode = \"server-0\"\noffset_ms = 5\n"
        ),
        &[
            ":19:",
            "key `clock[1].node`",
            "server-0 already has a [[clock]] (clock[0], line 14)",
        ],
    );
    for verdict in ["held", "violated", "not_applicable"] {
        rejects(
            &format!("unique-ids-{verdict}.toml"),
            &format!("{VALID}\n[expect]\nmutual_exclusion = \"held\"\nunique_ids = \"{verdict}\"\n"),
            &[
                ":16:",
                "key `expect.unique_ids`",
                "single-redis never judges unique_ids",
                "it judges mutual_exclusion",
            ],
        );
    }
    // A twin names a scenario file beside this one: `ok.toml` is there, `no-such-twin` is not.
    write("ok.toml", VALID);
    rejects(
        "unknown-twin.toml",
        &format!("twins = [\"ok\",\n  \"no-such-twin\"]\n{VALID}"),
        &[
            ":2:",
            "key `twins`",
            "unknown twin \"no-such-twin\"",
            "no-such-twin.toml",
        ],
    );
    let path = write("twinned.toml", &format!("twins = [\"ok\"]\n{VALID}"));
    let o = common::locksim(&["run", path.to_str().unwrap(), "--timeline", "none"]);
    assert_ne!(o.status.code(), Some(2), "{}", common::stderr(&o));
}

/// A scenario's name becomes a file name (`explore --out`), so it must be a plain one: no
/// path separator, no leading dot (`..`, hidden files), no control character, not empty.
#[test]
fn a_name_that_is_not_a_plain_file_name() {
    for (i, (name, says)) in [
        ("../escaped", "without '/'"),
        ("a\\\\b", "without '\\'"),
        ("..", "must not start with '.'"),
        (".hidden", "must not start with '.'"),
        ("red\\u001b[31m", "control characters (found U+001B)"),
        ("", "must not be empty"),
    ]
    .iter()
    .enumerate()
    {
        rejects(
            &format!("name-{i}.toml"),
            &VALID.replace("name = \"ok\"", &format!("name = \"{name}\"")),
            &[":1:", "key `name`", says],
        );
    }
}

#[test]
fn postgres_lease_and_refund_knobs_name_the_key_and_the_reason() {
    let cases = [
        (
            "postgres-lease",
            "guard = \"later\"",
            "protocol.guard",
            "unknown value \"later\"",
        ),
        (
            "postgres-lease",
            "idle_in_transaction_session_timeout_ms = -5",
            "protocol.idle_in_transaction_session_timeout_ms",
            "must be between 0 and 3600000 (got -5)",
        ),
        (
            "postgres-lease",
            "expiry_clock = \"statement\"",
            "protocol.expiry_clock",
            "unknown value \"statement\"",
        ),
        (
            "postgres-lease",
            "begin = \"before-read\"\nidle_in_transaction_session_timeout_ms = 2000",
            "protocol.begin",
            "cannot be combined with idle_in_transaction_session_timeout_ms > 0",
        ),
        (
            "postgres-lease",
            "begin = \"before-read\"\nlock = \"advisory\"",
            "protocol.begin",
            "lock = \"advisory\" has no guard",
        ),
        (
            "postgres-lease",
            "tcp_keepalives_count = 0",
            "protocol.tcp_keepalives_count",
            "must be between 1 and 1000 (got 0)",
        ),
        (
            "refund",
            "ledger_fence = \"loose\"",
            "protocol.ledger_fence",
            "unknown value \"loose\"",
        ),
        (
            "refund",
            "idempotency_key = \"yes\"",
            "protocol.idempotency_key",
            "must be true or false",
        ),
        (
            "refund",
            "retry_ms = 0",
            "protocol.retry_ms",
            "must be between 1 and 3600000 (got 0)",
        ),
    ];
    for (kind, knob, key, reason) in cases {
        let key = format!("key `{key}`");
        rejects(
            "pg-refund-knob.toml",
            &format!("name = \"x\"\nduration_ms = 60000\n\n[protocol]\nkind = \"{kind}\"\n{knob}\n"),
            &[&key, reason],
        );
    }
}
