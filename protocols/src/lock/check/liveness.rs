//! `liveness`: after the last fault ends, some client acquires the lock within the liveness
//! window (default 3 x ttl). A key leaked without a TTL breaks it. Only faults that fired count
//! (the history records nothing else); when none fired, the window runs from the start.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::NodeId;
use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{History, What};

use super::{LockFacts, LockSetup};
use crate::lock::AsLock;
use crate::lock::obs::LockObs;

/// When the last fault that fired is over — the true time and the index of the event that
/// ended it, so that an acquisition at the same instant but before it does not count — or
/// `None` when no fault fired at all (the window then runs from the start); `Err` says why
/// the run never gets quiet.
///
/// A server that crashes for good ends its fault at the crash when the lock is still served
/// without it: at the end of the run, the servers that are up and authoritative (a server's
/// last `RoleChanged` says, authoritative if it never records one — a promoted replica, a
/// newly elected leader) still make a quorum. Otherwise nobody can be granted the lock, and
/// liveness does not apply.
fn quiet_from<M, O: AsLock>(h: &History<M, O>, setup: &LockSetup) -> Result<Option<(u64, usize)>, String> {
    let mut quiet = None;
    let mut open_pauses = BTreeSet::new();
    let mut open_crashes = BTreeSet::new();
    let mut open_cuts = BTreeSet::new();
    let mut open_losses = BTreeSet::new();
    let mut gone: Vec<NodeId> = Vec::new();
    // Per node: `Some(false)` while its last `RoleChanged` says it does not serve the lock.
    let mut serves: NodeTable<Option<bool>> = NodeTable::new();
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
            What::Crash { restart_after_ns: None } => {
                if setup.servers.contains(&e.node) {
                    gone.push(e.node);
                }
                e.t_ns
            }
            What::ClockJump { .. } | What::Failover { .. } => e.t_ns,
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
            What::Observe(o) => {
                if let Some(LockObs::RoleChanged { authoritative, .. }) = o.as_lock() {
                    *serves.get_mut(e.node) = Some(*authoritative);
                }
                continue;
            }
            _ => continue,
        };
        quiet = quiet.max(Some((end_ns, index)));
    }
    if let Some(first) = gone.first() {
        let serving = setup
            .servers
            .iter()
            .filter(|s| !gone.contains(s) && serves.get(**s) != Some(false))
            .count();
        if serving < setup.quorum {
            let who = h.names.of(*first);
            return Err(if setup.quorum == 1 {
                format!("{who} crashed and never restarts, and no other server serves the lock")
            } else {
                format!(
                    "{who} crashed and never restarts: {} the lock, fewer than the quorum of {}",
                    serve(serving),
                    setup.quorum
                )
            });
        }
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

/// "1 server serves", "2 servers serve".
fn serve(n: usize) -> String {
    if n == 1 {
        "1 server serves".into()
    } else {
        format!("{} serve", count(n, "server"))
    }
}

pub(super) fn check<M, O: AsLock>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
    let quiet = match quiet_from(h, setup) {
        Ok(q) => q,
        Err(why) => return Status::NotApplicable(why),
    };
    let (quiet_ns, quiet_index) = quiet.unwrap_or_default();
    // Where the window starts, as messages say it; when no fault fired, they say so first.
    let (none_fired, from) = match quiet {
        Some(_) => ("", format!("after the faults ended at {}", fmt_secs(quiet_ns))),
        None => ("no fault fired, and ", "from the start".to_string()),
    };
    let deadline_ns = quiet_ns.saturating_add(setup.liveness_window_ns);
    let acquired = facts.all.iter().find(|f| {
        matches!(f.obs, LockObs::Acquired { .. })
            && quiet.is_none_or(|_| f.t_ns >= quiet_ns && f.index > quiet_index)
            && f.t_ns <= deadline_ns
    });
    if let Some(f) = acquired {
        let after = match quiet {
            Some(_) => format!("{} after the faults ended", fmt_duration(f.t_ns - quiet_ns)),
            None => "no fault fired".to_string(),
        };
        return Status::Held(format!(
            "{} acquired at {}, {after}",
            h.names.of(f.node),
            fmt_secs(f.t_ns)
        ));
    }
    // A window that closes exactly at the end is judged: the run includes its last instant.
    if deadline_ns > h.end_ns {
        return Status::NotApplicable(format!(
            "{none_fired}the run ends at {}, before the liveness window ({} {from}) closes",
            fmt_secs(h.end_ns),
            fmt_duration(setup.liveness_window_ns)
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
            "{none_fired}no client acquired the lock within {} {from}{leak}",
            fmt_duration(setup.liveness_window_ns)
        ),
    })
}

#[cfg(test)]
mod tests;
