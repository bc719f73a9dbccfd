use locksim_sim::trace::TraceEvent;

use super::*;
use crate::load::load_file;
use crate::run_result::RunResult;

/// The page of a catalogue scenario at its own seed, with the events it was drawn from.
fn page_of(file: &str) -> (String, Vec<TraceEvent>) {
    let loaded = load_file(std::path::Path::new(&format!(
        "{}/scenarios/{file}",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut events: Vec<TraceEvent> = Vec::new();
    let result = RunResult::run_into(&loaded, None, &mut events);
    let s = &loaded.scenario;
    let page = Page::of_run(&s.name, &s.description, result.seed, &result.outcome.verdicts);
    (html(&events, &Cast::of(s), &page), events)
}

/// The JSON the page's script starts with.
fn trace_data(page: &str) -> serde_json::Value {
    let start = page.find("const TRACE = ").expect("the data") + "const TRACE = ".len();
    let end = start + page[start..].find(";\n").expect("the data ends");
    serde_json::from_str(&page[start..end]).expect("the data is JSON")
}

#[test]
fn the_page_is_one_self_contained_file() {
    let (page, events) = page_of("single-redis/kleppmann-gc-pause.toml");
    assert_eq!(page.matches("<script>").count(), 1, "one script");
    // The SVG namespace is a name, not an address anything is fetched from.
    let fetched = page.replace("http://www.w3.org/2000/svg", "");
    for outside in ["http://", "https://", "src=", "@import", "@font-face"] {
        assert!(!fetched.contains(outside), "nothing fetched from outside ({outside})");
    }
    let data = trace_data(&page);
    assert_eq!(data["events"].as_array().unwrap().len(), events.len());
    assert_eq!(data["page"]["name"], "kleppmann-gc-pause");
}

#[test]
fn gc_pause_shows_the_belief_outliving_the_key() {
    let (page, _) = page_of("single-redis/kleppmann-gc-pause.toml");
    let data = trace_data(&page);
    let belief = &data["beliefs"][0];
    assert_eq!(belief["node"], "client-0");
    // client-0's validity ends at its own deadline (10 s of its mono clock, run at the true
    // rate), long before it releases after waking at 15 s.
    let valid_t = belief["valid_t"].as_u64().unwrap();
    let end_t = belief["end_t"].as_u64().unwrap();
    assert_eq!(valid_t, 10_000_000_000);
    assert!(end_t > 16_000_000_000, "it acts on until its release at 16 s: {end_t}");
    assert_eq!(belief["end"], "released");
    // server-0 let the key expire, on its own clock, while client-0 was paused.
    let key = &data["held"][0];
    assert_eq!(
        (&key["node"], &key["lease"], &key["owner"]),
        (&"server-0".into(), &belief["lease"], &"client-0".into())
    );
    assert_eq!(key["end"], "expired");
    assert!(key["end_t"].as_u64().unwrap() < end_t);
}

#[test]
fn the_same_trace_gives_the_same_bytes() {
    assert_eq!(
        page_of("redlock/clock-jump.toml").0,
        page_of("redlock/clock-jump.toml").0
    );
}

#[test]
fn text_cannot_close_the_script() {
    let mut page = Page::of_run("x</script><b>", "a </script> b", 1, &[]);
    page.name = "x</script><b>".into();
    let out = html(&[], &Cast::default(), &page);
    assert_eq!(out.matches("</script>").count(), 1);
    assert!(out.contains("<title>x&lt;/script&gt;&lt;b&gt; (seed 1)"));
}

#[test]
fn a_model_without_leases_still_has_lanes_and_verdicts() {
    let (page, _) = page_of("ids/leased-gc-pause.toml");
    let data = trace_data(&page);
    assert!(data["beliefs"].as_array().unwrap().is_empty());
    assert!(!data["lanes"].as_array().unwrap().is_empty());
    assert!(!data["page"]["verdicts"].as_array().unwrap().is_empty());
}

#[test]
fn the_quorum_is_what_a_grant_needs() {
    // Redlock: 3 of 5. Single Redis: its one primary. etcd: its leader, named by no server set.
    for (file, quorum) in [
        ("redlock/clock-jump.toml", 3),
        ("single-redis/kleppmann-gc-pause.toml", 1),
        ("etcd/gc-pause-never-checked.toml", 1),
    ] {
        assert_eq!(trace_data(&page_of(file).0)["quorum"], quorum, "{file}");
    }
}
