//! The scheduler stories, checked event by event across seeds 0..100: which slot got two
//! effects, from which attempt, and that the crash really fell between the effect and its
//! done-mark — so a model that reached the right verdict for the wrong reason fails here.

mod common;

use std::collections::BTreeMap;

use locksim::load::{load_file, parse_scenario};
use locksim::protocols::run;
use locksim::protocols::scheduler::check::EXACTLY_ONCE;
use locksim::sim::trace::TraceEvent;
use locksim::sim::{Recording, Status};
use serde_json::Value;

const SEEDS: u64 = 100;

struct Run {
    seed: u64,
    exactly_once: Status,
    events: Vec<Value>,
}

fn run_story(rel: &str, seed: u64) -> Run {
    let s = load_file(&common::scenario(rel)).unwrap().scenario;
    let mut trace: Vec<TraceEvent> = Vec::new();
    let o = run(&s, seed, Recording::Traced(&mut trace));
    let exactly_once = o
        .verdicts
        .into_iter()
        .find(|v| v.invariant == EXACTLY_ONCE)
        .unwrap()
        .status;
    Run {
        seed,
        exactly_once,
        events: trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect(),
    }
}

impl Run {
    fn all(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["kind"] == kind).collect()
    }

    fn of_slot(&self, kind: &str, slot: i64) -> Vec<&Value> {
        self.all(kind).into_iter().filter(|e| e["slot"] == slot).collect()
    }

    fn one(&self, kind: &str) -> &Value {
        let all = self.all(kind);
        assert_eq!(all.len(), 1, "seed {}: exactly one {kind}", self.seed);
        all[0]
    }

    fn violation(&self) -> &Value {
        match &self.exactly_once {
            Status::Violated(v) => &self.events[v.event],
            other => panic!("seed {}: exactly_once not violated: {other:?}", self.seed),
        }
    }

    /// Committed effects per slot.
    fn effects(&self) -> BTreeMap<i64, usize> {
        let mut out = BTreeMap::new();
        for e in self.all("effect_applied") {
            *out.entry(e["slot"].as_i64().unwrap()).or_insert(0) += 1;
        }
        out
    }

    /// The slots that fired, with how many instances fired each.
    fn fired(&self) -> BTreeMap<i64, usize> {
        let mut out = BTreeMap::new();
        for e in self.all("slot_fired") {
            *out.entry(e["slot"].as_i64().unwrap()).or_insert(0) += 1;
        }
        out
    }
}

fn idx(e: &Value) -> u64 {
    e["i"].as_u64().unwrap()
}

#[test]
fn every_instance_fires_every_slot_and_hands_it_to_the_same_worker() {
    for seed in 0..SEEDS {
        let r = run_story("scheduler/no-faults-same-tx.toml", seed);
        assert!(
            matches!(r.exactly_once, Status::Held(_)),
            "seed {seed}: {:?}",
            r.exactly_once
        );
        let fired = r.fired();
        assert_eq!(
            fired.keys().copied().collect::<Vec<_>>(),
            [1, 2, 3, 4, 5],
            "seed {seed}"
        );
        assert!(
            fired.values().all(|n| *n == 3),
            "seed {seed}: three instances fire each slot"
        );
        for e in r.all("slot_fired") {
            let slot = e["slot"].as_i64().unwrap();
            assert_eq!(
                e["worker"],
                slot % 2,
                "seed {seed}: slot {slot} goes to client-(slot mod 2)"
            );
            assert_eq!(e["wall_ns"], slot * 10_000_000_000, "fired at its boundary");
        }
        assert!(r.effects().values().all(|n| *n == 1), "seed {seed}");
        assert_eq!(
            r.all("duplicate_suppressed").len(),
            10,
            "seed {seed}: two repeats per slot"
        );
    }
}

/// Each instance fires by its own clock: server-1's wall clock reads 300 ms ahead and
/// server-2's runs 1000 ppm fast, so both reach every boundary earlier in true time than
/// server-0 — each at the moment its own clock reads the slot's start.
#[test]
fn each_instance_fires_when_its_own_clock_reaches_the_boundary() {
    const PERIOD: i64 = 10_000_000_000;
    let text = std::fs::read_to_string(common::scenario("scheduler/no-faults-same-tx.toml")).unwrap();
    let text = format!(
        "{text}\n[[clock]]\nnode = \"server-1\"\noffset_ms = 300\n\n[[clock]]\nnode = \"server-2\"\ndrift_ppm = 1000\n"
    );
    let s = parse_scenario("skewed.toml", &text).unwrap();
    for seed in 0..SEEDS {
        let mut trace: Vec<TraceEvent> = Vec::new();
        run(&s, seed, Recording::Traced(&mut trace));
        let events: Vec<Value> = trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect();
        let mut fired: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
        for e in events.iter().filter(|e| e["kind"] == "slot_fired") {
            let slot = e["slot"].as_i64().unwrap();
            let node = e["node"].as_str().unwrap();
            assert_eq!(
                e["wall_ns"],
                slot * PERIOD,
                "seed {seed}: {node} fires at its own boundary"
            );
            let t = e["t_ns"].as_i64().unwrap();
            let expected = match node {
                "server-0" => slot * PERIOD,
                "server-1" => slot * PERIOD - 300_000_000,
                "server-2" => (slot * PERIOD * 1_000_000).div_euclid(1_001_000),
                other => panic!("{other} fired"),
            };
            assert!(
                (expected..=expected + 1).contains(&t),
                "seed {seed}: {node} fired slot {slot} at {t} ns, expected {expected}"
            );
            fired.entry(node).or_default().push(slot);
        }
        for node in ["server-0", "server-1", "server-2"] {
            assert_eq!(fired[node], [1, 2, 3, 4, 5], "seed {seed}: {node}");
        }
    }
}

#[test]
fn same_tx_the_retry_after_the_crash_hits_the_key() {
    for seed in 0..SEEDS {
        let r = run_story("scheduler/crash-between-effect-and-mark-same-tx.toml", seed);
        assert!(
            matches!(r.exactly_once, Status::Held(_)),
            "seed {seed}: {:?}",
            r.exactly_once
        );
        let effects = r.effects();
        assert_eq!(effects.len(), r.fired().len(), "seed {seed}: every fired slot ran");
        assert!(effects.values().all(|n| *n == 1), "seed {seed}: {effects:?}");
        // The crash fell right after slot 1's effect: the worker never got to record the mark.
        let crash = r.one("crash");
        let committed = &r.of_slot("effect_committed", 1)[0];
        assert_eq!(
            (committed["node"].as_str(), idx(committed) + 1),
            (Some("client-1"), idx(crash))
        );
        assert!(
            r.of_slot("marked_done", 1).iter().all(|e| idx(e) > idx(crash)),
            "seed {seed}"
        );
        // The instances re-sent slot 1; after the restart the key turned the retry away.
        let restart = r.one("restart");
        assert_eq!(
            r.of_slot("job_resent", 1).len(),
            3,
            "seed {seed}: one re-send per instance"
        );
        let suppressed: Vec<&Value> = r
            .of_slot("duplicate_suppressed", 1)
            .into_iter()
            .filter(|e| idx(e) > idx(restart))
            .collect();
        assert!(!suppressed.is_empty(), "seed {seed}: the retry ran and was turned away");
        assert_eq!(r.of_slot("effect_applied", 1)[0]["counter"], 1);
    }
}

#[test]
fn mark_after_the_retry_after_the_crash_commits_the_effect_again() {
    for seed in 0..SEEDS {
        let r = run_story("scheduler/crash-between-effect-and-mark-mark-after.toml", seed);
        let second = r.violation();
        assert_eq!(second["kind"], "effect_applied");
        assert_eq!(
            (second["slot"].as_i64(), second["nth"].as_u64()),
            (Some(1), Some(2)),
            "seed {seed}"
        );
        let crash = r.one("crash");
        let restart = r.one("restart");
        let first = &r.of_slot("effect_applied", 1)[0];
        assert!(idx(first) < idx(crash) && idx(second) > idx(restart), "seed {seed}");
        // Between the first effect and the crash no done-mark was written; the retry checked,
        // found none, ran the effect, and only then wrote the mark.
        let marks = r.of_slot("mark_written", 1);
        assert_eq!(marks.len(), 1, "seed {seed}");
        assert!(idx(marks[0]) > idx(second));
        let checks: Vec<&Value> = r
            .of_slot("mark_checked", 1)
            .into_iter()
            .filter(|e| e["done"] == false)
            .collect();
        assert_eq!(
            checks.len(),
            2,
            "seed {seed}: the first attempt and the retry found no mark"
        );
        // Every other slot ran exactly once: only the crash made the duplicate.
        let effects = r.effects();
        assert!(
            effects.iter().all(|(slot, n)| *n == if *slot == 1 { 2 } else { 1 }),
            "seed {seed}: {effects:?}"
        );
    }
}

#[test]
fn without_dedup_every_instance_firing_commits_an_effect_with_no_fault() {
    for seed in 0..SEEDS {
        let r = run_story("scheduler/no-dedup.toml", seed);
        assert!(
            r.all("crash").is_empty() && r.all("pause").is_empty(),
            "no fault at all"
        );
        let second = r.violation();
        assert_eq!(
            (second["slot"].as_i64(), second["nth"].as_u64()),
            (Some(1), Some(2)),
            "seed {seed}"
        );
        let fired = r.fired();
        let effects = r.effects();
        assert_eq!(effects, fired, "seed {seed}: one effect per firing instance");
        let last = r.all("effect_applied").last().unwrap()["counter"].as_u64().unwrap();
        assert_eq!(last, 15, "seed {seed}: 5 slots x 3 instances");

        let m = run_story("scheduler/no-faults-mark-after.toml", seed);
        assert!(
            matches!(m.exactly_once, Status::Held(_)),
            "seed {seed}: {:?}",
            m.exactly_once
        );
        let skipped = m.all("mark_checked").into_iter().filter(|e| e["done"] == true).count();
        assert_eq!(skipped, 10, "seed {seed}: the two repeats of each slot find the mark");
    }
}

#[test]
fn locksim_list_shows_the_session_and_scheduler_models() {
    let out = common::locksim(&["list"]);
    assert!(out.status.success());
    let text = common::stdout(&out);
    for needle in [
        "session-cas",
        "read_checks_expiry",
        "cleanup_every_ms",
        "logout_at_ms",
        "scheduler",
        "\"same-tx\" | \"mark-after\" | \"none\"",
        "effect_committed",
        "marked_done",
        "request_served",
    ] {
        assert!(text.contains(needle), "`locksim list` mentions {needle}");
    }
}
