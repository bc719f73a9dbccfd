//! `liveness`: after the last fault ends, some client acquires the lock within the liveness
//! window (default 3 x ttl). A key leaked without a TTL breaks it. Only faults that fired count
//! (the history records nothing else); when none fired, the window runs from the start.
//!
//! Kept: the faults still in force and the servers crashed for good (bounded by the nodes and
//! the fault plan), when the last fault ended so far, the first acquisition after it, the
//! index of the last event inside the window, and each server's lock key as it is now and as
//! it was when the window closed (one per node). A fault that ends later moves the window
//! forward (never back, and never into the past): what was kept for the earlier window is
//! dropped then.

use std::collections::BTreeSet;

use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::{fmt_duration, fmt_secs};
use locksim_sim::{Names, NodeId, RunEnd, What};

use super::owners::Owners;
use super::{At, LockSetup};
use crate::lock::obs::LockObs;

/// Per node: the lease of its lock key and whether that key has no expiry.
type Keys = Vec<Option<(u64, bool)>>;

pub(super) struct Liveness {
    faults: OpenFaults,
    window_ns: u64,
    /// When the last fault that fired so far is over — the true time and the index of the
    /// event that ended it, so that an acquisition at the same instant but before it does not
    /// count — or `None` while no fault fired (the window then runs from the start).
    quiet: Option<(u64, usize)>,
    /// The end of the window after `quiet`.
    deadline_ns: u64,
    /// The index of the last event at or before `deadline_ns`.
    last_inside: usize,
    /// The first acquisition inside the window.
    acquired: Option<At>,
    keys: Keys,
    /// `keys` once the window had closed (taken at the first event after it).
    keys_at_deadline: Option<Keys>,
}

impl Liveness {
    pub fn new(setup: &LockSetup) -> Self {
        Liveness {
            faults: OpenFaults::new(),
            window_ns: setup.liveness_window_ns,
            quiet: None,
            deadline_ns: setup.liveness_window_ns,
            last_inside: 0,
            acquired: None,
            keys: Vec::new(),
            keys_at_deadline: None,
        }
    }

    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.keys.len() + self.keys_at_deadline.as_ref().map_or(0, Vec::len)
    }

    /// Every event, before anything else sees it: keeps the keys as the window closes, and
    /// the last event inside it. Inlined, as every event asks; the copy of the keys, once a
    /// window, is out of line.
    #[inline(always)]
    pub fn passing(&mut self, at: At) {
        if at.t_ns <= self.deadline_ns {
            self.last_inside = at.index;
        } else if self.keys_at_deadline.is_none() {
            self.window_closed();
        }
    }

    #[inline(never)]
    fn window_closed(&mut self) {
        self.keys_at_deadline = Some(self.keys.clone());
    }

    pub fn fault<M, O>(&mut self, at: At, what: &What<M, O>, setup: &LockSetup) {
        let Some(end_ns) = self.faults.track(at, what, setup) else {
            return;
        };
        let quiet = Some((end_ns, at.index));
        if quiet > self.quiet {
            // The window moves to a later end, not before this event: every event so far is
            // inside it, and no acquisition so far is after the faults.
            self.quiet = quiet;
            self.deadline_ns = end_ns.saturating_add(self.window_ns);
            self.last_inside = at.index;
            self.acquired = None;
            self.keys_at_deadline = None;
        }
    }

    pub fn fact(&mut self, at: At, obs: &LockObs) {
        let key = match obs {
            LockObs::Acquired { .. } => {
                let after_faults = self
                    .quiet
                    .is_none_or(|(quiet_ns, quiet_index)| at.t_ns >= quiet_ns && at.index > quiet_index);
                if self.acquired.is_none() && after_faults && at.t_ns <= self.deadline_ns {
                    self.acquired = Some(at);
                }
                return;
            }
            LockObs::RoleChanged { authoritative, .. } => {
                *self.faults.serves.get_mut(at.node) = Some(*authoritative);
                return;
            }
            LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
                Some((*lease, expiry.is_none()))
            }
            LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => None,
            _ => return,
        };
        let i = at.node.index();
        if self.keys.len() <= i {
            self.keys.resize(i + 1, None);
        }
        self.keys[i] = key;
    }

    pub fn status(&self, names: &Names, end: &RunEnd, owners: &Owners, setup: &LockSetup) -> Status {
        if let Some(why) = self.faults.lost_quorum(names, setup) {
            return Status::NotApplicable(why);
        }
        if let Some(why) = self.faults.still_open(names) {
            return Status::NotApplicable(why);
        }
        let quiet = self.quiet;
        let quiet_ns = quiet.map_or(0, |(ns, _)| ns);
        if let Some(f) = self.acquired {
            let after = match quiet {
                Some(_) => format!("{} after the faults ended", fmt_duration(f.t_ns - quiet_ns)),
                None => "no fault fired".to_string(),
            };
            return Status::Held(format!(
                "{} acquired at {}, {after}",
                names.of(f.node),
                fmt_secs(f.t_ns)
            ));
        }
        // Where the window starts, as the messages below say it (not formatted for the verdict
        // above, most runs' verdict); when no fault fired, they say so first.
        let (none_fired, from) = match quiet {
            Some(_) => ("", format!("after the faults ended at {}", fmt_secs(quiet_ns))),
            None => ("no fault fired, and ", "from the start".to_string()),
        };
        // A window that closes exactly at the end is judged: the run includes its last instant.
        if self.deadline_ns > end.end_ns {
            return Status::NotApplicable(format!(
                "{none_fired}the run ends at {}, before the liveness window ({} {from}) closes",
                fmt_secs(end.end_ns),
                fmt_duration(self.window_ns)
            ));
        }
        // Name a leaked key if there is one: the usual cause.
        let keys = self.keys_at_deadline.as_ref().unwrap_or(&self.keys);
        let leak = keys
            .iter()
            .enumerate()
            .find_map(|(server, key)| match key {
                Some((lease, true)) => Some(format!(
                    ": {}'s lock key for {} has no expiry",
                    names.of(NodeId(server as u32)),
                    owners.name(names, *lease)
                )),
                _ => None,
            })
            .unwrap_or_default();
        Status::Violated(Violation {
            event: self.last_inside,
            t_ns: self.deadline_ns,
            why: format!(
                "{none_fired}no client acquired the lock within {} {from}{leak}",
                fmt_duration(self.window_ns)
            ),
        })
    }
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

    /// Notes what `what`, happening to `node` at `t_ns`, opens or closes; returns the true time
    /// at which a fault it ends is over (`None` for an event that ends no fault).
    fn track<M, O>(&mut self, at: At, what: &What<M, O>, setup: &LockSetup) -> Option<u64> {
        match what {
            What::Pause { .. } => {
                self.pauses.insert(at.node);
                None
            }
            What::Resume => {
                self.pauses.remove(&at.node);
                Some(at.t_ns)
            }
            What::Crash {
                restart_after_ns: Some(_),
            } => {
                self.crashes.insert(at.node);
                None
            }
            What::Restart => {
                self.crashes.remove(&at.node);
                Some(at.t_ns)
            }
            What::Crash { restart_after_ns: None } => {
                if setup.servers.contains(&at.node) {
                    self.gone.push(at.node);
                }
                Some(at.t_ns)
            }
            What::ClockJump { .. } | What::Failover { .. } => Some(at.t_ns),
            What::Partition { fault, .. } => {
                self.cuts.insert(*fault);
                None
            }
            What::Heal { fault } => {
                self.cuts.remove(fault);
                Some(at.t_ns)
            }
            // Messages sent at the end of a delay window are still in flight for `extra_ns`.
            What::Delay {
                window_ns, extra_ns, ..
            } => Some(at.t_ns + window_ns + extra_ns),
            What::Lossy { fault, .. } => {
                self.losses.insert(*fault);
                None
            }
            What::WindowEnd { fault } => {
                self.losses.remove(fault);
                Some(at.t_ns)
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

#[cfg(test)]
mod tests;
