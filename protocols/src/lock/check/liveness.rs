//! `liveness`: after the last fault ends, some client acquires the lock within the liveness
//! window (default 3 x ttl). A key leaked without a TTL breaks it. Only faults that fired count
//! (the history records nothing else); when none fired, the window runs from the start.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::NodeId;
use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{Event, History, Names, What};

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
    let mut faults = OpenFaults::new();
    let mut quiet = None;
    for (index, e) in h.events.iter().enumerate() {
        if let Some(end_ns) = faults.track(e, setup) {
            quiet = quiet.max(Some((end_ns, index)));
        }
    }
    if let Some(why) = faults.lost_quorum(&h.names, setup) {
        return Err(why);
    }
    if let Some(why) = faults.still_open(&h.names) {
        return Err(why);
    }
    Ok(quiet)
}

/// The faults still in force as the history is read, and what decides whether the servers
/// that crashed for good leave a quorum behind.
struct OpenFaults {
    pauses: BTreeSet<NodeId>,
    crashes: BTreeSet<NodeId>,
    cuts: BTreeSet<u32>,
    losses: BTreeSet<u32>,
    /// Servers that crashed and never restart, in crash order.
    gone: Vec<NodeId>,
    /// Per node: `Some(false)` while its last `RoleChanged` says it does not serve the lock.
    serves: NodeTable<Option<bool>>,
}

impl OpenFaults {
    fn new() -> Self {
        OpenFaults {
            pauses: BTreeSet::new(),
            crashes: BTreeSet::new(),
            cuts: BTreeSet::new(),
            losses: BTreeSet::new(),
            gone: Vec::new(),
            serves: NodeTable::new(),
        }
    }

    /// Notes what `e` opens or closes; returns the true time at which a fault it ends is over
    /// (`None` for an event that ends no fault).
    fn track<M, O: AsLock>(&mut self, e: &Event<M, O>, setup: &LockSetup) -> Option<u64> {
        match &e.what {
            What::Pause { .. } => {
                self.pauses.insert(e.node);
                None
            }
            What::Resume => {
                self.pauses.remove(&e.node);
                Some(e.t_ns)
            }
            What::Crash {
                restart_after_ns: Some(_),
            } => {
                self.crashes.insert(e.node);
                None
            }
            What::Restart => {
                self.crashes.remove(&e.node);
                Some(e.t_ns)
            }
            What::Crash { restart_after_ns: None } => {
                if setup.servers.contains(&e.node) {
                    self.gone.push(e.node);
                }
                Some(e.t_ns)
            }
            What::ClockJump { .. } | What::Failover { .. } => Some(e.t_ns),
            What::Partition { fault, .. } => {
                self.cuts.insert(*fault);
                None
            }
            What::Heal { fault } => {
                self.cuts.remove(fault);
                Some(e.t_ns)
            }
            // Messages sent at the end of a delay window are still in flight for `extra_ns`.
            What::Delay {
                window_ns, extra_ns, ..
            } => Some(e.t_ns + window_ns + extra_ns),
            What::Lossy { fault, .. } => {
                self.losses.insert(*fault);
                None
            }
            What::WindowEnd { fault } => {
                self.losses.remove(fault);
                Some(e.t_ns)
            }
            What::Observe(o) => {
                if let Some(LockObs::RoleChanged { authoritative, .. }) = o.as_lock() {
                    *self.serves.get_mut(e.node) = Some(*authoritative);
                }
                None
            }
            _ => None,
        }
    }

    /// Why nobody can be granted the lock at the end: the servers that crashed for good leave
    /// fewer up and authoritative than the quorum.
    fn lost_quorum(&self, names: &Names, setup: &LockSetup) -> Option<String> {
        let first = self.gone.first()?;
        let serving = setup
            .servers
            .iter()
            .filter(|s| !self.gone.contains(s) && self.serves.get(**s) != Some(false))
            .count();
        if serving >= setup.quorum {
            return None;
        }
        let who = names.of(*first);
        Some(if setup.quorum == 1 {
            format!("{who} crashed and never restarts, and no other server serves the lock")
        } else {
            format!(
                "{who} crashed and never restarts: {} the lock, fewer than the quorum of {}",
                serve(serving),
                setup.quorum
            )
        })
    }

    /// The first fault still in force when the run ends, said as a reason.
    fn still_open(&self, names: &Names) -> Option<String> {
        if let Some(node) = self.pauses.first() {
            return Some(format!("{} is still paused when the run ends", names.of(*node)));
        }
        if let Some(node) = self.crashes.first() {
            return Some(format!("{} has not restarted when the run ends", names.of(*node)));
        }
        if !self.cuts.is_empty() {
            return Some("a partition never heals".into());
        }
        if !self.losses.is_empty() {
            return Some("message loss never ends".into());
        }
        None
    }
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
