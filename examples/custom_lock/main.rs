//! A lock protocol defined outside locksim's crates, on their public APIs only, that plugs in
//! through exactly the path the built-in models use.
//!
//! ```text
//! cargo run --example custom_lock
//! ```
//!
//! The protocol (`kind = "token-lease"`): a lease lock whose fencing tokens come from a
//! separate counter service. Each client takes the lock on a Redis (`SET lock <lease> NX PX
//! ttl`), *then* asks the counter for the next token, reads the protected counter, works,
//! checks its lease deadline and writes with its token; it releases by compare-and-delete.
//!
//! - `client-0`, `client-1`: the example's own client ([`client`]).
//! - `server-0`: locksim's Redis server model, run under the example's message type
//!   ([`world`]).
//! - `counter`: the example's own counter service ([`world`]); its knob `counter`: whether the
//!   count survives a crash (`durable`) or not (`volatile`).
//! - `resource`: locksim's fenced resource, strict.
//!
//! The model is a model like the built-ins ([`model`]): a `ProtocolSpec` (kind, knobs, the lock
//! invariants, its protections) and a configuration implementing `Protocol`, whose layout is
//! declared once and whose run goes through `locksim::protocols::runner::run_world` to
//! `LockJudge`. Its scenarios are TOML (`durable.toml`, `volatile.toml` beside this file),
//! loaded by locksim's loader against `Registry::builtin().with(&SPEC)`, so the kind, the
//! knobs, `[[fault]]` node names and `after` events are checked as the catalogue's are.
//! Exploration draws plans with `locksim::plans` over the scenario's `PlanShape` and fault
//! space and runs each with `locksim::check`. What a scenario's `[expect]` promises must hold in
//! every plan with the durable counter; with the volatile counter proptest must falsify token
//! monotonicity and shrink the plan to one crash of the counter, whose TOML loads back through
//! the same loader and replays the violation.

mod client;
mod model;
mod world;

use std::cell::RefCell;

use locksim::load::{parse_scenario_in, parse_with_space_in};
use locksim::proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use locksim::protocols::{Expected, Registry};
use locksim::sim::{FaultAction, FaultEntry};
use locksim::{FaultSpace, Invariant, Plan, PlanShape, Scenario, Status, Verdict};

const DURABLE: &str = include_str!("durable.toml");
const VOLATILE: &str = include_str!("volatile.toml");

/// How many plans each exploration runs.
const CASES: u32 = 256;

/// The built-in models and this example's: what its scenarios' `kind` resolves against.
fn registry() -> Registry {
    Registry::builtin().with(&model::SPEC)
}

/// A scenario of the example with its fault space, or the loader's error.
fn load(file: &str, text: &str) -> (Scenario, FaultSpace) {
    parse_with_space_in(&registry(), file, text).unwrap_or_else(|e| fail(&e.to_string()))
}

/// The invariants `s` expects held: what no explored plan may break.
fn promised(s: &Scenario) -> Vec<Invariant> {
    s.expect
        .iter()
        .filter(|(_, expected)| *expected == Expected::Held)
        .map(|&(invariant, _)| invariant)
        .collect()
}

/// The first promise `verdicts` break, said as proptest reports it.
fn broken_promise(verdicts: &[Verdict], promised: &[Invariant]) -> Option<String> {
    promised.iter().find_map(|&invariant| {
        locksim::violation(verdicts, invariant).map(|v| format!("{invariant} violated: {}", v.why))
    })
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: CASES,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(2016),
        ..Config::default()
    })
}

/// Ends the example with a failure: a result it asserts did not come.
fn fail(why: &str) -> ! {
    eprintln!("UNEXPECTED: {why}");
    std::process::exit(1)
}

/// Explores `s`, whose promises must hold in every plan, and prints how often each invariant
/// held and was violated, in the order the model judges them.
fn explore_durable(s: &Scenario, space: &FaultSpace) {
    let promise = promised(s);
    let judged = s.protocol.spec().invariants;
    let tally = RefCell::new(vec![(0u32, 0u32); judged.len()]);
    let outcome = runner().run(&locksim::plans(&PlanShape::of(s), space), |plan| {
        let verdicts = locksim::check(s, &plan, s.seed)?;
        for v in &verdicts {
            let Some(i) = judged.iter().position(|&j| j == v.invariant) else {
                continue;
            };
            let (held, violated) = &mut tally.borrow_mut()[i];
            match v.status {
                Status::Held(_) => *held += 1,
                Status::Violated(_) => *violated += 1,
                Status::NotApplicable(_) => {}
            }
        }
        broken_promise(&verdicts, &promise).map_or(Ok(()), |why| Err(TestCaseError::fail(why)))
    });
    println!("durable counter: explored {CASES} plans");
    for (invariant, (held, violated)) in judged.iter().zip(tally.into_inner()) {
        let mark = if promise.contains(invariant) {
            "  (promised)"
        } else {
            ""
        };
        println!(
            "  {:<17} held in {held:>3}, violated in {violated:>3}{mark}",
            invariant.id()
        );
    }
    if let Err(e) = outcome {
        fail(&format!("a promise broke: {e}"));
    }
    let ids: Vec<&str> = promise.iter().map(|i| i.id()).collect();
    println!("  invariants held: {}, violated by no plan", ids.join(" and "));
    println!("  (the others are not the tokens' to keep: a server clock that jumps or runs fast, or a");
    println!("  VM suspend, breaks mutual exclusion; fencing does not stop a paused holder's write");
    println!("  landing before the next holder's)\n");
}

/// Explores `s` (from `text`), which must break a promise; the shrunk plan must be one crash
/// of the counter, and must replay the same violation when loaded back as scenario text.
fn explore_volatile(s: &Scenario, space: &FaultSpace, text: &str) {
    let promise = promised(s);
    let first_size = RefCell::new(None);
    let outcome = runner().run(&locksim::plans(&PlanShape::of(s), space), |plan| {
        let broken = broken_promise(&locksim::check(s, &plan, s.seed)?, &promise);
        if broken.is_some() && first_size.borrow().is_none() {
            *first_size.borrow_mut() = Some(plan.size());
        }
        broken.map_or(Ok(()), |why| Err(TestCaseError::fail(why)))
    });
    let (why, minimal) = match outcome {
        Err(TestError::Fail(why, minimal)) => (why.to_string(), minimal),
        Err(e) => fail(&e.to_string()),
        Ok(()) => fail(&format!("the volatile counter survived {CASES} plans")),
    };
    println!("volatile counter (forgets its count in a crash): counterexample found");
    println!("  {why}");
    let entries = |n: usize| {
        if n == 1 {
            "1 entry".to_string()
        } else {
            format!("{n} entries")
        }
    };
    println!(
        "  minimal plan ({}; the first failing plan had {}):",
        entries(minimal.size()),
        entries(first_size.into_inner().unwrap_or(0))
    );
    let plan_toml = minimal.to_toml(&s.names());
    for line in plan_toml.lines() {
        println!("    {line}");
    }
    if !crashes_only_the_counter(s, &minimal) {
        fail("the minimal plan is not one crash of the counter");
    }
    // The counterexample as a scenario file: the volatile scenario with the plan's tables.
    let replay_text = format!("{text}\n{plan_toml}");
    let replay = parse_scenario_in(&registry(), "volatile.toml + minimal plan", &replay_text)
        .unwrap_or_else(|e| fail(&format!("the counterexample does not load: {e}")));
    let verdicts = locksim::check(&replay, &Plan::of(&replay), replay.seed)
        .unwrap_or_else(|stop| fail(&format!("the counterexample stopped short: {stop}")));
    let replayed = broken_promise(&verdicts, &promise);
    if replayed.as_deref() != Some(why.as_str()) {
        fail(&format!("the counterexample, loaded back, gave {replayed:?}"));
    }
    println!("  loaded back as scenario text and replayed: the same violation");
}

/// Whether `plan` is exactly one crash of the node `counter` (and sets no clock rate).
fn crashes_only_the_counter(s: &Scenario, plan: &Plan) -> bool {
    let counter = s.protocol.layout().find("counter");
    plan.drifts.is_empty()
        && matches!(
            plan.faults.as_slice(),
            [FaultEntry { action: FaultAction::Crash { node, .. }, .. }] if Some(*node) == counter
        )
}

fn main() {
    let (durable, space) = load("examples/custom_lock/durable.toml", DURABLE);
    let (volatile, volatile_space) = load("examples/custom_lock/volatile.toml", VOLATILE);
    let kinds: Vec<&str> = space.kinds.keys().map(|k| k.name()).collect();
    println!(
        "custom lock \"{}\": SET NX PX on locksim's Redis, tokens from a counter service of its",
        durable.protocol.kind()
    );
    println!(
        "own, locksim's strictly fenced resource; plans of up to {} faults",
        space.max_faults
    );
    println!("from {}\n", kinds.join(", "));
    explore_durable(&durable, &space);
    explore_volatile(&volatile, &volatile_space, VOLATILE);
}
