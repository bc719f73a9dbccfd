//! No vacuous "held": a scenario that puts a protection to the test and expects an invariant
//! `held` names a twin — the same story without that protection — that expects it `violated`.
//! The twin must differ only in protection settings (or in the one assumption the story is
//! about), so the pair shows that the protection, and nothing else, makes the difference.
//!
//! Scenarios without faults are baselines ("the protocol works when nothing goes wrong"):
//! they are not required to have twins, but twins they name are checked the same way.

mod common;

use std::collections::BTreeMap;

use locksim::Scenario;
use locksim::load::{load_file, parse_scenario};
use toml::de::{DeTable, DeValue};

/// Settings a twin may differ in whatever its protocol, besides the protections its model
/// declares (`ProtocolSpec::protections`): the assumptions the debate is about — how far a
/// clock drifts (antirez's bound) and where a pause lands relative to the validity check
/// (antirez's "during acquisition" vs Kleppmann's "after").
const ASSUMPTIONS: &[&str] = &[
    "clock[].drift_ppm",
    "fault[].after",
    // Whether a pause stops the monotonic clock (a VM suspend) or not (a GC pause). The leased
    // node-ID pair keeps the same protection — the monotonic lease re-check — and shows that it
    // holds only under the second assumption.
    "fault[].suspend",
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
    /// The settings its model declares as protections.
    protections: &'static [&'static str],
    faults: usize,
    expect: BTreeMap<&'static str, &'static str>,
    twins: Vec<String>,
}

impl Entry {
    fn of(s: &Scenario, text: String) -> Self {
        Entry {
            name: s.name.clone(),
            text,
            kind: s.protocol.kind(),
            protections: s.protocol.spec().protections,
            faults: s.faults.entries.len(),
            expect: s.expect.iter().map(|(i, e)| (i.id(), e.word())).collect(),
            twins: s.twins.clone(),
        }
    }
}

fn catalogue() -> BTreeMap<String, Entry> {
    common::catalogue()
        .into_iter()
        .map(|path| {
            let loaded = load_file(&path).unwrap();
            let s = loaded.scenario;
            (s.name.clone(), Entry::of(&s, loaded.source))
        })
        .collect()
}

/// What is wrong with `twin` as `s`'s twin: another protocol, too many or no differences, a
/// difference that is neither a protection of the model nor an assumption, no `held` of `s`
/// that the twin shows `violated`.
fn pair_problems(s: &Entry, twin: &Entry) -> Vec<String> {
    let mut problems = Vec::new();
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
        let key = generic(d);
        if !s.protections.contains(&key.as_str()) && !ASSUMPTIONS.contains(&key.as_str()) {
            problems.push(format!(
                "{} vs {}: differ in {d}, which is not a protection of {}",
                s.name, twin.name, s.kind
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
    problems
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
            problems.extend(pair_problems(s, twin));
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

/// The check fails a pair that differs in a setting the model does not declare a protection
/// (here the TTL), and passes the same pair differing in a declared one.
#[test]
fn the_pairing_check_notices_a_twin_that_changes_more_than_the_protection() {
    let base = "name = \"a\"\n[protocol]\nkind = \"single-redis\"\nttl_ms = 10000\nfencing_tokens = \"incr\"\n[resource]\nfencing = \"strict\"\n[[fault]]\nkind = \"pause\"\nnode = \"client-0\"\nat_ms = 1000\nduration_ms = 15000\n[expect]\nstale_write = \"held\"\n";
    let entry = |text: &str, expect: &str| {
        let text = text.replace("stale_write = \"held\"", &format!("stale_write = \"{expect}\""));
        Entry::of(&parse_scenario("a.toml", &text).unwrap(), text)
    };
    let held = entry(base, "held");
    let ttl_changed = entry(&base.replace("ttl_ms = 10000", "ttl_ms = 5000"), "violated");
    let problems = pair_problems(&held, &ttl_changed);
    assert_eq!(
        problems,
        ["a vs a: differ in protocol.ttl_ms, which is not a protection of single-redis"]
    );
    let unfenced = entry(&base.replace("fencing = \"strict\"", "fencing = \"none\""), "violated");
    assert_eq!(pair_problems(&held, &unfenced), Vec::<String>::new());
    assert_eq!(generic("fault[3].after"), "fault[].after");
}
