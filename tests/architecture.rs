//! The layering DESIGN section 1 promises, guarded: no import cycle between sibling modules,
//! an engine (`sim/src`) that names no protocol, server product or workload, and library files
//! short enough to read. Each rule reads the source files as text.
//!
//! The KNOWN lists are what the code breaks today and is being fixed for issue 11: a rule
//! fails on anything new, and on a KNOWN entry that no longer applies (so the lists only
//! shrink).

/// The rules' helpers, in `tests/architecture/`.
mod architecture {
    pub mod module_graph;
    pub mod source;
}

use std::collections::BTreeSet;

use architecture::module_graph::cycles;
use architecture::source::{CRATES, crate_files, words};

/// Import cycles tolerated while being removed: (crate folder, module folder, the cycle's
/// modules). A cycle found must lie within one of these; issue 11 removed the last.
const KNOWN_CYCLES: &[(&str, &str, &[&str])] = &[];

/// Words that name a protocol, server product or workload, matched as whole words (a plural
/// `s` allowed), case-insensitively, in the engine's code and comments:
/// - the models and their servers: redis, redlock, sentinel, etcd, raft, snowflake;
/// - the seed systems issue 11 says are coming: zookeeper, postgres / postgresql, uuid /
///   uuidv7;
/// - workloads and their vocabulary: lock, lease, fence / fenced / fencing (lock-service
///   terms), session, scheduler.
///
/// Left out on purpose: `counter` (the engine has ChaCha's stream counter and its own event
/// counters, a different sense of the word), `leaf` (a heap's leaf), `primary` and
/// `replica` (the engine's own failover fault speaks of them), `client` and `server` (the
/// engine's roles).
const PROTOCOL_WORDS: &[&str] = &[
    "redis",
    "redlock",
    "sentinel",
    "etcd",
    "raft",
    "snowflake",
    "zookeeper",
    "postgres",
    "postgresql",
    "uuid",
    "uuidv7",
    "lock",
    "lease",
    "fence",
    "fenced",
    "fencing",
    "session",
    "scheduler",
];

/// Engine files that still name protocols, being moved out of `sim` or reworded for issue 11.
const KNOWN_PROTOCOL_WORDS: &[&str] = &[];

/// A library file longer than this does several jobs, or holds tests that belong in a file
/// of their own beside it.
const MAX_FILE_LINES: usize = 400;

/// Library files over [`MAX_FILE_LINES`] tolerated while being split; issue 11 split the last.
const KNOWN_LONG_FILES: &[&str] = &[];

#[test]
fn no_import_cycle_between_sibling_modules() {
    let mut problems = Vec::new();
    let mut known_seen = BTreeSet::new();
    for src in CRATES {
        for cycle in cycles(&crate_files(src)) {
            let known = KNOWN_CYCLES.iter().position(|(c, folder, members)| {
                *c == src && *folder == cycle.folder && cycle.members.iter().all(|m| members.contains(&m.as_str()))
            });
            match known {
                Some(i) => {
                    known_seen.insert(i);
                }
                None => problems.push(format!(
                    "{src}: a cycle among {{{}}} in {}:\n    {}",
                    cycle.members.iter().cloned().collect::<Vec<_>>().join(", "),
                    if cycle.folder.is_empty() {
                        "the crate root"
                    } else {
                        &cycle.folder
                    },
                    cycle.chain.join("\n -> ")
                )),
            }
        }
    }
    for (i, (src, folder, members)) in KNOWN_CYCLES.iter().enumerate() {
        if !known_seen.contains(&i) {
            problems.push(format!(
                "KNOWN_CYCLES lists {src} {folder}::{{{}}}, which is no cycle any more: remove it",
                members.join(", ")
            ));
        }
    }
    assert!(problems.is_empty(), "import cycles:\n{}", problems.join("\n\n"));
}

#[test]
fn the_engine_names_no_protocol() {
    let mut problems = Vec::new();
    let mut known_seen: BTreeSet<&str> = BTreeSet::new();
    for file in crate_files("sim/src") {
        let hits: Vec<String> = words(&file.text)
            .into_iter()
            .filter(|(_, w)| {
                PROTOCOL_WORDS.contains(&w.as_str()) || w.strip_suffix('s').is_some_and(|s| PROTOCOL_WORDS.contains(&s))
            })
            .map(|(line, w)| format!("{}:{line}: {w}", file.path))
            .collect();
        let known = KNOWN_PROTOCOL_WORDS.iter().any(|k| file.path.starts_with(k));
        if known && !hits.is_empty() {
            known_seen.extend(KNOWN_PROTOCOL_WORDS.iter().filter(|k| file.path.starts_with(*k)));
        } else if !hits.is_empty() {
            problems.extend(hits);
        }
    }
    for k in KNOWN_PROTOCOL_WORDS {
        if !known_seen.contains(k) {
            problems.push(format!(
                "KNOWN_PROTOCOL_WORDS lists {k}, which names no protocol any more: remove it"
            ));
        }
    }
    assert!(problems.is_empty(), "sim/src names protocols:\n{}", problems.join("\n"));
}

#[test]
fn library_files_are_short() {
    let mut problems = Vec::new();
    let mut long = BTreeSet::new();
    for file in CRATES.into_iter().flat_map(crate_files).filter(|f| !f.is_test_only()) {
        let lines = file.text.lines().count();
        if lines > MAX_FILE_LINES {
            long.insert(file.path.clone());
            if !KNOWN_LONG_FILES.contains(&file.path.as_str()) {
                problems.push(format!("{} has {lines} lines (at most {MAX_FILE_LINES})", file.path));
            }
        }
    }
    for k in KNOWN_LONG_FILES.iter().filter(|k| !long.contains(**k)) {
        problems.push(format!(
            "KNOWN_LONG_FILES lists {k}, which is no longer over {MAX_FILE_LINES} lines: remove it"
        ));
    }
    assert!(problems.is_empty(), "long library files:\n{}", problems.join("\n"));
}
