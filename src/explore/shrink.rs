//! Shrinking a failing plan to a minimal one while the same invariant stays violated:
//! delta debugging over the plan — drop entries, drop clock rates, fewer clients and servers,
//! then smaller magnitudes (shorter pauses, downtimes, cuts and delays, smaller jumps and
//! drifts), earlier times and first occurrences. Each candidate is rendered to a scenario file
//! and loaded like any other, so what shrinking returns is exactly a file `locksim run`
//! replays, and a candidate the loader rejects is simply not taken.

use locksim_protocols::{Role, Scenario, run};
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{FaultAction, Invariant, Level, Names, Status, Trigger};

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
        run(&s, self.seed, Level::Facts)
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
        let unfired = run(&s, self.seed, Level::Facts).unfired_faults;
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
fn simplify(e: &locksim_sim::FaultEntry) -> Vec<locksim_sim::FaultEntry> {
    let mut out = Vec::new();
    let mut with = |trigger: Trigger, action: FaultAction| out.push(locksim_sim::FaultEntry { trigger, action });
    match &e.trigger {
        Trigger::At { at_ns } => {
            for at_ns in shorter(*at_ns, 0) {
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
            for d in shorter(*duration_ns, 1) {
                let action = FaultAction::Pause {
                    node: *node,
                    duration_ns: d,
                    suspend: *suspend,
                };
                with(t(), action);
            }
        }
        FaultAction::Crash {
            node,
            restart_after_ns: Some(r),
        } => {
            for r in shorter(*r, 0) {
                let action = FaultAction::Crash {
                    node: *node,
                    restart_after_ns: Some(r),
                };
                with(t(), action);
            }
        }
        FaultAction::Partition {
            groups,
            one_way,
            heal_after_ns,
        } => {
            for h in heal_after_ns.map_or(Vec::new(), |h| shorter(h, 1)) {
                let action = FaultAction::Partition {
                    groups: groups.clone(),
                    one_way: *one_way,
                    heal_after_ns: Some(h),
                };
                with(t(), action);
            }
            for (g, group) in groups.iter().enumerate() {
                if group.len() > 1 {
                    let mut fewer = groups.clone();
                    fewer[g].pop();
                    let action = FaultAction::Partition {
                        groups: fewer,
                        one_way: *one_way,
                        heal_after_ns: *heal_after_ns,
                    };
                    with(t(), action);
                }
            }
        }
        FaultAction::ClockJump { node, by_ns } => {
            let sign = by_ns.signum();
            for ms in smaller((by_ns.unsigned_abs()) / NS_PER_MS, [1_000, 100]) {
                if ms > 0 {
                    let action = FaultAction::ClockJump {
                        node: *node,
                        by_ns: sign * (ms * NS_PER_MS) as i64,
                    };
                    with(t(), action);
                }
            }
        }
        FaultAction::Delay {
            from,
            to,
            window_ns,
            extra_ns,
        } => {
            for x in shorter(*extra_ns, 1) {
                let action = FaultAction::Delay {
                    from: *from,
                    to: *to,
                    window_ns: *window_ns,
                    extra_ns: x,
                };
                with(t(), action);
            }
            for w in shorter(*window_ns, 1) {
                let action = FaultAction::Delay {
                    from: *from,
                    to: *to,
                    window_ns: w,
                    extra_ns: *extra_ns,
                };
                with(t(), action);
            }
        }
        FaultAction::Loss {
            from,
            to,
            ppm,
            window_ns,
            duplicate,
        } => {
            let loss = |ppm: u32, window_ns: Option<u64>| FaultAction::Loss {
                from: *from,
                to: *to,
                ppm,
                window_ns,
                duplicate: *duplicate,
            };
            for w in window_ns.map_or(Vec::new(), |w| shorter(w, 1)) {
                with(t(), loss(*ppm, Some(w)));
            }
            // A lower probability, rounded to tenths and hundredths.
            for p in smaller(u64::from(*ppm), [100_000, 10_000]) {
                if p > 0 {
                    with(t(), loss(p as u32, *window_ns));
                }
            }
        }
        _ => {}
    }
    out
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
mod tests {
    use super::*;
    use crate::load::parse_scenario;
    use locksim_sim::{FaultEntry, NodeId};

    fn pause(at_ms: u64, duration_ms: u64) -> FaultEntry {
        FaultEntry {
            trigger: Trigger::At {
                at_ns: at_ms * NS_PER_MS,
            },
            action: FaultAction::Pause {
                node: NodeId(0),
                duration_ns: duration_ms * NS_PER_MS,
                suspend: false,
            },
        }
    }

    fn times(entries: &[FaultEntry]) -> Vec<(u64, u64)> {
        entries
            .iter()
            .map(|e| match (&e.trigger, &e.action) {
                (Trigger::At { at_ns }, FaultAction::Pause { duration_ns, .. }) => {
                    (at_ns / NS_PER_MS, duration_ns / NS_PER_MS)
                }
                other => panic!("a timed pause, not {other:?}"),
            })
            .collect()
    }

    #[test]
    fn smaller_values_come_halved_then_by_quarters_then_rounded() {
        assert_eq!(smaller(9631, [1_000, 100]), [4815, 7224, 9000, 9600]);
        assert_eq!(smaller(9000, [1_000, 100]), [4500, 6750]);
        assert_eq!(smaller(2, [1_000, 100]), [1, 0]);
        assert_eq!(smaller(1, [1_000, 100]), [0]);
        assert!(smaller(0, [1_000, 100]).is_empty());
        assert!(shorter(NS_PER_MS, 1).is_empty(), "a pause is at least 1 ms long");
    }

    #[test]
    fn times_and_magnitudes_shrink_past_a_failed_halving() {
        let got = times(&simplify(&pause(4537, 9631)));
        let expected = [
            (2268, 9631),
            (3403, 9631),
            (4000, 9631),
            (4500, 9631),
            (4537, 4815),
            (4537, 7224),
            (4537, 9000),
            (4537, 9600),
        ];
        assert_eq!(got, expected);
    }

    /// The GC-pause story: halving alone left a 9631 ms pause at 4537 ms where 9 s at 3 s
    /// does. Here the "run" is a predicate: the pause must outlast 8.2 s and start after 3 s.
    #[test]
    fn a_pause_shrinks_to_round_values_when_halving_overshoots() {
        let base = parse_scenario(
            "s.toml",
            "name = \"s\"\n[protocol]\nkind = \"single-redis\"\nclients = 1\n",
        )
        .expect("loads");
        let start = Candidate {
            plan: Plan {
                faults: vec![pause(4537, 9631)],
                drifts: vec![(NodeId(0), 1_234)],
            },
            overrides: Overrides::default(),
        };
        let keeps = |c: &Candidate| {
            c.plan.faults.len() == 1
                && times(&c.plan.faults)[0].0 >= 3_000
                && times(&c.plan.faults)[0].1 >= 8_200
                && c.plan.drifts.first().is_some_and(|(_, ppm)| *ppm >= 1_000)
        };
        let shrunk = shrink_while(&base, start, 200, keeps);
        assert_eq!(times(&shrunk.candidate.plan.faults), [(3_000, 9_000)]);
        assert_eq!(shrunk.candidate.plan.drifts, [(NodeId(0), 1_000)]);
    }
}
