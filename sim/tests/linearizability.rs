//! The linearizability checker on published histories, re-expressed:
//!
//! - Jepsen's etcd register histories (`linearizability/jepsen_etcd_*.log`): read, write and
//!   compare-and-set on one register, from Alex Horn's linearizability-checker as Porcupine
//!   ships them (github.com/anishathalye/porcupine, `test_data/jepsen/`, MIT licence); the
//!   expected answers are Porcupine's (`porcupine_test.go`, `TestEtcdJepsen000`...), which
//!   agree with Knossos's;
//! - Porcupine's key-value histories (`test_data/kv/c01-*`, `c10-*`: get, put, append on
//!   string keys, 1 and 10 clients), checked per key with a spec written here — the checker
//!   is generic, and this is a specification it was not written for.
//!
//! Times are line numbers, as in Porcupine's event form. A Jepsen `:info` (a write or cas
//! that timed out) and an invocation with no completion are operations that never returned;
//! a `:fail :read :timed-out` is a read whose value is unknown.

use std::collections::BTreeMap;

use locksim_sim::check::linear::{
    DEFAULT_MAX_STEPS, Keyed, Op, Outcome, Register, RegisterIn, RegisterOut, Spec, check,
};

type JOp = Op<RegisterIn<i64>, RegisterOut<i64>>;

fn data(name: &str) -> String {
    let path = format!("{}/tests/linearizability/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Jepsen's log lines `INFO  jepsen.util - <process> <type> <f> <value>`.
fn jepsen(name: &str) -> Vec<JOp> {
    let mut ops: Vec<JOp> = Vec::new();
    let mut open: BTreeMap<u64, usize> = BTreeMap::new();
    for (line_no, line) in data(name).lines().enumerate() {
        let Some((_, rest)) = line.split_once("jepsen.util - ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let process: u64 = fields[0].parse().unwrap();
        let t = line_no as u64;
        let nums: Vec<i64> = fields[3..]
            .iter()
            .filter_map(|f| f.trim_matches(|c| c == '[' || c == ']').parse().ok())
            .collect();
        match (fields[1], fields[2]) {
            (":invoke", f) => {
                let input = match f {
                    ":read" => RegisterIn::Read,
                    ":write" => RegisterIn::Write(nums[0]),
                    ":cas" => RegisterIn::Cas {
                        from: nums[0],
                        to: nums[1],
                    },
                    other => panic!("{name}:{line_no}: {other}"),
                };
                open.insert(process, ops.len());
                ops.push(Op {
                    process,
                    call: t,
                    end: None,
                    input,
                });
            }
            (":info", _) => {
                open.remove(&process);
            }
            (kind, f) => {
                let i = open.remove(&process).expect("a completion after its invocation");
                ops[i].end = match (kind, f, fields[3]) {
                    (":fail", ":read", ":timed-out") => None,
                    (":ok", ":read", v) => Some((t, RegisterOut::Read(v.parse().ok()))),
                    (":ok", ":write", _) => Some((t, RegisterOut::Written)),
                    (":ok", ":cas", _) => Some((t, RegisterOut::Cas(true))),
                    (":fail", ":cas", _) => Some((t, RegisterOut::Cas(false))),
                    other => panic!("{name}:{line_no}: {other:?}"),
                };
            }
        }
    }
    ops
}

fn jepsen_linearizable(n: u32) -> bool {
    let ops = jepsen(&format!("jepsen_etcd_{n:03}.log"));
    assert!(ops.len() > 50, "history {n} parsed: {} ops", ops.len());
    match check(&Register::new(), &ops, DEFAULT_MAX_STEPS) {
        Outcome::Linearizable { .. } => true,
        Outcome::Unexplained(u) => {
            assert!(ops[u.op].end.is_some(), "the unexplained op returned");
            false
        }
        Outcome::Undecided { steps } => panic!("history {n} undecided after {steps} steps"),
    }
}

#[test]
fn jepsen_register_histories_are_judged_as_porcupine_and_knossos_judge_them() {
    // porcupine_test.go: checkJepsen(t, n, expected).
    let expected = [
        (0, false),
        (1, false),
        (2, true),
        (3, false),
        (5, true),
        (7, true),
        (10, false),
        (18, true),
        (25, true),
        (31, true),
    ];
    let got: Vec<(u32, bool)> = expected.iter().map(|&(n, _)| (n, jepsen_linearizable(n))).collect();
    assert_eq!(got, expected);
}

/// Porcupine's `kvModel` for one key: get returns the value, put sets it, append extends it;
/// a key starts as "".
struct AppendKv;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum KvIn {
    Get,
    Put(String),
    Append(String),
}

impl Spec for AppendKv {
    type State = String;
    type Input = KvIn;
    type Output = String;
    type Key = ();

    fn init(&self) -> String {
        String::new()
    }

    fn key(&self, _input: &KvIn) {}

    fn step(&self, state: &String, input: &KvIn, output: Option<&String>) -> Option<String> {
        match input {
            KvIn::Get => output.is_none_or(|v| v == state).then(|| state.clone()),
            KvIn::Put(v) => Some(v.clone()),
            KvIn::Append(v) => Some(format!("{state}{v}")),
        }
    }
}

/// `{:process 0, :type :invoke, :f :append, :key "0", :value "x 0 0 y"}` lines.
fn kv(name: &str) -> Vec<Op<(String, KvIn), String>> {
    let quoted = |line: &str, key: &str| -> Option<String> {
        let at = line.find(key)? + key.len();
        let rest = &line[at..];
        let rest = rest.strip_prefix('"')?;
        Some(rest[..rest.find('"')?].to_string())
    };
    let mut ops: Vec<Op<(String, KvIn), String>> = Vec::new();
    let mut open: BTreeMap<u64, usize> = BTreeMap::new();
    for (t, line) in data(name).lines().enumerate() {
        let field = |k: &str| {
            let at = line.find(k).unwrap() + k.len();
            line[at..].split([',', '}']).next().unwrap().trim().to_string()
        };
        let process: u64 = field(":process ").parse().unwrap();
        let value = quoted(line, ":value ");
        if field(":type ") == ":invoke" {
            let key = quoted(line, ":key ").unwrap();
            let input = match field(":f ").as_str() {
                ":get" => KvIn::Get,
                ":put" => KvIn::Put(value.unwrap()),
                ":append" => KvIn::Append(value.unwrap()),
                other => panic!("{name}:{t}: {other}"),
            };
            open.insert(process, ops.len());
            ops.push(Op {
                process,
                call: t as u64,
                end: None,
                input: (key, input),
            });
        } else {
            let i = open.remove(&process).unwrap();
            ops[i].end = Some((t as u64, value.unwrap_or_default()));
        }
    }
    ops
}

fn kv_linearizable(name: &str) -> bool {
    let ops = kv(&format!("kv_{name}.txt"));
    match check(&Keyed::<String, _>::new(AppendKv), &ops, DEFAULT_MAX_STEPS) {
        Outcome::Linearizable { keys, .. } => {
            assert!(keys > 1, "{name}: split by key");
            true
        }
        Outcome::Unexplained(_) => false,
        Outcome::Undecided { steps } => panic!("{name} undecided after {steps} steps"),
    }
}

#[test]
fn porcupine_key_value_histories_are_judged_per_key_as_porcupine_judges_them() {
    // porcupine_test.go: checkKv(t, "c01-ok", true, true) ...
    let names = ["c01-ok", "c01-bad", "c10-ok", "c10-bad"];
    let got: Vec<bool> = names.iter().map(|n| kv_linearizable(n)).collect();
    assert_eq!(got, [true, false, true, false]);
}

#[test]
fn a_bad_history_names_an_operation_that_returned_and_its_prefix_is_linearizable() {
    // The named op is minimal: cut the history just before that op's completion (every op
    // that completed later becomes one that never returned) and the rest has a linearization.
    let ops = jepsen("jepsen_etcd_000.log");
    let Outcome::Unexplained(u) = check(&Register::new(), &ops, DEFAULT_MAX_STEPS) else {
        panic!("history 0 is not linearizable");
    };
    let cut = ops[u.op].end.as_ref().unwrap().0;
    let before: Vec<JOp> = ops
        .iter()
        .filter(|o| o.call < cut)
        .map(|o| Op {
            end: o.end.clone().filter(|(t, _)| *t < cut),
            ..o.clone()
        })
        .collect();
    assert!(matches!(
        check(&Register::new(), &before, DEFAULT_MAX_STEPS),
        Outcome::Linearizable { .. }
    ));
    let through: Vec<JOp> = ops
        .iter()
        .filter(|o| o.call <= cut)
        .map(|o| Op {
            end: o.end.clone().filter(|(t, _)| *t <= cut),
            ..o.clone()
        })
        .collect();
    assert!(matches!(
        check(&Register::new(), &through, DEFAULT_MAX_STEPS),
        Outcome::Unexplained(_)
    ));
}
