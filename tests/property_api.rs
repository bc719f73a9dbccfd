//! The library API for a user's own property tests (README: "Using locksim from your own
//! tests"): `locksim::plans` generates structured fault plans that proptest shrinks, and
//! `locksim::check` runs a scenario under one and judges it.
//!
//! Every runner here has a fixed seed and no failure persistence: the cases are the same on
//! every run and nothing is written into the repository.

use std::sync::LazyLock;

use locksim::proptest::prelude::*;
use locksim::proptest::test_runner::{Config, RngSeed, TestError, TestRunner};
use locksim::protocols::lock::check::{FENCING_ORDER, STALE_WRITE};
use locksim::sim::{FaultAction, Trigger};
use locksim::{FaultKind, FaultSpace, Plan, PlanShape, Role, Scenario};

/// Single Redis, INCR fencing tokens, a strictly fenced resource, and the scenario's own GC
/// pause after the read (Kleppmann's story, with the fix).
const FENCED: &str = r#"
name = "fenced"
description = "INCR tokens and a strict resource"
seed = 1
duration_ms = 30000

[protocol]
kind = "single-redis"
clients = 2
ttl_ms = 5000
work_ms = 500
deadline_check = "once"
fencing_tokens = "incr"

[resource]
fencing = "strict"

[[fault]]
kind = "pause"
node = "client-0"
after = "read_done"
duration_ms = 8000
"#;

/// The known-wrong variant: the lease is checked once, before the work, and the resource
/// checks no token.
const CHECKED_ONCE: &str = r#"
name = "checked-once"
description = "deadline checked once, no fencing"
seed = 1
duration_ms = 30000

[protocol]
kind = "single-redis"
clients = 2
ttl_ms = 5000
work_ms = 500
deadline_check = "once"

[explore]
faults = ["pause", "crash", "partition", "clock_jump"]
max_faults = 3
"#;

fn load(text: &str) -> (Scenario, FaultSpace) {
    locksim::load::parse_with_space("(test)", text).expect("the test scenario loads")
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(6),
        ..Config::default()
    }
}

/// The number of entries `plan` adds to the scenario's own.
fn added(plan: &Plan, scenario: &Scenario) -> usize {
    plan.size() - scenario.faults.entries.len()
}

static FENCED_RUN: LazyLock<(Scenario, FaultSpace)> = LazyLock::new(|| load(FENCED));

// The README's example: a property of a correct configuration, for every generated plan.
proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn fenced_resource_never_accepts_a_lower_token(
        plan in locksim::plans(&PlanShape::of(&FENCED_RUN.0), &FENCED_RUN.1),
    ) {
        let verdicts = locksim::check(&FENCED_RUN.0, &plan, 1)?;
        if let Some(v) = locksim::violation(&verdicts, FENCING_ORDER) {
            prop_assert!(false, "fencing_order violated: {}", v.why);
        }
    }
}

#[test]
fn the_wrong_variant_is_falsified_and_shrinks_to_one_entry() {
    let (scenario, space) = load(CHECKED_ONCE);
    let shape = PlanShape::of(&scenario);
    let mut runner = TestRunner::new(config(64));
    let result = runner.run(&locksim::plans(&shape, &space), |plan| {
        let verdicts = locksim::check(&scenario, &plan, 1)?;
        prop_assert!(locksim::violation(&verdicts, STALE_WRITE).is_none());
        Ok(())
    });
    let minimal = match result {
        Err(TestError::Fail(_, plan)) => plan,
        other => panic!("proptest did not falsify stale_write: {other:?}"),
    };
    eprintln!("minimal plan:\n{}", minimal.to_toml(&shape.names()));
    assert_eq!(added(&minimal, &scenario), 1, "{minimal:?}");
    // The minimal plan is a lone pause of a client: the GC pause the story is about.
    let FaultAction::Pause { node, .. } = &minimal.faults[0].action else {
        panic!("not a pause: {minimal:?}");
    };
    assert_eq!(shape.nodes[node.index()].role, Role::Client);
    // And it replays: the same plan and seed violate the invariant again.
    let verdicts = locksim::check(&scenario, &minimal, 1).expect("the run reaches its end");
    assert!(locksim::violation(&verdicts, STALE_WRITE).is_some());
}

#[test]
fn plans_stay_inside_the_space_and_keep_the_scenarios_own_faults() {
    let (scenario, mut space) = load(FENCED);
    space.kinds.get_mut(&FaultKind::Pause).expect("pauses are on").max = 700;
    let shape = PlanShape::of(&scenario);
    let mut runner = TestRunner::new(config(256));
    runner
        .run(&locksim::plans(&shape, &space), |plan| {
            prop_assert_eq!(&plan.faults[..1], &scenario.faults.entries[..]);
            let extra = added(&plan, &scenario);
            prop_assert!((1..=space.max_faults as usize).contains(&extra));
            for entry in &plan.faults[1..] {
                match &entry.trigger {
                    Trigger::At { at_ns } => prop_assert!(*at_ns <= shape.duration_ms * 3 / 4 * 1_000_000),
                    Trigger::After { node, event, nth } => {
                        prop_assert!(shape.nodes[node.index()].events.contains(event));
                        prop_assert!((1..=3).contains(nth));
                    }
                }
                if let FaultAction::Pause {
                    node,
                    duration_ns,
                    suspend: false,
                } = &entry.action
                {
                    prop_assert!(space.kinds[&FaultKind::Pause].nodes.contains(node));
                    prop_assert!((1_000_000..=700_000_000).contains(duration_ns));
                }
            }
            Ok(())
        })
        .expect("every plan is inside the space");
}

#[test]
fn a_shape_built_by_hand_matches_the_scenarios() {
    use locksim::protocols::lock::obs::{CLIENT_EVENTS, RESOURCE_EVENTS, SERVER_EVENTS};
    let (scenario, _) = load(CHECKED_ONCE);
    let mut by_hand = PlanShape::new(30_000)
        .node("client-0", Role::Client, CLIENT_EVENTS)
        .node("client-1", Role::Client, CLIENT_EVENTS)
        .node("server-0", Role::Server, SERVER_EVENTS)
        .node("resource", Role::Resource, RESOURCE_EVENTS);
    by_hand.base = Plan::of(&scenario);
    assert_eq!(by_hand, PlanShape::of(&scenario));
    assert_eq!(by_hand.find("server-0"), Some(locksim::sim::NodeId(2)));
    assert_eq!(
        FaultSpace::defaults_for(&by_hand),
        FaultSpace::defaults(&*scenario.protocol)
    );
}

/// Issue 12: milliseconds became nanoseconds unchecked, so a shape or space with values near
/// `u64::MAX` wrapped (a debug build panicked; a release one made a plan that spun for minutes
/// in the clock's arithmetic). Every value now saturates.
#[test]
fn extreme_lengths_and_limits_saturate_instead_of_wrapping() {
    let shape = PlanShape::new(u64::MAX)
        .node("client-0", Role::Client, &["acquired"])
        .node("server-0", Role::Server, &[]);
    let mut space = FaultSpace::defaults_for(&shape);
    for limits in space.kinds.values_mut() {
        limits.max = u64::MAX;
    }
    let mut runner = TestRunner::new(config(256));
    runner
        .run(&locksim::plans(&shape, &space), |plan| {
            for entry in &plan.faults {
                if let FaultAction::Pause { duration_ns, .. } = entry.action {
                    prop_assert!(duration_ns % 1_000_000 == 0 || duration_ns == u64::MAX);
                }
                if let FaultAction::ClockJump { by_ns, .. } = entry.action {
                    prop_assert!(by_ns % 1_000_000 == 0 || by_ns.unsigned_abs() == i64::MAX as u64);
                }
            }
            Ok(())
        })
        .expect("every plan is generated");
}

/// A run that stops short has no verdicts: `check` says why instead of handing a property an
/// empty list it would read as "nothing violated".
#[test]
fn a_run_that_stalls_is_an_error_not_an_empty_verdict_list() {
    let (scenario, _) = load(
        "name = \"spin\"\nduration_ms = 1000\n\n[protocol]\nkind = \"single-redis\"\nwork_ms = 0\nthink_ms = 0\n\n\
         [network]\nlatency_min_ms = 0\nlatency_max_ms = 0\n",
    );
    let stop = locksim::check(&scenario, &Plan::of(&scenario), 1).expect_err("the run stalls");
    assert!(matches!(stop, locksim::Stop::Stalled { .. }), "{stop}");
}

/// The partitions of `plan` that leave a node out of both sides (bridges), each checked to keep
/// both sides and to leave out exactly one node, not the struck one (listed first).
fn bridges(plan: &Plan, nodes: usize) -> usize {
    let mut bridges = 0;
    for entry in &plan.faults {
        if let FaultAction::Partition { groups, .. } = &entry.action {
            let covered: usize = groups.iter().map(Vec::len).sum();
            assert!(groups.iter().all(|g| !g.is_empty()), "{groups:?}");
            assert!(covered + 1 >= nodes, "one node in the middle at most: {groups:?}");
            bridges += usize::from(covered < nodes);
        }
    }
    bridges
}

/// `[explore.partition] bridge = true` (Jepsen's bridge nemesis): explore's swarm and the
/// proptest strategy both draw cuts that leave one node hearing both sides — and neither does
/// without it, so a space without the key draws the plans it drew before.
#[test]
fn bridges_are_drawn_only_when_asked() {
    let (scenario, mut space) = load(CHECKED_ONCE);
    let nodes = scenario.protocol.layout().len();
    let shape = PlanShape::of(&scenario);
    let count = |space: &FaultSpace| {
        let swarm: usize = (0..300)
            .map(|seed| bridges(&locksim::explore::swarm::plan_for_seed(&scenario, space, seed), nodes))
            .sum();
        let drawn = std::sync::atomic::AtomicUsize::new(0);
        TestRunner::new(config(300))
            .run(&locksim::plans(&shape, space), |plan| {
                drawn.fetch_add(bridges(&plan, nodes), std::sync::atomic::Ordering::Relaxed);
                Ok(())
            })
            .expect("plans are drawn");
        (swarm, drawn.into_inner())
    };
    assert_eq!(count(&space), (0, 0));
    space
        .kinds
        .get_mut(&FaultKind::Partition)
        .expect("partitions are on")
        .bridge = true;
    let (swarm, strategy) = count(&space);
    assert!(
        swarm > 0 && strategy > 0,
        "bridges drawn: swarm {swarm}, strategy {strategy}"
    );
}
