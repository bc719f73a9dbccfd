//! A fault plan: the fault entries of one run (the scenario's own plus those exploration
//! added) and the clock rates it set. Plans apply to a scenario, and render back to TOML so a
//! finding is a scenario file `locksim run` replays.

use locksim_protocols::Scenario;
use locksim_sim::time::NS_PER_MS;
use locksim_sim::{ClockSpec, FaultAction, FaultEntry, FaultPlan, Names, NodeId, Trigger};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub faults: Vec<FaultEntry>,
    /// Clock rates set for the run (on top of the scenario's offsets).
    pub drifts: Vec<(NodeId, i32)>,
}

impl Plan {
    /// The scenario's own faults, as the start of every plan.
    pub fn of(s: &Scenario) -> Self {
        Plan {
            faults: s.faults.entries.clone(),
            drifts: Vec::new(),
        }
    }

    /// How many entries: what shrinking minimises first.
    pub fn size(&self) -> usize {
        self.faults.len() + self.drifts.len()
    }

    /// `s` with this plan's faults and clock rates.
    pub fn apply(&self, s: &Scenario) -> Scenario {
        let mut out = s.clone();
        out.faults = FaultPlan {
            entries: self.faults.clone(),
        };
        for &(node, drift_ppm) in &self.drifts {
            let spec = ClockSpec {
                drift_ppm,
                ..s.clock_of(node)
            };
            out.clocks.push((node, spec));
        }
        out
    }

    /// The plan's faults, for a world built by hand (`WorldConfig::faults`) — a protocol
    /// defined outside the crates, which has no [`Scenario`] to [`apply`](Plan::apply) to.
    pub fn fault_plan(&self) -> FaultPlan {
        FaultPlan {
            entries: self.faults.clone(),
        }
    }

    /// `node`'s clock under this plan: `base` with the clock rate the plan set for it, if any
    /// (the last one, as in [`apply`](Plan::apply)).
    pub fn clock(&self, node: NodeId, base: ClockSpec) -> ClockSpec {
        let drift = self.drifts.iter().rev().find(|(n, _)| *n == node);
        drift.map_or(base, |&(_, drift_ppm)| ClockSpec { drift_ppm, ..base })
    }

    /// The plan as scenario-file tables: a `[[clock]]` per clock rate, a `[[fault]]` per
    /// entry.
    pub fn to_toml(&self, names: &Names) -> String {
        let mut parts: Vec<String> = self
            .drifts
            .iter()
            .map(|(node, ppm)| format!("[[clock]]\nnode = {}\ndrift_ppm = {ppm}\n", quote(names.of(*node))))
            .collect();
        parts.extend(self.faults.iter().map(|e| fault_toml(e, names)));
        parts.join("\n")
    }
}

fn ms(ns: u64) -> u64 {
    ns / NS_PER_MS
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// One fault entry as a `[[fault]]` table.
pub fn fault_toml(e: &FaultEntry, names: &Names) -> String {
    let mut out = String::from("[[fault]]\n");
    line(&mut out, "kind", quote(e.action.kind()));
    if let Some(node) = e.action.node() {
        line(&mut out, "node", quote(names.of(node)));
    }
    match &e.trigger {
        Trigger::At { at_ns } => line(&mut out, "at_ms", ms(*at_ns).to_string()),
        Trigger::After { node, event, nth } => {
            line(&mut out, "after", quote(&format!("{}:{event}", names.of(*node))));
            if *nth != 1 {
                line(&mut out, "nth", nth.to_string());
            }
        }
    }
    action_lines(&mut out, &e.action, names);
    out
}

/// A `key = value` line of a table.
fn line(out: &mut String, key: &str, value: String) {
    out.push_str(&format!("{key} = {value}\n"));
}

/// The keys of a fault's action beyond its kind and node: how long, how hard, which links.
fn action_lines(out: &mut String, action: &FaultAction, names: &Names) {
    let n = |id: NodeId| quote(names.of(id));
    match action {
        FaultAction::Pause {
            duration_ns, suspend, ..
        } => {
            line(out, "duration_ms", ms(*duration_ns).to_string());
            if *suspend {
                line(out, "suspend", "true".into());
            }
        }
        FaultAction::Crash { restart_after_ns, .. } => {
            if let Some(r) = restart_after_ns {
                line(out, "restart_after_ms", ms(*r).to_string());
            }
        }
        FaultAction::Partition {
            groups,
            one_way,
            heal_after_ns,
        } => {
            line(out, "groups", groups_toml(groups, names));
            if *one_way {
                line(out, "one_way", "true".into());
            }
            if let Some(h) = heal_after_ns {
                line(out, "heal_after_ms", ms(*h).to_string());
            }
        }
        FaultAction::Isolate { heal_after_ns, .. } => {
            if let Some(h) = heal_after_ns {
                line(out, "heal_after_ms", ms(*h).to_string());
            }
        }
        FaultAction::ClockJump { by_ns, .. } => line(out, "by_ms", (by_ns / NS_PER_MS as i64).to_string()),
        FaultAction::Delay {
            from,
            to,
            window_ns,
            extra_ns,
        } => {
            line(out, "from", n(*from));
            line(out, "to", n(*to));
            line(out, "window_ms", ms(*window_ns).to_string());
            line(out, "extra_ms", ms(*extra_ns).to_string());
        }
        FaultAction::Loss {
            from,
            to,
            ppm,
            window_ns,
            ..
        } => {
            if let Some(f) = from {
                line(out, "from", n(*f));
            }
            if let Some(t) = to {
                line(out, "to", n(*t));
            }
            line(
                out,
                "probability",
                format!("{}.{:06}", ppm / 1_000_000, ppm % 1_000_000),
            );
            if let Some(w) = window_ns {
                line(out, "window_ms", ms(*w).to_string());
            }
        }
        FaultAction::Failover { .. } => {}
    }
}

/// A partition's groups as an array of arrays of node names.
fn groups_toml(groups: &[Vec<NodeId>], names: &Names) -> String {
    let groups: Vec<String> = groups
        .iter()
        .map(|g| {
            format!(
                "[{}]",
                g.iter().map(|x| quote(names.of(*x))).collect::<Vec<_>>().join(", ")
            )
        })
        .collect();
    format!("[{}]", groups.join(", "))
}
