//! Issue 13, points 1 and 3: a node's clock follows its `[[clock]]` (the user's sleeps too),
//! a partition holds a TCP connection's data until the heal, and what madsim cannot do is
//! refused with the fault named.
#![cfg(madsim)]

#[path = "common/user_client.rs"]
mod user_client;

use std::sync::{Arc, Mutex};

use locksim::load::{load_file, parse_scenario};
use locksim_madsim::{SharedSink, refuse, run};
use locksim_protocols::Scenario;
use locksim_sim::trace::{Happening, TraceEvent};
use locksim_sim::{ClockTrack, Level};
use user_redis_lock::ValidityFrom;

/// Every event of one seed's run, as a trace reader sees it.
fn events(s: &Scenario, seed: u64) -> Vec<TraceEvent> {
    let model = refuse::supported(s).expect("supported");
    let client = user_client::client_fn(&model.client, ValidityFrom::Send).expect("client");
    let sink = Arc::new(Mutex::new(Vec::<TraceEvent>::new()));
    let r = run(s, seed, Level::Full, Some(Box::new(SharedSink(sink.clone()))), &client).expect("runs");
    drop(r.trace);
    let Ok(sink) = Arc::try_unwrap(sink) else {
        panic!("the run kept its sink")
    };
    sink.into_inner().expect("not poisoned")
}

/// The first fact `event` of `node`.
fn first<'a>(events: &'a [TraceEvent], node: &str, event: &str) -> &'a TraceEvent {
    events
        .iter()
        .find(|e| e.node == node && matches!(&e.what, Happening::Observe(o) if o.event == event))
        .unwrap_or_else(|| panic!("no {node}:{event}"))
}

#[test]
fn a_fast_clock_reads_and_sleeps_by_its_own_rate() {
    let text = r#"
name = "fast-clock"
description = "client-0's clocks run 10% fast and start 5 s ahead"
duration_ms = 5000
[protocol]
kind = "single-redis"
clients = 1
work_ms = 1000
[[clock]]
node = "client-0"
offset_ms = 5000
drift_ppm = 100000
"#;
    let s = parse_scenario("fast-clock.toml", text).expect("parses");
    let events = events(&s, 7);
    let track = ClockTrack::new(s.clock_of(s.names().find("client-0").expect("client-0")));
    let (read, write) = (
        first(&events, "client-0", "read_done"),
        first(&events, "client-0", "write_sent"),
    );
    for e in [read, write] {
        assert_eq!(e.wall_ns, track.wall_at(e.t_ns));
        assert_eq!(e.mono_ns, track.mono_at(e.t_ns));
    }
    // The user's 1 s of work is 1 s on its own monotonic clock: 1/1.1 s of true time.
    assert!(write.mono_ns - read.mono_ns >= 1_000_000_000);
    let true_ns = write.t_ns - read.t_ns;
    assert!(
        (909_000_000..911_000_000).contains(&true_ns),
        "took {true_ns} ns of true time"
    );
}

#[test]
fn a_partition_holds_tcp_data_until_the_heal() {
    let s = load_file("tests/scenarios/partition-holds-tcp.toml".as_ref())
        .expect("loads")
        .scenario;
    let events = events(&s, 3);
    let sent = first(&events, "client-0", "write_sent");
    let heal = events
        .iter()
        .find(|e| matches!(e.what, Happening::Heal { .. }))
        .expect("healed");
    // madsim advances its clock 50-100 ns per poll: the heal wakes a few polls past 5 s.
    assert!((5_000_000_000..5_001_000_000).contains(&(heal.t_ns - sent.t_ns)));
    let arrived = events
        .iter()
        .find(|e| {
            e.node == "resource"
                && e.t_ns > sent.t_ns
                && matches!(&e.what, Happening::Deliver { from, msg, .. } if from == "client-0" && msg.starts_with("WRITE"))
        })
        .expect("the held write arrives");
    assert!(arrived.t_ns >= heal.t_ns, "delivered during the partition");
}

#[test]
fn what_madsim_cannot_do_is_refused_naming_the_fault() {
    let faults = [
        (
            "delay",
            r#"from = "client-0"
to = "server-0"
at_ms = 0
window_ms = 100
extra_ms = 10"#,
        ),
        ("loss", "probability = 0.1\nat_ms = 0"),
        ("duplicate", "probability = 0.1\nat_ms = 0"),
    ];
    for (kind, rest) in faults {
        let text = format!(
            "name = \"x\"\ndescription = \"x\"\n[protocol]\nkind = \"single-redis\"\n\n[[fault]]\nkind = \"{kind}\"\n{rest}\n"
        );
        let s = parse_scenario("x.toml", &text).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let err = refuse::supported(&s).expect_err(kind);
        assert!(err.contains(&format!("fault[0] kind = \"{kind}\"")), "{err}");
    }
    let replicas = "name = \"x\"\ndescription = \"x\"\n[protocol]\nkind = \"single-redis\"\nreplicas = 1\n";
    let err = refuse::supported(&parse_scenario("x.toml", replicas).expect("parses")).expect_err("replicas");
    assert!(err.contains("protocol.replicas"), "{err}");
    let redlock = "name = \"x\"\ndescription = \"x\"\n[protocol]\nkind = \"redlock\"\n";
    let err = refuse::supported(&parse_scenario("x.toml", redlock).expect("parses")).expect_err("redlock");
    assert!(err.contains("protocol.kind"), "{err}");
}
