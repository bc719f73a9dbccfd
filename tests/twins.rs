//! No vacuous "held": a scenario that puts a protection to the test and expects an invariant
//! `held` names a twin — the same story without that protection — that expects it `violated`.
//! The twin must differ only in protection settings (or in the one assumption the story is
//! about), so the pair shows that the protection, and nothing else, makes the difference.
//!
//! Scenarios without faults are baselines ("the protocol works when nothing goes wrong"):
//! they are not required to have twins, but twins they name are checked the same way.

mod common;

use std::collections::BTreeMap;

use locksim::load::load_file;
use toml::de::{DeTable, DeValue};

/// Settings a twin may differ in: the protections, and two assumptions the debate is about —
/// how far a clock drifts (antirez's bound) and where a pause lands relative to the validity
/// check (antirez's "during acquisition" vs Kleppmann's "after").
const ALLOWED: &[&str] = &[
    "protocol.fencing_tokens",
    "protocol.release",
    "protocol.acquire",
    "protocol.renew",
    "protocol.deadline_check",
    "protocol.server_clock",
    "protocol.persistence",
    "protocol.delayed_restart_ms",
    // Redlock: the clock the client measures the acquisition's elapsed time on.
    "protocol.elapsed_clock",
    // Redis replication: a primary refuses writes without enough recently acked replicas.
    "protocol.min_replicas_to_write",
    "resource.fencing",
    "resource.persist_max_fence",
    // etcd: the recipe's own-key check (issue 11456), majority commit, the session deadline
    // counted from the send, the counter's place.
    "protocol.waiter_recheck",
    "protocol.commit",
    "protocol.session_deadline",
    "resource.kind",
    "clock[].drift_ppm",
    "fault[].after",
    // Snowflake's protections: the rollback policy, the last ms on disk, the sequence overflow.
    "protocol.rollback",
    "protocol.persist_last_ms",
    "protocol.sequence_overflow",
    // An assumption, not a protection: whether a pause stops the monotonic clock (a VM
    // suspend) or not (a GC pause). The leased node-ID pair keeps the same protection — the
    // monotonic lease re-check — and shows that it holds only under the second assumption.
    "fault[].suspend",
    // The session store's protections: the version CAS save, the capped idle refresh, the
    // expiry check at read time (instead of trusting the lazy cleanup).
    "protocol.save",
    "protocol.refresh",
    "protocol.read_checks_expiry",
    // The scheduler's: the (job, slot) key in the effect's transaction, a done-mark, or nothing.
    "protocol.dedup",
];
const MAX_DIFFERENCES: usize = 2;

/// Every setting of a scenario file as `path -> value`, leaving out what names and describes
/// it and what it expects.
fn settings(text: &str) -> BTreeMap<String, String> {
    fn walk(prefix: &str, table: &DeTable<'_>, out: &mut BTreeMap<String, String>) {
        for (key, value) in table {
            let path = if prefix.is_empty() {
                key.get_ref().to_string()
            } else {
                format!("{prefix}.{}", key.get_ref())
            };
            match value.get_ref() {
                DeValue::Table(t) => walk(&path, t, out),
                DeValue::Array(items) if items.iter().all(|i| i.get_ref().is_table()) && !items.is_empty() => {
                    for (i, item) in items.iter().enumerate() {
                        if let DeValue::Table(t) = item.get_ref() {
                            walk(&format!("{path}[{i}]"), t, out);
                        }
                    }
                }
                other => {
                    out.insert(path, repr(other));
                }
            }
        }
    }
    let doc = DeTable::parse(text).expect("catalogue files parse");
    let mut out = BTreeMap::new();
    walk("", doc.get_ref(), &mut out);
    out.retain(|k, _| !["name", "description", "seed", "twins"].contains(&k.as_str()) && !k.starts_with("expect."));
    out
}

/// A value as text, without the source positions TOML's parser keeps.
fn repr(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("{s:?}"),
        DeValue::Integer(i) => i.to_string(),
        DeValue::Float(f) => f.to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(items) => format!(
            "[{}]",
            items.iter().map(|i| repr(i.get_ref())).collect::<Vec<_>>().join(", ")
        ),
        DeValue::Table(t) => format!(
            "{{{}}}",
            t.iter()
                .map(|(k, v)| format!("{} = {}", k.get_ref(), repr(v.get_ref())))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `fault[2].after` -> `fault[].after`.
fn generic(path: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in path.chars() {
        match c {
            '[' => {
                skipping = true;
                out.push('[');
            }
            ']' => {
                skipping = false;
                out.push(']');
            }
            _ if skipping => {}
            _ => out.push(c),
        }
    }
    out
}

struct Entry {
    name: String,
    text: String,
    kind: &'static str,
    faults: usize,
    expect: BTreeMap<&'static str, &'static str>,
    twins: Vec<String>,
}

fn catalogue() -> BTreeMap<String, Entry> {
    common::catalogue()
        .into_iter()
        .map(|path| {
            let loaded = load_file(&path).unwrap();
            let s = loaded.scenario;
            let entry = Entry {
                name: s.name.clone(),
                text: loaded.source,
                kind: s.protocol.kind(),
                faults: s.faults.entries.len(),
                expect: s.expect.iter().map(|(i, e)| (i.id(), e.word())).collect(),
                twins: s.twins.clone(),
            };
            (s.name, entry)
        })
        .collect()
}

#[test]
fn every_protected_held_has_a_twin_that_differs_only_in_the_protection() {
    let all = catalogue();
    let mut problems = Vec::new();
    let mut pairs = 0;
    for s in all.values() {
        for twin_name in &s.twins {
            let Some(twin) = all.get(twin_name) else {
                problems.push(format!("{}: twin {twin_name:?} is not in the catalogue", s.name));
                continue;
            };
            pairs += 1;
            if twin.kind != s.kind {
                problems.push(format!("{}: twin {} runs another protocol", s.name, twin.name));
            }
            let (a, b) = (settings(&s.text), settings(&twin.text));
            let differing: Vec<&String> = a
                .keys()
                .chain(b.keys())
                .filter(|k| a.get(*k) != b.get(*k))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            if differing.is_empty() || differing.len() > MAX_DIFFERENCES {
                problems.push(format!(
                    "{} vs {}: must differ in 1..={MAX_DIFFERENCES} settings, differ in {differing:?}",
                    s.name, twin.name
                ));
            }
            for d in &differing {
                if !ALLOWED.contains(&generic(d).as_str()) {
                    problems.push(format!(
                        "{} vs {}: differ in {d}, which is not a protection",
                        s.name, twin.name
                    ));
                }
            }
            let shown = s
                .expect
                .iter()
                .any(|(i, e)| *e == "held" && twin.expect.get(i) == Some(&"violated"));
            if !shown {
                problems.push(format!(
                    "{}: twin {} expects `violated` for none of the invariants it expects `held`",
                    s.name, twin.name
                ));
            }
        }
        if s.faults == 0 {
            continue; // a baseline
        }
        for (invariant, expected) in &s.expect {
            if *expected != "held" {
                continue;
            }
            let twinned = s
                .twins
                .iter()
                .filter_map(|t| all.get(t))
                .any(|t| t.expect.get(invariant) == Some(&"violated"));
            if !twinned {
                problems.push(format!(
                    "{}: expects {invariant} held, but no twin expects it violated",
                    s.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(pairs >= 10, "the catalogue pairs its stories ({pairs} pairs)");
}

#[test]
fn the_pairing_check_notices_a_twin_that_changes_more_than_the_protection() {
    let base = "name = \"a\"\n[protocol]\nkind = \"single-redis\"\nttl_ms = 10000\n[resource]\nfencing = \"strict\"\n";
    let changed = base.replace("ttl_ms = 10000", "ttl_ms = 5000");
    let (a, b) = (settings(base), settings(&changed));
    let differing: Vec<&String> = a.keys().filter(|k| a.get(*k) != b.get(*k)).collect();
    assert_eq!(differing, ["protocol.ttl_ms"]);
    assert!(!ALLOWED.contains(&generic(differing[0]).as_str()));
    assert_eq!(generic("fault[3].after"), "fault[].after");
}
