//! Shrinking a failing plan to a minimal one while the same invariant stays violated:
//! delta debugging over the plan — drop entries, drop clock rates, fewer clients and servers,
//! then smaller magnitudes (shorter pauses, downtimes, cuts and delays, smaller jumps and
//! drifts), earlier times and first occurrences. Each candidate is rendered to a scenario file
//! and loaded like any other, so what shrinking returns is exactly a file `locksim run`
//! replays, and a candidate the loader rejects is simply not taken.

use locksim_protocols::{Role, Scenario, run};
use locksim_sim::{FaultAction, Invariant, Level, Names, Status, Trigger};

use super::plan::Plan;
use super::render::{Overrides, scenario_text};
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
    fn fails(&self, c: &Candidate) -> bool {
        let Ok(s) = parse_scenario("(shrink candidate)", &self.text(c, "", &self.base.name)) else {
            return false;
        };
        run(&s, self.seed, Level::Facts)
            .verdicts
            .iter()
            .any(|v| v.invariant == self.invariant && matches!(v.status, Status::Violated(_)))
    }
}

fn count(base: &Scenario, role: Role) -> u64 {
    base.protocol.topology().iter().filter(|(_, r)| *r == role).count() as u64
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
        if ppm.abs() > 1 {
            let mut plan = c.plan.clone();
            plan.drifts[i] = (node, ppm / 2);
            out.push(with_plan(plan));
        }
    }
    out
}

const MS: u64 = 1_000_000;

/// Half of a duration in whole milliseconds, if that is smaller.
fn half(ns: u64) -> Option<u64> {
    let ms = ns / MS;
    (ms > 0).then_some(ms / 2 * MS)
}

/// Simpler versions of one entry: an earlier time, the first occurrence, half the magnitude.
fn simplify(e: &locksim_sim::FaultEntry) -> Vec<locksim_sim::FaultEntry> {
    let mut out = Vec::new();
    let mut with = |trigger: Trigger, action: FaultAction| out.push(locksim_sim::FaultEntry { trigger, action });
    match &e.trigger {
        Trigger::At { at_ns } => {
            if let Some(at_ns) = half(*at_ns) {
                with(Trigger::At { at_ns }, e.action.clone());
            }
        }
        Trigger::After { node, event, nth } if *nth > 1 => with(
            Trigger::After {
                node: *node,
                event: event.clone(),
                nth: 1,
            },
            e.action.clone(),
        ),
        Trigger::After { .. } => {}
    }
    let t = || e.trigger.clone();
    match &e.action {
        FaultAction::Pause {
            node,
            duration_ns,
            suspend,
        } => {
            if let Some(d) = half(*duration_ns).filter(|d| *d > 0) {
                with(
                    t(),
                    FaultAction::Pause {
                        node: *node,
                        duration_ns: d,
                        suspend: *suspend,
                    },
                );
            }
        }
        FaultAction::Crash {
            node,
            restart_after_ns: Some(r),
        } => {
            if let Some(r) = half(*r) {
                with(
                    t(),
                    FaultAction::Crash {
                        node: *node,
                        restart_after_ns: Some(r),
                    },
                );
            }
        }
        FaultAction::Partition {
            groups,
            one_way,
            heal_after_ns,
        } => {
            if let Some(h) = heal_after_ns.and_then(half).filter(|h| *h > 0) {
                with(
                    t(),
                    FaultAction::Partition {
                        groups: groups.clone(),
                        one_way: *one_way,
                        heal_after_ns: Some(h),
                    },
                );
            }
            for (g, group) in groups.iter().enumerate() {
                if group.len() > 1 {
                    let mut fewer = groups.clone();
                    fewer[g].pop();
                    with(
                        t(),
                        FaultAction::Partition {
                            groups: fewer,
                            one_way: *one_way,
                            heal_after_ns: *heal_after_ns,
                        },
                    );
                }
            }
        }
        FaultAction::ClockJump { node, by_ns } => {
            let ms = by_ns / MS as i64;
            if ms.abs() > 1 {
                with(
                    t(),
                    FaultAction::ClockJump {
                        node: *node,
                        by_ns: ms / 2 * MS as i64,
                    },
                );
            }
        }
        FaultAction::Delay {
            from,
            to,
            window_ns,
            extra_ns,
        } => {
            if let Some(x) = half(*extra_ns).filter(|x| *x > 0) {
                with(
                    t(),
                    FaultAction::Delay {
                        from: *from,
                        to: *to,
                        window_ns: *window_ns,
                        extra_ns: x,
                    },
                );
            }
            if let Some(w) = half(*window_ns).filter(|w| *w > 0) {
                with(
                    t(),
                    FaultAction::Delay {
                        from: *from,
                        to: *to,
                        window_ns: w,
                        extra_ns: *extra_ns,
                    },
                );
            }
        }
        FaultAction::Loss {
            from,
            to,
            ppm,
            window_ns,
            duplicate,
        } => {
            if let Some(w) = window_ns.and_then(half).filter(|w| *w > 0) {
                with(
                    t(),
                    FaultAction::Loss {
                        from: *from,
                        to: *to,
                        ppm: *ppm,
                        window_ns: Some(w),
                        duplicate: *duplicate,
                    },
                );
            }
        }
        _ => {}
    }
    out
}

/// Shrinks `start` (which violates the finding's invariant) within `budget` runs.
pub fn shrink(finding: &Finding<'_>, start: Candidate, budget: u32) -> Shrunk {
    let mut best = start;
    let mut runs = 0;
    'improve: loop {
        for candidate in candidates(&best, finding.base) {
            if runs >= budget {
                break 'improve;
            }
            runs += 1;
            if finding.fails(&candidate) {
                best = candidate;
                continue 'improve;
            }
        }
        break;
    }
    Shrunk { candidate: best, runs }
}
