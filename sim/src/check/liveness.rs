//! `liveness`: after the last fault ends, some client acquires the lock within the liveness
//! window (default 3 x ttl). A key leaked without a TTL breaks it.

use std::collections::{BTreeMap, BTreeSet};

use crate::history::{History, What};
use crate::ids::NodeId;
use crate::lock_obs::LockObs;
use crate::node::Observation;
use crate::time::{fmt_duration, fmt_secs};

use super::{LockFacts, LockSetup, Status, Violation};

/// When the last fault is over — the true time and the index of the event that ended it, so
/// that an acquisition at the same instant but before it does not count; `None` when no fault
/// fired (the history records only faults that fired) — or why it never is.
fn quiet_from<M, O>(h: &History<M, O>, setup: &LockSetup) -> Result<Option<(u64, usize)>, String> {
    let mut quiet = None;
    let mut open_pauses = BTreeSet::new();
    let mut open_crashes = BTreeSet::new();
    let mut open_cuts = BTreeSet::new();
    let mut open_losses = BTreeSet::new();
    for (index, e) in h.events.iter().enumerate() {
        let end_ns = match &e.what {
            What::Pause { .. } => {
                open_pauses.insert(e.node);
                continue;
            }
            What::Resume => {
                open_pauses.remove(&e.node);
                e.t_ns
            }
            What::Crash {
                restart_after_ns: Some(_),
            } => {
                open_crashes.insert(e.node);
                continue;
            }
            What::Restart => {
                open_crashes.remove(&e.node);
                e.t_ns
            }
            What::Crash { restart_after_ns: None } if setup.servers.contains(&e.node) => {
                return Err(format!("{} crashed and never restarts", h.names.of(e.node)));
            }
            What::Crash { restart_after_ns: None } | What::ClockJump { .. } | What::Failover { .. } => e.t_ns,
            What::Partition { fault, .. } => {
                open_cuts.insert(*fault);
                continue;
            }
            What::Heal { fault } => {
                open_cuts.remove(fault);
                e.t_ns
            }
            // Messages sent at the end of a delay window are still in flight for `extra_ns`.
            What::Delay {
                window_ns, extra_ns, ..
            } => e.t_ns + window_ns + extra_ns,
            What::Lossy { fault, .. } => {
                open_losses.insert(*fault);
                continue;
            }
            What::WindowEnd { fault } => {
                open_losses.remove(fault);
                e.t_ns
            }
            _ => continue,
        };
        quiet = quiet.max(Some((end_ns, index)));
    }
    if let Some(node) = open_pauses.first() {
        return Err(format!("{} is still paused when the run ends", h.names.of(*node)));
    }
    if let Some(node) = open_crashes.first() {
        return Err(format!("{} has not restarted when the run ends", h.names.of(*node)));
    }
    if !open_cuts.is_empty() {
        return Err("a partition never heals".into());
    }
    if !open_losses.is_empty() {
        return Err("message loss never ends".into());
    }
    Ok(quiet)
}

pub(super) fn check<M, O: Observation>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
    let quiet = match quiet_from(h, setup) {
        Ok(q) => q,
        Err(why) => return Status::NotApplicable(why),
    };
    let (quiet_ns, quiet_index) = quiet.unwrap_or((0, 0));
    let since = match quiet {
        Some(_) => "the faults ended",
        None => "the start of the run (no fault fired)",
    };
    let deadline_ns = quiet_ns.saturating_add(setup.liveness_window_ns);
    let acquired = facts.all.iter().find(|f| {
        matches!(f.obs, LockObs::Acquired { .. })
            && f.t_ns >= quiet_ns
            && f.index > quiet_index
            && f.t_ns <= deadline_ns
    });
    if let Some(f) = acquired {
        return Status::Held(format!(
            "{} acquired at {}, {} after {since}",
            h.names.of(f.node),
            fmt_secs(f.t_ns),
            fmt_duration(f.t_ns - quiet_ns)
        ));
    }
    if deadline_ns > h.end_ns {
        return Status::NotApplicable(format!(
            "the run ends at {}, before the liveness window ({} after {}) closes",
            fmt_secs(h.end_ns),
            fmt_duration(setup.liveness_window_ns),
            fmt_secs(quiet_ns)
        ));
    }
    // Name a leaked key if there is one: the usual cause.
    let mut keys: BTreeMap<NodeId, &LockObs> = BTreeMap::new();
    for f in facts.all.iter().take_while(|f| f.t_ns <= deadline_ns) {
        match f.obs {
            LockObs::KeySet { .. } | LockObs::KeyExtended { .. } => {
                keys.insert(f.node, f.obs);
            }
            LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => {
                keys.remove(&f.node);
            }
            _ => {}
        }
    }
    let leak = keys
        .iter()
        .find_map(|(server, obs)| match obs {
            LockObs::KeySet { lease, expiry: None } | LockObs::KeyExtended { lease, expiry: None } => Some(format!(
                ": {}'s lock key for {} has no expiry",
                h.names.of(*server),
                facts.owner_name(h, *lease)
            )),
            _ => None,
        })
        .unwrap_or_default();
    let event = h.events.iter().rposition(|e| e.t_ns <= deadline_ns).unwrap_or(0);
    Status::Violated(Violation {
        event,
        t_ns: deadline_ns,
        why: format!(
            "no client acquired the lock within {} after {since}{}{leak}",
            fmt_duration(setup.liveness_window_ns),
            quiet.map_or(String::new(), |_| format!(" at {}", fmt_secs(quiet_ns)))
        ),
    })
}
