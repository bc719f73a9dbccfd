//! proptest strategies for fault plans: the library side of exploration, for a user's own
//! property tests.
//!
//! [`plans`] generates *structured* plans — a list of fault entries drawn from a
//! [`FaultSpace`]'s kinds, nodes and limits, and clock rates — not seeds. So proptest's own
//! shrinking minimises a failing plan the way a person would: fewer entries, an earlier kind
//! (in [`FaultKind`] order: a pause before a crash before a partition...), the first node,
//! smaller magnitudes (shorter pauses, downtimes, cuts and delays, smaller jumps, drifts and
//! loss), a time trigger before an `after` trigger, earlier times, earlier events in the
//! node's list and the first occurrence.
//!
//! A strategy needs only a [`PlanShape`]: the nodes with their roles, the events each records
//! (what an `after` may name), the run's length and the entries every plan starts with. A
//! scenario gives one ([`PlanShape::of`]); a protocol defined outside the crates builds its
//! own ([`PlanShape::new`] and [`PlanShape::node`]), and [`FaultSpace::defaults_for`] gives
//! its default fault space.
//!
//! ```no_run
//! use locksim::proptest::prelude::*;
//! use locksim::PlanShape;
//! use locksim::protocols::lock::check::FENCING_ORDER;
//!
//! let (scenario, space) = locksim::load::parse_with_space("s.toml", "...").unwrap();
//! let shape = PlanShape::of(&scenario);
//! proptest!(|(plan in locksim::plans(&shape, &space))| {
//!     let verdicts = locksim::check(&scenario, &plan, 1)?;
//!     prop_assert!(locksim::violation(&verdicts, FENCING_ORDER).is_none());
//! });
//! ```

use std::ops::RangeInclusive;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::strategy::{BoxedStrategy, Just, Union};

use locksim_protocols::Role;
use locksim_sim::clock::{DRIFT_PPM_MAX, DRIFT_PPM_MIN};
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{FaultAction, FaultEntry, NodeId, Trigger};

use super::plan::Plan;
use super::shape::{PlanShape, ShapeNode};
use super::swarm;
use crate::fault_space::{FaultKind, FaultSpace};

/// One generated entry: a fault, or a node's clock rate for the whole run.
#[derive(Clone, Debug)]
enum Entry {
    Fault(FaultEntry),
    Drift(NodeId, i32),
}

/// Plans over `shape` within `space`: the shape's base entries followed by 1 to
/// `space.max_faults` entries (none when `max_faults` is 0), each of a kind of the space, on
/// one of that kind's nodes, at most as hard as its limit. Half the entries fire at a true time
/// in the run's first three quarters, half right after the `nth` (1 to 3) occurrence of an event
/// the struck node records (of a client's, if it records none). Every value is a whole
/// millisecond, so a plan renders to a scenario file exactly.
///
/// Panics if the space names a node the shape does not have, or leaves nothing to generate.
pub fn plans(shape: &PlanShape, space: &FaultSpace) -> impl Strategy<Value = Plan> + use<> {
    let base = shape.base.clone();
    let extra = if space.max_faults == 0 {
        Just(Vec::new()).boxed()
    } else {
        vec(entries(shape, space), 1..=space.max_faults as usize).boxed()
    };
    extra.prop_map(move |entries| {
        let mut plan = base.clone();
        for entry in entries {
            match entry {
                Entry::Fault(f) => plan.faults.push(f),
                Entry::Drift(node, ppm) => plan.drifts.push((node, ppm)),
            }
        }
        plan
    })
}

/// One entry of any kind of the space, earlier kinds first.
fn entries(shape: &PlanShape, space: &FaultSpace) -> BoxedStrategy<Entry> {
    let mut kinds = Vec::new();
    for (&kind, limits) in &space.kinds {
        for node in &limits.nodes {
            assert!(
                node.index() < shape.nodes.len(),
                "the fault space's {kind} names node {} but the plan shape has {} nodes",
                node.0,
                shape.nodes.len()
            );
        }
        let per_node: Vec<BoxedStrategy<Entry>> = limits
            .nodes
            .iter()
            .filter_map(|&node| entry(shape, kind, node, limits.max, limits.bridge))
            .collect();
        if !per_node.is_empty() {
            kinds.push(Union::new(per_node).boxed());
        }
    }
    assert!(
        !kinds.is_empty(),
        "the fault space has no kind with a node it can strike"
    );
    Union::new(kinds).boxed()
}

/// `ms` in nanoseconds, saturating: a shape or space with wrapped values (a length near
/// `u64::MAX`) once made a plan whose wrapped nanoseconds spun for minutes in the clock's
/// arithmetic; a saturated one is refused or ends at once.
fn ns(ms: u64) -> u64 {
    ms.saturating_mul(NS_PER_MS)
}

/// `magnitude`, negated when `negative`, saturating at `i64::MAX` as [`ns`] does.
fn signed(negative: bool, magnitude: u64) -> i64 {
    let m = i64::try_from(magnitude).unwrap_or(i64::MAX);
    if negative { -m } else { m }
}

/// Entries of `kind` striking `node`, at most `max` hard; `None` where the kind cannot strike
/// it (a partition or a delay needs a second node).
fn entry(shape: &PlanShape, kind: FaultKind, node: NodeId, max: u64, bridge: bool) -> Option<BoxedStrategy<Entry>> {
    let trigger = trigger(shape, node);
    let magnitude = 1..=max.max(1);
    let others: Vec<NodeId> = (0..shape.nodes.len() as u32)
        .map(NodeId)
        .filter(|n| *n != node)
        .collect();
    let fault = |trigger: Trigger, action: FaultAction| Entry::Fault(FaultEntry { trigger, action });
    Some(match kind {
        FaultKind::Pause | FaultKind::Suspend => (trigger, magnitude)
            .prop_map(move |(t, ms)| {
                let action = FaultAction::Pause {
                    node,
                    duration_ns: ns(ms),
                    suspend: kind == FaultKind::Suspend,
                };
                fault(t, action)
            })
            .boxed(),
        FaultKind::Crash => (trigger, 0..=max)
            .prop_map(move |(t, ms)| {
                let action = FaultAction::Crash {
                    node,
                    restart_after_ns: Some(ns(ms)),
                };
                fault(t, action)
            })
            .boxed(),
        FaultKind::Partition if others.is_empty() => return None,
        FaultKind::Partition => partitions(trigger, node, others, magnitude, bridge),
        FaultKind::ClockJump => (trigger, any::<bool>(), magnitude)
            .prop_map(move |(t, back, ms)| {
                let action = FaultAction::ClockJump {
                    node,
                    by_ns: signed(back, ns(ms)),
                };
                fault(t, action)
            })
            .boxed(),
        FaultKind::Drift => (any::<bool>(), magnitude)
            .prop_map(move |(slow, ppm)| {
                let ppm = signed(slow, ppm).clamp(i64::from(DRIFT_PPM_MIN), i64::from(DRIFT_PPM_MAX));
                Entry::Drift(node, ppm as i32)
            })
            .boxed(),
        FaultKind::Delay if others.is_empty() => return None,
        FaultKind::Delay => delays(trigger, node, others, magnitude),
        FaultKind::Loss => (trigger, 1..=max.clamp(1, 1_000_000), 1..=10_000u64)
            .prop_map(move |(t, ppm, window_ms)| {
                let action = FaultAction::Loss {
                    from: Some(node),
                    to: None,
                    ppm: ppm as u32,
                    window_ns: Some(ns(window_ms)),
                    duplicate: false,
                };
                fault(t, action)
            })
            .boxed(),
        FaultKind::Failover => trigger
            .prop_map(move |t| fault(t, FaultAction::Failover { node }))
            .boxed(),
    })
}

/// Partitions cutting `node`, with about a quarter of the `others`, from the rest.
fn partitions(
    trigger: BoxedStrategy<Trigger>,
    node: NodeId,
    others: Vec<NodeId>,
    magnitude: RangeInclusive<u64>,
    bridge: bool,
) -> BoxedStrategy<Entry> {
    let joins = vec(proptest::bool::weighted(0.25), others.len());
    // Without bridges no value is drawn for one, so the plans are those drawn before bridges.
    let middle = match bridge {
        true => (any::<bool>(), any::<Index>())
            .prop_map(|(on, i)| on.then_some(i))
            .boxed(),
        false => Just(None).boxed(),
    };
    (trigger, joins, proptest::bool::weighted(0.2), magnitude, middle)
        .prop_map(move |(t, joins, one_way, ms, middle)| {
            let mut side = vec![node];
            let mut rest = Vec::new();
            for (&other, join) in others.iter().zip(joins) {
                if join { side.push(other) } else { rest.push(other) }
            }
            if rest.is_empty() {
                rest.push(side.pop().expect("two nodes at least"));
            }
            let mut groups = vec![side, rest];
            let middles = swarm::middles(&groups, node);
            if let Some(middle) = middle
                && !middles.is_empty()
            {
                swarm::bridge(&mut groups, *middle.get(&middles));
            }
            let action = FaultAction::Partition {
                groups,
                one_way,
                heal_after_ns: Some(ns(ms)),
            };
            Entry::Fault(FaultEntry { trigger: t, action })
        })
        .boxed()
}

/// Delays of what `node` sends to one of the `others`.
fn delays(
    trigger: BoxedStrategy<Trigger>,
    node: NodeId,
    others: Vec<NodeId>,
    magnitude: RangeInclusive<u64>,
) -> BoxedStrategy<Entry> {
    (trigger, select(others), 1..=2_000u64, magnitude)
        .prop_map(move |(t, to, window_ms, extra_ms)| {
            let action = FaultAction::Delay {
                from: node,
                to,
                window_ns: ns(window_ms),
                extra_ns: ns(extra_ms),
            };
            Entry::Fault(FaultEntry { trigger: t, action })
        })
        .boxed()
}

/// When an entry striking `node` fires: at a true time in the run's first three quarters, or
/// right after the 1st to 3rd occurrence of an event `node` records (of a client's, if it
/// records none) — the swarm generator's trick for narrow windows such as "between the read
/// and the write".
fn trigger(shape: &PlanShape, node: NodeId) -> BoxedStrategy<Trigger> {
    // In u128: a length near `u64::MAX` must not overflow on the way to its three quarters.
    let three_quarters_ms = (u128::from(shape.duration_ms) * 3 / 4) as u64;
    let at = (0..=three_quarters_ms).prop_map(|ms| Trigger::At { at_ns: ns(ms) });
    let own = &shape.nodes[node.index()];
    let watched: Vec<(NodeId, &ShapeNode)> = if own.events.is_empty() {
        (0..shape.nodes.len() as u32)
            .map(NodeId)
            .map(|n| (n, &shape.nodes[n.index()]))
            .filter(|(_, n)| n.role == Role::Client && !n.events.is_empty())
            .collect()
    } else {
        vec![(node, own)]
    };
    if watched.is_empty() {
        return at.boxed();
    }
    let after = Union::new(watched.into_iter().map(|(watched, n)| {
        (select(n.events.clone()), 1..=3u32)
            .prop_map(move |(event, nth)| Trigger::After {
                node: watched,
                event,
                nth,
            })
            .boxed()
    }));
    Union::new([at.boxed(), after.boxed()]).boxed()
}
