//! Shrinking a failing plan to a minimal one while the same invariant stays violated:
//! delta debugging over the plan — drop entries, drop clock rates, fewer clients and servers,
//! then smaller magnitudes (shorter pauses, downtimes, cuts and delays, smaller jumps and
//! drifts), earlier times and first occurrences. Each candidate is rendered to a scenario file
//! and loaded like any other, so what shrinking returns is exactly a file `locksim run`
//! replays, and a candidate the loader rejects is simply not taken.

use locksim_protocols::{Role, Scenario, run};
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{FaultAction, FaultEntry, Invariant, Names, NodeId, Recording, Status, Trigger};

use super::plan::Plan;
use super::scenario_toml::{Overrides, scenario_text};
use crate::load::parse_scenario;

/// A shrinking candidate: the plan and what it changes in the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub plan: Plan,
    pub overrides: Overrides,
}

/// The smallest plan found, and how much searching it took.
#[derive(Clone, Debug)]
pub struct Shrunk {
    pub candidate: Candidate,
    pub runs: u32,
}

/// What shrinking needs to know about the finding.
pub struct Finding<'a> {
    pub base: &'a Scenario,
    pub source: &'a str,
    pub names: &'a Names,
    pub seed: u64,
    pub invariant: Invariant,
}

impl Finding<'_> {
    /// The candidate as scenario text.
    pub fn text(&self, c: &Candidate, header: &str, name: &str) -> String {
        scenario_text(
            header,
            name,
            self.base,
            self.source,
            self.names,
            &c.plan,
            &c.overrides,
            self.seed,
            &[self.invariant],
        )
    }

    /// Whether the candidate still violates the invariant.
    pub fn violates(&self, c: &Candidate) -> bool {
        let Ok(s) = parse_scenario("(shrink candidate)", &self.text(c, "", &self.base.name)) else {
            return false;
        };
        run(&s, self.seed, Recording::Facts)
            .verdicts
            .iter()
            .any(|v| v.invariant == self.invariant && matches!(v.status, Status::Violated(_)))
    }
}

impl Finding<'_> {
    /// The candidate without the plan entries that never fire in its run. They change nothing
    /// in it, and `locksim run` fails a file whose faults do not all fire; shrinking drops
    /// them anyway unless its budget ran out first.
    pub fn without_unfired(&self, c: Candidate) -> Candidate {
        let Ok(s) = parse_scenario("(shrunk)", &self.text(&c, "", &self.base.name)) else {
            return c;
        };
        let unfired = run(&s, self.seed, Recording::Facts).unfired_faults;
        if unfired.is_empty() {
            return c;
        }
        let mut fewer = c.clone();
        fewer.plan.faults = (c.plan.faults.iter().enumerate())
            .filter(|(i, _)| !unfired.iter().any(|u| u.fault as usize == *i))
            .map(|(_, e)| e.clone())
            .collect();
        if self.violates(&fewer) { fewer } else { c }
    }
}

fn count(base: &Scenario, role: Role) -> u64 {
    base.protocol.layout().nodes().iter().filter(|n| n.role == role).count() as u64
}

/// Smaller neighbours of `c`, simplest changes first.
fn candidates(c: &Candidate, base: &Scenario) -> Vec<Candidate> {
    let mut out = Vec::new();
    let with_plan = |plan: Plan| Candidate {
        plan,
        overrides: c.overrides.clone(),
    };
    for i in 0..c.plan.faults.len() {
        let mut plan = c.plan.clone();
        plan.faults.remove(i);
        out.push(with_plan(plan));
    }
    for i in 0..c.plan.drifts.len() {
        let mut plan = c.plan.clone();
        plan.drifts.remove(i);
        out.push(with_plan(plan));
    }
    let clients = c.overrides.clients.unwrap_or(count(base, Role::Client));
    if clients > 1 {
        let mut next = c.clone();
        next.overrides.clients = Some(clients - 1);
        out.push(next);
    }
    let servers = c.overrides.servers.unwrap_or(count(base, Role::Server));
    for fewer in [2, 1] {
        if servers > fewer {
            let mut next = c.clone();
            next.overrides.servers = Some(servers - fewer);
            out.push(next);
        }
    }
    for i in 0..c.plan.faults.len() {
        for simpler in simplify(&c.plan.faults[i]) {
            let mut plan = c.plan.clone();
            plan.faults[i] = simpler;
            out.push(with_plan(plan));
        }
    }
    for i in 0..c.plan.drifts.len() {
        let (node, ppm) = c.plan.drifts[i];
        for smaller_ppm in smaller(u64::from(ppm.unsigned_abs()), [1_000, 100]) {
            if smaller_ppm > 0 {
                let mut plan = c.plan.clone();
                plan.drifts[i] = (node, ppm.signum() * smaller_ppm as i32);
                out.push(with_plan(plan));
            }
        }
    }
    out
}

/// Values below `v`, simplest first: half of it, three quarters of it (for when halving
/// overshoots), then `v` rounded down to a multiple of each of `units`, coarsest first (9631 ms
/// -> 9000 ms, 9600 ms). No repeats, never `v` itself.
fn smaller(v: u64, units: [u64; 2]) -> Vec<u64> {
    let mut out = Vec::new();
    for c in [v / 2, v - v / 4, v / units[0] * units[0], v / units[1] * units[1]] {
        if c < v && !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Smaller durations or times than `ns`, in whole milliseconds of at least `min_ms`: seconds
/// and tenths of seconds are the round values.
fn shorter(ns: u64, min_ms: u64) -> Vec<u64> {
    smaller(ns / NS_PER_MS, [1_000, 100])
        .into_iter()
        .filter(|ms| *ms >= min_ms)
        .map(|ms| ms * NS_PER_MS)
        .collect()
}

/// Simpler versions of one entry: an earlier time (by half, by a quarter, rounded down), the
/// first occurrence, then smaller magnitudes (half, three quarters, rounded down).
fn simplify(e: &FaultEntry) -> Vec<FaultEntry> {
    let earlier = earlier(&e.trigger).into_iter().map(|trigger| FaultEntry {
        trigger,
        action: e.action.clone(),
    });
    let smaller = smaller_actions(&e.action).into_iter().map(|action| FaultEntry {
        trigger: e.trigger.clone(),
        action,
    });
    earlier.chain(smaller).collect()
}

/// Earlier times for a timed trigger; the first occurrence for a triggering event's later one.
fn earlier(trigger: &Trigger) -> Vec<Trigger> {
    match trigger {
        Trigger::At { at_ns } => shorter(*at_ns, 0)
            .into_iter()
            .map(|at_ns| Trigger::At { at_ns })
            .collect(),
        Trigger::After { node, event, nth } if *nth > 1 => vec![Trigger::After {
            node: *node,
            event: event.clone(),
            nth: 1,
        }],
        Trigger::After { .. } => Vec::new(),
    }
}

/// Smaller magnitudes of a fault: shorter pauses, downtimes, cuts and delays, smaller jumps,
/// fewer nodes cut off, a lower loss probability.
fn smaller_actions(action: &FaultAction) -> Vec<FaultAction> {
    match action {
        FaultAction::Pause {
            node,
            duration_ns,
            suspend,
        } => shorter(*duration_ns, 1)
            .into_iter()
            .map(|duration_ns| FaultAction::Pause {
                node: *node,
                duration_ns,
                suspend: *suspend,
            })
            .collect(),
        FaultAction::Crash {
            node,
            restart_after_ns: Some(r),
        } => shorter(*r, 0)
            .into_iter()
            .map(|r| FaultAction::Crash {
                node: *node,
                restart_after_ns: Some(r),
            })
            .collect(),
        FaultAction::Partition {
            groups,
            one_way,
            heal_after_ns,
        } => smaller_partitions(groups, *one_way, *heal_after_ns),
        FaultAction::ClockJump { node, by_ns } => {
            let sign = by_ns.signum();
            smaller((by_ns.unsigned_abs()) / NS_PER_MS, [1_000, 100])
                .into_iter()
                .filter(|ms| *ms > 0)
                .map(|ms| FaultAction::ClockJump {
                    node: *node,
                    by_ns: sign * (ms * NS_PER_MS) as i64,
                })
                .collect()
        }
        FaultAction::Delay {
            from,
            to,
            window_ns,
            extra_ns,
        } => smaller_delays(*from, *to, *window_ns, *extra_ns),
        FaultAction::Loss {
            from,
            to,
            ppm,
            window_ns,
            duplicate,
        } => smaller_losses(*from, *to, *ppm, *window_ns, *duplicate),
        _ => Vec::new(),
    }
}

/// A partition that heals sooner, then one that cuts off one node fewer in each group.
fn smaller_partitions(groups: &[Vec<NodeId>], one_way: bool, heal_after_ns: Option<u64>) -> Vec<FaultAction> {
    let partition = |groups: Vec<Vec<NodeId>>, heal_after_ns: Option<u64>| FaultAction::Partition {
        groups,
        one_way,
        heal_after_ns,
    };
    let sooner = heal_after_ns
        .map_or(Vec::new(), |h| shorter(h, 1))
        .into_iter()
        .map(|h| partition(groups.to_vec(), Some(h)));
    let fewer = (0..groups.len()).filter(|g| groups[*g].len() > 1).map(|g| {
        let mut fewer = groups.to_vec();
        fewer[g].pop();
        partition(fewer, heal_after_ns)
    });
    sooner.chain(fewer).collect()
}

/// A delay that holds messages back less long, then one whose window is shorter.
fn smaller_delays(from: NodeId, to: NodeId, window_ns: u64, extra_ns: u64) -> Vec<FaultAction> {
    let delay = |window_ns: u64, extra_ns: u64| FaultAction::Delay {
        from,
        to,
        window_ns,
        extra_ns,
    };
    let less_extra = shorter(extra_ns, 1).into_iter().map(|x| delay(window_ns, x));
    let shorter_window = shorter(window_ns, 1).into_iter().map(|w| delay(w, extra_ns));
    less_extra.chain(shorter_window).collect()
}

/// Loss over a shorter window, then with a lower probability, rounded to tenths and
/// hundredths.
fn smaller_losses(
    from: Option<NodeId>,
    to: Option<NodeId>,
    ppm: u32,
    window_ns: Option<u64>,
    duplicate: bool,
) -> Vec<FaultAction> {
    let loss = |ppm: u32, window_ns: Option<u64>| FaultAction::Loss {
        from,
        to,
        ppm,
        window_ns,
        duplicate,
    };
    let shorter_window = window_ns
        .map_or(Vec::new(), |w| shorter(w, 1))
        .into_iter()
        .map(|w| loss(ppm, Some(w)));
    let less_likely = smaller(u64::from(ppm), [100_000, 10_000])
        .into_iter()
        .filter(|p| *p > 0)
        .map(|p| loss(p as u32, window_ns));
    shorter_window.chain(less_likely).collect()
}

/// Shrinks `start` (which violates the finding's invariant) within `budget` runs.
pub fn shrink(finding: &Finding<'_>, start: Candidate, budget: u32) -> Shrunk {
    shrink_while(finding.base, start, budget, |c| finding.violates(c))
}

/// Shrinks `start` (for which `keeps` holds) over `base`'s topology within `budget` runs,
/// taking a smaller candidate whenever `keeps` still holds for it — for a finding that is more
/// than one violation, such as a bug's violation its fixed twin does not share.
pub fn shrink_while(base: &Scenario, start: Candidate, budget: u32, keeps: impl Fn(&Candidate) -> bool) -> Shrunk {
    let mut best = start;
    let mut runs = 0;
    'improve: loop {
        for candidate in candidates(&best, base) {
            if runs >= budget {
                break 'improve;
            }
            runs += 1;
            if keeps(&candidate) {
                best = candidate;
                continue 'improve;
            }
        }
        break;
    }
    Shrunk { candidate: best, runs }
}

#[cfg(test)]
mod tests;
