//! Issue 12, point 6: no input makes locksim panic or hang. Every catalogue scenario's text and
//! one trace file are mutated — bytes flipped, lines (keys, events) dropped or duplicated,
//! numbers replaced by extremes — and the binary must answer each within a time limit with
//! exit 0, 1 or 2 (2 with a message), never a panic.
//!
//! The runner has a fixed seed and no failure persistence: the cases are the same on every run
//! and nothing is written into the repository. A failure names the file and the mutations, and
//! proptest shrinks them to the fewest that still fail.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use locksim::proptest::prelude::*;
use locksim::proptest::test_runner::{Config, RngSeed, TestRunner};

/// Longer than any catalogue run takes (a mutation may lengthen one) in a debug build on a
/// loaded CI machine, far shorter than a hang.
const CASE_LIMIT: Duration = Duration::from_secs(20);

/// Numbers at the edges of what a parser might take: `u64::MAX`, `i64::MAX`, zero, negative,
/// huge floats. One knob at zero answers at once; zero `work_ms`, `think_ms` and latency all
/// together spin at one instant (issue 12 point 5, budgets instead of hangs), which three
/// mutations of the fixed seed's cases never reach.
const EXTREMES: &[&str] = &[
    "0",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "-1",
    "1e308",
    "-1e308",
    "4294967296",
];

/// One change to a file's text.
#[derive(Clone, Debug)]
enum Mutation {
    /// The byte at (a position scaled to the text's length) replaced by `byte`.
    FlipByte { at: u32, byte: u8 },
    /// A line removed: a scenario key, a trace header key or event.
    DropLine { at: u32 },
    /// A line written twice in a row.
    DuplicateLine { at: u32 },
    /// A number in the text replaced by one of the [`EXTREMES`].
    Extreme { at: u32, extreme: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        // Half printable, so a flip often still reads as text and reaches the parser.
        (any::<u32>(), prop_oneof![any::<u8>(), 0x20u8..0x7f]).prop_map(|(at, byte)| Mutation::FlipByte { at, byte }),
        any::<u32>().prop_map(|at| Mutation::DropLine { at }),
        any::<u32>().prop_map(|at| Mutation::DuplicateLine { at }),
        (any::<u32>(), 0..EXTREMES.len()).prop_map(|(at, extreme)| Mutation::Extreme { at, extreme }),
    ]
}

/// `at` scaled into `0..len` (`len` > 0).
fn scaled(at: u32, len: usize) -> usize {
    ((u64::from(at) * len as u64) >> 32) as usize
}

/// The spans of the text's numbers (digits with an optional leading minus, dot and exponent).
fn numbers(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if text[i].is_ascii_digit() {
            let start = if i > 0 && text[i - 1] == b'-' { i - 1 } else { i };
            let mut end = i;
            while end < text.len() && (text[end].is_ascii_digit() || b".eE_".contains(&text[end])) {
                end += 1;
            }
            spans.push((start, end));
            i = end;
        } else {
            i += 1;
        }
    }
    spans
}

fn apply(text: &[u8], m: &Mutation) -> Vec<u8> {
    let mut out = text.to_vec();
    let lines = |t: &[u8]| -> Vec<Vec<u8>> { t.split_inclusive(|b| *b == b'\n').map(<[u8]>::to_vec).collect() };
    match *m {
        Mutation::FlipByte { at, byte } if !out.is_empty() => {
            let i = scaled(at, out.len());
            out[i] = byte;
        }
        Mutation::DropLine { at } if !out.is_empty() => {
            let mut ls = lines(&out);
            ls.remove(scaled(at, ls.len()));
            out = ls.concat();
        }
        Mutation::DuplicateLine { at } if !out.is_empty() => {
            let mut ls = lines(&out);
            let i = scaled(at, ls.len());
            let mut line = ls[i].clone();
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            ls.insert(i, line);
            out = ls.concat();
        }
        Mutation::Extreme { at, extreme } => {
            let spans = numbers(&out);
            if !spans.is_empty() {
                let (start, end) = spans[scaled(at, spans.len())];
                out.splice(start..end, EXTREMES[extreme].bytes());
            }
        }
        _ => {}
    }
    out
}

/// A scenario file of the catalogue, or the trace.
struct Input {
    /// Where the case writes its mutated text: the trace in the scratch folder, a scenario in
    /// a copy of its catalogue folder (its `twins` must be files beside it).
    target: PathBuf,
    text: Vec<u8>,
}

/// The catalogue's scenarios, copied into the scratch folder family by family, and a trace of
/// one of them (a violating run, so its result has violations to mark), last.
static INPUTS: LazyLock<Vec<Input>> = LazyLock::new(|| {
    let dir = common::scratch_dir("mutated-input");
    let scenarios = common::root().join("scenarios");
    let mut inputs: Vec<Input> = common::catalogue()
        .into_iter()
        .map(|p| {
            let text = std::fs::read(&p).expect("a catalogue file reads");
            let target = dir.join(p.strip_prefix(&scenarios).expect("under scenarios/"));
            std::fs::create_dir_all(target.parent().unwrap()).expect("the temp folder is writable");
            std::fs::write(&target, &text).expect("the temp folder is writable");
            Input { target, text }
        })
        .collect();
    let target = dir.join("original.trace.json");
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    let o = common::run_writing_trace(&scenario, &target);
    assert!(o.status.code().is_some_and(|c| c < 2), "{}", common::stderr(&o));
    let text = std::fs::read(&target).expect("the trace was written");
    inputs.push(Input { target, text });
    inputs
});

/// Runs the binary on `path` (`render` for a trace, `run` otherwise), killing it at
/// [`CASE_LIMIT`]; the error says what went wrong.
fn answer(path: &Path, is_trace: bool) -> Result<(), String> {
    let file = path.to_str().unwrap();
    let args: &[&str] = if is_trace {
        &["render", file]
    } else {
        &["run", file, "--timeline", "none"]
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksim"))
        .args(args)
        .current_dir(common::root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the locksim binary starts");
    // stderr is read on its own thread, so a long message cannot block the child on a full pipe.
    let mut pipe = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        let mut err = String::new();
        let _ = pipe.read_to_string(&mut err);
        err
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait on the child") {
            break status;
        }
        if started.elapsed() > CASE_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("no answer within {CASE_LIMIT:?}: a hang"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = reader.join().expect("the reader thread");
    match status.code() {
        _ if err.contains("panicked at") => Err(format!("a panic: {err}")),
        Some(0 | 1) => Ok(()),
        Some(2) if err.contains("error") => Ok(()),
        code => Err(format!(
            "exit {code:?} (0, 1 or 2 with a message expected); stderr: {err}"
        )),
    }
}

#[test]
fn mutated_scenarios_and_traces_never_panic_or_hang() {
    let inputs = &*INPUTS;
    let trace = inputs.len() - 1;
    let config = Config {
        cases: 512,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(12),
        max_shrink_iters: 64,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    // A third of the cases mutate the trace, the rest a catalogue scenario.
    let input = prop_oneof![2 => 0..trace, 1 => Just(trace)];
    let case = (input, prop::collection::vec(mutation(), 1..=3));
    let result = runner.run(&case, |(input, mutations)| {
        let Input { target, text } = &inputs[input];
        let mutated = mutations.iter().fold(text.clone(), |t, m| apply(&t, m));
        std::fs::write(target, &mutated).expect("the temp folder is writable");
        let answered = answer(target, input == trace);
        // Back as it was: it may be another scenario's twin.
        std::fs::write(target, text).expect("the temp folder is writable");
        answered.map_err(|e| TestCaseError::fail(format!("{} mutated by {mutations:?}: {e}", target.display())))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
