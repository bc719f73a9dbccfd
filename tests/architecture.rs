//! The layering DESIGN section 1 promises, guarded: no import cycle between sibling modules,
//! an engine (`sim/src`) that names no protocol, server product or workload, and library files
//! short enough to read. Each rule reads the source files as text.
//! Each rule was seen to fail on the code before issue 11 (and on a cycle, a protocol word
//! and a long file added on purpose).

/// The rules' helpers, in `tests/architecture/`.
mod architecture {
    pub mod module_graph;
    pub mod source;
}

use architecture::module_graph::cycles;
use architecture::source::{CRATES, crate_files, words};

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

/// A library file longer than this does several jobs, or holds tests that belong in a file
/// of their own beside it.
const MAX_FILE_LINES: usize = 400;

#[test]
fn no_import_cycle_between_sibling_modules() {
    let mut problems = Vec::new();
    for src in CRATES {
        for cycle in cycles(&crate_files(src)) {
            problems.push(format!(
                "{src}: a cycle among {{{}}} in {}:\n    {}",
                cycle.members.iter().cloned().collect::<Vec<_>>().join(", "),
                if cycle.folder.is_empty() {
                    "the crate root"
                } else {
                    &cycle.folder
                },
                cycle.chain.join("\n -> ")
            ));
        }
    }
    assert!(problems.is_empty(), "import cycles:\n{}", problems.join("\n\n"));
}

#[test]
fn the_engine_names_no_protocol() {
    let mut problems = Vec::new();
    for file in crate_files("sim/src") {
        problems.extend(
            words(&file.text)
                .into_iter()
                .filter(|(_, w)| {
                    PROTOCOL_WORDS.contains(&w.as_str())
                        || w.strip_suffix('s').is_some_and(|s| PROTOCOL_WORDS.contains(&s))
                })
                .map(|(line, w)| format!("{}:{line}: {w}", file.path)),
        );
    }
    assert!(problems.is_empty(), "sim/src names protocols:\n{}", problems.join("\n"));
}

#[test]
fn library_files_are_short() {
    let problems: Vec<String> = CRATES
        .into_iter()
        .flat_map(crate_files)
        .filter(|f| !f.is_test_only())
        .filter_map(|file| {
            let lines = file.text.lines().count();
            (lines > MAX_FILE_LINES).then(|| format!("{} has {lines} lines (at most {MAX_FILE_LINES})", file.path))
        })
        .collect();
    assert!(problems.is_empty(), "long library files:\n{}", problems.join("\n"));
}
