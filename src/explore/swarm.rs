//! From a seed to a fault plan, swarm style (TigerBeetle's VOPR, "swarm testing"): the seed
//! first picks which of the space's kinds are on for this run and how hard they hit, then the
//! concrete entries. Rare combinations get their share of seeds instead of being drowned in an
//! average of everything. Every draw comes from the seed's `explore` stream, and every value
//! is a whole millisecond, so the plan renders to a scenario file exactly.

use std::collections::BTreeSet;

use locksim_protocols::{Layout, Role, Scenario};
use locksim_sim::rng::ChaCha8Rng;
use locksim_sim::rng::{stream, uniform};
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{FaultAction, FaultEntry, NodeId, Trigger};

use super::plan::Plan;
use crate::fault_space::{FaultKind, FaultSpace};

fn pick<T: Copy>(rng: &mut ChaCha8Rng, items: &[T]) -> T {
    items[uniform(rng, 0, items.len() as u64 - 1) as usize]
}

/// The plan of `seed`: the scenario's own faults plus up to `max_faults` drawn from `space`.
pub fn plan_for_seed(s: &Scenario, space: &FaultSpace, seed: u64) -> Plan {
    drawn_plan(s, space, seed).0
}

/// [`plan_for_seed`], with the kinds of the entries it drew (not the scenario's own), for
/// explore's breakdown by fault kind: the same draws, so the same plan.
pub fn drawn_plan(s: &Scenario, space: &FaultSpace, seed: u64) -> (Plan, BTreeSet<FaultKind>) {
    let mut drawn = BTreeSet::new();
    let mut rng = stream(seed, "explore");
    let mut plan = Plan::of(s);
    let on = swarm(&mut rng, space);
    let duration_ms = s.duration_ns / NS_PER_MS;
    let layout = s.protocol.layout();
    let count = uniform(&mut rng, 1, u64::from(space.max_faults));
    for _ in 0..count {
        let (kind, intensity) = pick(&mut rng, &on);
        drawn.insert(kind);
        let limits = &space.kinds[&kind];
        let node = pick(&mut rng, &limits.nodes);
        if kind == FaultKind::Drift {
            let ppm = uniform(&mut rng, 1, intensity) as i32;
            let sign = if uniform(&mut rng, 0, 1) == 0 { 1 } else { -1 };
            plan.drifts
                .push((node, (ppm * sign).max(locksim_sim::clock::DRIFT_PPM_MIN)));
            continue;
        }
        let trigger = trigger(&mut rng, &layout, node, duration_ms);
        let magnitude_ms = uniform(&mut rng, 1, intensity);
        let mut action = action(&mut rng, kind, node, intensity, magnitude_ms, layout.len() as u32);
        if limits.bridge
            && let FaultAction::Partition { groups, .. } = &mut action
            && uniform(&mut rng, 0, 1) == 1
        {
            let middles = middles(groups, node);
            if !middles.is_empty() {
                bridge(groups, pick(&mut rng, &middles));
            }
        }
        plan.faults.push(FaultEntry { trigger, action });
    }
    (plan, drawn)
}

/// Swarm: each kind of the space on with probability 1/2 (at least one), each with its own
/// intensity — the share of the kind's maximum this run may use: a quarter, a half or all.
fn swarm(rng: &mut ChaCha8Rng, space: &FaultSpace) -> Vec<(FaultKind, u64)> {
    let enabled: Vec<FaultKind> = space.kinds.keys().copied().collect();
    let mut on: Vec<(FaultKind, u64)> = enabled
        .iter()
        .filter(|_| uniform(rng, 0, 1) == 1)
        .map(|&k| (k, 0))
        .collect();
    if on.is_empty() {
        on.push((pick(rng, &enabled), 0));
    }
    for (kind, intensity) in &mut on {
        let max = space.kinds[kind].max;
        *intensity = (max >> uniform(rng, 0, 2)).max(1);
    }
    on
}

/// The fault of one entry of `kind` striking `node` (of `nodes`), `magnitude_ms` strong, with
/// whatever else it draws (a restart, the other side of a cut, a link, a probability).
fn action(
    rng: &mut ChaCha8Rng,
    kind: FaultKind,
    node: NodeId,
    intensity: u64,
    magnitude_ms: u64,
    nodes: u32,
) -> FaultAction {
    match kind {
        FaultKind::Pause | FaultKind::Suspend => FaultAction::Pause {
            node,
            duration_ns: magnitude_ms * NS_PER_MS,
            suspend: kind == FaultKind::Suspend,
        },
        FaultKind::Crash => FaultAction::Crash {
            node,
            restart_after_ns: Some(uniform(rng, 0, intensity) * NS_PER_MS),
        },
        FaultKind::Partition => FaultAction::Partition {
            groups: cut(rng, node, nodes),
            one_way: uniform(rng, 0, 4) == 0,
            heal_after_ns: Some(magnitude_ms * NS_PER_MS),
        },
        FaultKind::ClockJump => {
            let sign = if uniform(rng, 0, 1) == 0 { 1 } else { -1 };
            FaultAction::ClockJump {
                node,
                by_ns: sign * (magnitude_ms * NS_PER_MS) as i64,
            }
        }
        FaultKind::Delay => {
            let to = pick(rng, &(0..nodes).map(NodeId).filter(|n| *n != node).collect::<Vec<_>>());
            FaultAction::Delay {
                from: node,
                to,
                window_ns: uniform(rng, 1, 2_000) * NS_PER_MS,
                extra_ns: magnitude_ms * NS_PER_MS,
            }
        }
        FaultKind::Loss => FaultAction::Loss {
            from: Some(node),
            to: None,
            ppm: uniform(rng, 1, intensity.min(1_000_000)) as u32,
            window_ns: Some(uniform(rng, 1, 10_000) * NS_PER_MS),
            duplicate: false,
        },
        FaultKind::Failover => FaultAction::Failover { node },
        FaultKind::Drift => unreachable!("drift is a clock rate, handled above"),
    }
}

/// A partition's two sides: `node`, with a random share of the others, cut from the rest.
fn cut(rng: &mut ChaCha8Rng, node: NodeId, nodes: u32) -> Vec<Vec<NodeId>> {
    let mut side = vec![node];
    let mut rest = Vec::new();
    for other in (0..nodes).map(NodeId).filter(|n| *n != node) {
        if uniform(rng, 0, 3) == 0 {
            side.push(other)
        } else {
            rest.push(other)
        }
    }
    if rest.is_empty() {
        rest.push(side.pop().expect("two nodes at least"));
    }
    vec![side, rest]
}

/// The nodes a bridge over `groups` may keep in the middle: any but the struck node whose side
/// keeps another node without it (a cut with an empty side cuts nothing).
pub(super) fn middles(groups: &[Vec<NodeId>], struck: NodeId) -> Vec<NodeId> {
    groups
        .iter()
        .filter(|g| g.len() > 1)
        .flatten()
        .copied()
        .filter(|n| *n != struck)
        .collect()
}

/// Makes the cut a bridge (Jepsen's `bridge` nemesis): `middle` leaves its side, so it hears
/// both while they do not hear each other.
pub(super) fn bridge(groups: &mut [Vec<NodeId>], middle: NodeId) {
    for group in groups {
        group.retain(|n| *n != middle);
    }
}

/// Half the entries fire at a true time, half right after an event of the struck node (or, for
/// a node that records none, of a client) — the VOPR's trick for hitting narrow windows such
/// as "between SETNX and EXPIRE".
fn trigger(rng: &mut ChaCha8Rng, layout: &Layout, node: NodeId, duration_ms: u64) -> Trigger {
    if uniform(rng, 0, 1) == 0 {
        return Trigger::At {
            at_ns: uniform(rng, 0, duration_ms * 3 / 4) * NS_PER_MS,
        };
    }
    let mut watched = node;
    let mut events = layout.nodes()[node.index()].events;
    if events.is_empty() {
        let clients: Vec<NodeId> = layout
            .nodes()
            .iter()
            .enumerate()
            .filter(|(_, n)| n.role == Role::Client)
            .map(|(i, _)| NodeId(i as u32))
            .collect();
        watched = pick(rng, &clients);
        events = layout.nodes()[watched.index()].events;
    }
    Trigger::After {
        node: watched,
        event: pick(rng, events).to_string(),
        nth: uniform(rng, 1, 3) as u32,
    }
}
