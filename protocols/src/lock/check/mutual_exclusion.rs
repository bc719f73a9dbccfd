//! `mutual_exclusion`: no two clients' holding intervals overlap in true time.
//!
//! A client holds from each successful acquire or renewal until the earliest of: its release
//! being sent, its own local deadline passing (the true time at which its monotonic clock
//! reaches the deadline — later than planned if it was suspended), loss detected, or its
//! crash (a dead process holds nothing).
//!
//! A holding is the half-open interval `[start, end)`: DESIGN 5 says a client holds *until*
//! its release is sent or its deadline passes, so at that instant it holds no more, and a
//! client acquiring at that same instant takes the lock from hand to hand without overlap.
//!
//! Kept: each client's open holdings (an acquire or renewal not yet ended; those whose
//! deadline has passed are ended at the client's next acquire or renewal), the ended holdings
//! that a later one could still overlap (ending after the last instant judged), the holdings
//! started at the instant not yet judged, two counts and the first overlap. That is bounded by
//! the clients and the holdings each has open at once (an acquire and the renewals within one
//! lease), never by the run's length.
//!
//! A holding that starts at instant t is judged once t has passed (at the next event of a
//! client, or the end): a release or a crash later in that same instant ends an interval at t,
//! which then overlaps nothing. Whether an open holding's deadline falls after t is known
//! exactly from the clock handed with the event: the true time at which a monotonic clock
//! reaches a value, once it is in the past, never changes.

use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{ClockTrack, Names, NodeId, RunEnd, What};

use super::{At, LockSetup};
use crate::lock::obs::LockObs;

/// A holding a client opened and has not ended: its acquire's or renewal's index and true
/// time, and the monotonic deadline it holds until (`None`: no deadline tracked).
#[derive(Clone, Copy)]
struct Open {
    index: usize,
    start_ns: u64,
    deadline_mono_ns: Option<u64>,
}

impl Open {
    /// Whether it still holds after `t_ns` unless ended later (in a later instant, or at the
    /// run's end, both after `t_ns`).
    fn deadline_after(&self, clock: &ClockTrack, t_ns: u64) -> bool {
        self.deadline_mono_ns.is_none_or(|d| clock.true_time_of_mono(d) > t_ns)
    }
}

/// An ended holding, not empty.
#[derive(Clone, Copy)]
struct Ended {
    client: NodeId,
    index: usize,
    start_ns: u64,
    end_ns: u64,
}

/// A holding started at the instant not judged yet: its index, its client, and whether it is
/// a renewal.
type Started = (usize, NodeId, bool);

/// The first holding that began while another client's still held: the other's end is
/// known once it ends.
struct Overlap {
    at: At,
    renewed: bool,
    other: NodeId,
    other_index: usize,
    other_start_ns: u64,
    other_end_ns: Option<u64>,
}

pub(super) struct MutualExclusion {
    is_client: Vec<bool>,
    /// Per node (only clients' are used): its open holdings.
    open: Vec<Vec<Open>>,
    /// Ended holdings that may overlap one started at or after the last instant judged.
    ended: Vec<Ended>,
    started: Vec<Started>,
    started_ns: u64,
    holdings: usize,
    held_by: Vec<bool>,
    overlap: Option<Overlap>,
}

impl MutualExclusion {
    pub fn new(setup: &LockSetup) -> Self {
        let nodes = setup.clients.iter().map(|c| c.index() + 1).max().unwrap_or(0);
        let mut is_client = vec![false; nodes];
        for c in &setup.clients {
            is_client[c.index()] = true;
        }
        MutualExclusion {
            is_client,
            open: vec![Vec::new(); nodes],
            held_by: vec![false; nodes],
            ended: Vec::new(),
            started: Vec::new(),
            started_ns: 0,
            holdings: 0,
            overlap: None,
        }
    }

    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.open.iter().map(Vec::len).sum::<usize>() + self.ended.len() + self.started.len()
    }

    fn is_client(&self, node: NodeId) -> bool {
        self.is_client.get(node.index()).copied().unwrap_or(false)
    }

    pub fn fact(&mut self, at: At, obs: &LockObs, clocks: &[ClockTrack]) {
        let deadline = match obs {
            LockObs::Acquired { deadline_mono_ns, .. } => Some((deadline_mono_ns.mono_ns(), false)),
            LockObs::Renewed { deadline_mono_ns } => Some((Some(*deadline_mono_ns), true)),
            LockObs::Released { .. } | LockObs::LockLost { .. } => None,
            _ => return,
        };
        if !self.is_client(at.node) {
            return;
        }
        self.judge_before(at.t_ns, clocks);
        match deadline {
            Some((deadline_mono_ns, renewed)) => self.start(at, deadline_mono_ns, renewed, clocks),
            None => self.end_all(at.node, at.t_ns, &clocks[at.node.index()]),
        }
    }

    pub fn fault<M, O>(&mut self, at: At, what: &What<M, O>, clocks: &[ClockTrack]) {
        if matches!(what, What::Crash { .. }) && self.is_client(at.node) {
            self.judge_before(at.t_ns, clocks);
            self.end_all(at.node, at.t_ns, &clocks[at.node.index()]);
        }
    }

    fn start(&mut self, at: At, deadline_mono_ns: Option<u64>, renewed: bool, clocks: &[ClockTrack]) {
        let clock = &clocks[at.node.index()];
        // Holdings whose deadline has passed end there: what keeps a client that renews, or
        // acquires again after its lease ran out, from piling up open holdings.
        let mut open = std::mem::take(&mut self.open[at.node.index()]);
        open.retain(|o| {
            let passed = o.deadline_mono_ns.filter(|d| clock.true_time_of_mono(*d) <= at.t_ns);
            if let Some(d) = passed {
                self.end(at.node, *o, clock.true_time_of_mono(d));
            }
            passed.is_none()
        });
        open.push(Open {
            index: at.index,
            start_ns: at.t_ns,
            deadline_mono_ns,
        });
        self.open[at.node.index()] = open;
        if self.overlap.is_none() {
            self.started.push((at.index, at.node, renewed));
            self.started_ns = at.t_ns;
        }
    }

    /// Ends each of `client`'s open holdings at `at_ns`, or earlier at its deadline.
    fn end_all(&mut self, client: NodeId, at_ns: u64, clock: &ClockTrack) {
        for o in std::mem::take(&mut self.open[client.index()]) {
            let end_ns = o
                .deadline_mono_ns
                .map_or(at_ns, |d| clock.true_time_of_mono(d).min(at_ns));
            self.end(client, o, end_ns);
        }
    }

    /// `client`'s holding `o` ends at `end_ns`; one left empty is no holding.
    fn end(&mut self, client: NodeId, o: Open, end_ns: u64) {
        if end_ns <= o.start_ns {
            return;
        }
        self.holdings += 1;
        self.held_by[client.index()] = true;
        match &mut self.overlap {
            Some(v) if v.other_index == o.index => v.other_end_ns = Some(end_ns),
            Some(_) => {}
            None => self.ended.push(Ended {
                client,
                index: o.index,
                start_ns: o.start_ns,
                end_ns,
            }),
        }
    }

    /// Judges the holdings started at an instant before `t_ns`.
    fn judge_before(&mut self, t_ns: u64, clocks: &[ClockTrack]) {
        if !self.started.is_empty() && t_ns > self.started_ns {
            self.judge(clocks);
        }
    }

    /// Judges the holdings started at `started_ns`, in event order: the first that holds past
    /// that instant while another client's does is the overlap.
    fn judge(&mut self, clocks: &[ClockTrack]) {
        let t_ns = self.started_ns;
        self.ended.retain(|e| e.end_ns > t_ns);
        for &(index, client, renewed) in &self.started {
            let own = self.open[client.index()]
                .iter()
                .any(|o| o.index == index && o.deadline_after(&clocks[client.index()], t_ns))
                || self.ended.iter().any(|e| e.index == index);
            if !own {
                continue;
            }
            // The other client's holding that started first (the earliest index).
            let open = self.open.iter().enumerate().flat_map(|(c, opened)| {
                let c = NodeId(c as u32);
                opened
                    .iter()
                    .filter(move |o| c != client && o.index < index && o.deadline_after(&clocks[c.index()], t_ns))
                    .map(move |o| (o.index, c, o.start_ns, None))
            });
            let ended = self
                .ended
                .iter()
                .filter(|e| e.client != client && e.index < index)
                .map(|e| (e.index, e.client, e.start_ns, Some(e.end_ns)));
            if let Some((other_index, other, other_start_ns, other_end_ns)) = open.chain(ended).min_by_key(|o| o.0) {
                self.overlap = Some(Overlap {
                    at: At {
                        index,
                        t_ns,
                        node: client,
                    },
                    renewed,
                    other,
                    other_index,
                    other_start_ns,
                    other_end_ns,
                });
                self.ended.clear();
                break;
            }
        }
        self.started.clear();
    }

    pub fn status(mut self, names: &Names, end: &RunEnd) -> Status {
        for client in 0..self.open.len() {
            let client = NodeId(client as u32);
            self.end_all(client, end.end_ns, end.clock(client));
        }
        if !self.started.is_empty() {
            self.judge(&end.clocks);
        }
        if let Some(v) = &self.overlap {
            let how = if v.renewed { "renewed" } else { "acquired" };
            let until = v.other_end_ns.unwrap_or(end.end_ns);
            return Status::Violated(Violation {
                event: v.at.index,
                t_ns: v.at.t_ns,
                why: format!(
                    "{} {how} the lock at {} while {} still held it (since {}, until {})",
                    names.of(v.at.node),
                    fmt_secs(v.at.t_ns),
                    names.of(v.other),
                    fmt_secs(v.other_start_ns),
                    fmt_secs(until)
                ),
            });
        }
        if self.holdings == 0 {
            return Status::NotApplicable("no client ever held the lock".into());
        }
        let clients = self.held_by.iter().filter(|h| **h).count();
        Status::Held(format!(
            "{} of {}, none overlapping",
            count(self.holdings, "holding interval"),
            count(clients, "client")
        ))
    }
}

#[cfg(test)]
mod tests;
