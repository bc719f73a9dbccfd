//! The linearizability checker's run time on register histories of 1,000 and 10,000
//! operations (issue 16, point 4).
//!
//! ```text
//! cargo bench --bench linearizability [-- [REPEATS] [OPS...]]   # defaults: 5, 1000 10000
//! ```
//!
//! Each history is made by running a register for real: `CLIENTS` (5) clients, each with one
//! operation at a time (read 50 %, write 30 %, compare-and-set 20 %, values 0..5, as Jepsen's
//! `cas-register` workload draws them), every operation taking effect at one instant between
//! its call and its return, and 1 % of the writes and cas never returning (timed out: they
//! took effect or not). Four shapes per size:
//! - `ok`: that history, linearizable by construction;
//! - `bad`: the same with the last read to complete made to return a value no write wrote —
//!   one unexplainable operation, which the search meets only after placing all the rest,
//!   and must rule out every order of everything before it (each write that never returned
//!   doubles that: it may have taken effect at any point, or never);
//! - `bad-0`: the same with every operation returning;
//! - `keyed`: the operations spread over 10 keys (P-compositionality: ten small searches).
//!
//! Per history: the median and minimum of REPEATS timed checks, and the answer. The
//! histories come from a fixed SplitMix64 stream, so every run checks the same histories.

use std::time::{Duration, Instant};

use locksim::sim::check::linear::{
    DEFAULT_MAX_STEPS, Keyed, Op, Outcome, Register, RegisterIn, RegisterOut, Spec, check,
};

/// As many as Jepsen's register tests run (the published histories above have 5 processes).
const CLIENTS: u64 = 5;

/// SplitMix64: a fixed, seedable stream for the histories (not a simulation's stream).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

type ROp = Op<RegisterIn<u64>, RegisterOut<u64>>;

/// An operation before it runs: effect point, call, return, client, key, input, lost.
type Planned = (u64, u64, u64, u64, u64, RegisterIn<u64>, bool);

/// A linearizable history of `n` operations over `keys` registers, as `(key, op)`, with
/// `lost_per_mille` of the writes and cas never returning.
fn history(n: usize, keys: u64, lost_per_mille: u64, seed: u64) -> Vec<(u64, ROp)> {
    let mut rng = Mix(seed);
    // Each client's next free time; each operation: call, effect point, return.
    let mut free = vec![0u64; CLIENTS as usize];
    let mut planned: Vec<Planned> = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng.below(CLIENTS) as usize;
        let call = free[c] + rng.below(20);
        let effect = call + 1 + rng.below(30);
        let ret = effect + 1 + rng.below(30);
        free[c] = ret + 1;
        let input = match rng.below(10) {
            0..5 => RegisterIn::Read,
            5..8 => RegisterIn::Write(rng.below(5)),
            _ => RegisterIn::Cas {
                from: rng.below(5),
                to: rng.below(5),
            },
        };
        let lost = !matches!(input, RegisterIn::Read) && rng.below(1000) < lost_per_mille;
        planned.push((effect, call, ret, c as u64, rng.below(keys), input, lost));
    }
    // Apply at the effect points, in time order.
    planned.sort_by_key(|p| p.0);
    let mut values: Vec<Option<u64>> = vec![None; keys as usize];
    planned
        .into_iter()
        .map(|(_, call, ret, process, key, input, lost)| {
            let v = &mut values[key as usize];
            let out = match &input {
                RegisterIn::Read => RegisterOut::Read(*v),
                RegisterIn::Write(x) => {
                    *v = Some(*x);
                    RegisterOut::Written
                }
                RegisterIn::Cas { from, to } => {
                    let hit = *v == Some(*from);
                    if hit {
                        *v = Some(*to);
                    }
                    RegisterOut::Cas(hit)
                }
            };
            let end = (!lost).then_some((ret, out));
            (
                key,
                Op {
                    process,
                    call,
                    end,
                    input,
                },
            )
        })
        .collect()
}

/// The last read to complete, made to return a value no write wrote.
fn make_bad(h: &mut [(u64, ROp)]) {
    let last_read = (0..h.len())
        .filter(|&i| matches!(h[i].1.end, Some((_, RegisterOut::Read(_)))))
        .max_by_key(|&i| h[i].1.end.as_ref().map(|e| e.0))
        .expect("a read");
    if let Some((_, RegisterOut::Read(v))) = &mut h[last_read].1.end {
        *v = Some(v.map_or(99, |x| x + 100));
    }
}

fn time<S: Spec>(spec: &S, ops: &[Op<S::Input, S::Output>], repeats: usize) -> (Outcome, Duration, Duration) {
    let mut times = Vec::with_capacity(repeats);
    let mut outcome = None;
    for _ in 0..repeats {
        let start = Instant::now();
        let o = check(spec, ops, DEFAULT_MAX_STEPS);
        times.push(start.elapsed());
        outcome = Some(o);
    }
    times.sort();
    (outcome.expect("one repeat"), times[times.len() / 2], times[0])
}

fn report(name: &str, n: usize, (outcome, median, min): (Outcome, Duration, Duration)) {
    let answer = match outcome {
        Outcome::Linearizable { keys, .. } => format!("linearizable ({keys} keys)"),
        Outcome::Unexplained(u) => format!("no linearization at op {} ({} explained)", u.op, u.explained),
        Outcome::Undecided { steps } => format!("undecided after {steps} steps"),
    };
    println!(
        "{name:<7} {n:>6} ops  median {:>9.3} ms  min {:>9.3} ms  {answer}",
        median.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3
    );
}

fn main() {
    let nums: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| a.parse().ok())
        .collect();
    let repeats = nums.first().copied().unwrap_or(5).max(1);
    let sizes = if nums.len() > 1 {
        nums[1..].to_vec()
    } else {
        vec![1_000, 10_000]
    };
    let register = Register::<u64>::new();
    let keyed = Keyed::<u64, _>::new(Register::<u64>::new());
    for n in sizes {
        let one: Vec<ROp> = history(n, 1, 10, 7).into_iter().map(|(_, op)| op).collect();
        report("ok", n, time(&register, &one, repeats));
        for (name, lost) in [("bad", 10), ("bad-0", 0)] {
            let mut bad = history(n, 1, lost, 7);
            make_bad(&mut bad);
            let bad: Vec<ROp> = bad.into_iter().map(|(_, op)| op).collect();
            report(name, n, time(&register, &bad, repeats));
        }
        let spread: Vec<_> = history(n, 10, 10, 7)
            .into_iter()
            .map(|(key, op)| Op {
                process: op.process,
                call: op.call,
                end: op.end,
                input: (key, op.input),
            })
            .collect();
        report("keyed", n, time(&keyed, &spread, repeats));
    }
}
