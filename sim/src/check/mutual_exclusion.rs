//! `mutual_exclusion`: no two clients' holding intervals overlap in true time.
//!
//! A client holds from each successful acquire or renewal until the earliest of: its release
//! being sent, its own local deadline passing (the true time at which its monotonic clock
//! reaches the deadline — later than planned if it was suspended), loss detected, or its
//! crash (a dead process holds nothing).

use crate::history::{History, What};
use crate::ids::NodeId;
use crate::lock_obs::LockObs;
use crate::node::Observation;
use crate::time::fmt_secs;

use super::{LockFacts, LockSetup, NodeTable, Status, Violation};

struct Segment {
    client: NodeId,
    index: usize,
    start_ns: u64,
    end_ns: u64,
}

pub(super) fn check<M, O: Observation>(h: &History<M, O>, _facts: &LockFacts, setup: &LockSetup) -> Status {
    // Per client: the intervals it has open. The order in which they close does not matter,
    // since segments are sorted by a total order below.
    let mut open: NodeTable<Vec<(usize, u64, u64)>> = NodeTable::new();
    let mut is_client: NodeTable<bool> = NodeTable::new();
    for &client in &setup.clients {
        *is_client.get_mut(client) = true;
    }
    let mut segments = Vec::new();
    let close = |segments: &mut Vec<Segment>, client: NodeId, opened: &mut Vec<(usize, u64, u64)>, at_ns: u64| {
        for (index, start_ns, deadline_mono_ns) in opened.drain(..) {
            let end_ns = h.when_mono(client, deadline_mono_ns).min(at_ns);
            if end_ns > start_ns {
                segments.push(Segment {
                    client,
                    index,
                    start_ns,
                    end_ns,
                });
            }
        }
    };
    for (index, e) in h.events.iter().enumerate() {
        if !is_client.get(e.node) {
            continue;
        }
        let opened = open.get_mut(e.node);
        match &e.what {
            What::Observe(o) => match o.as_lock() {
                Some(LockObs::Acquired { deadline_mono_ns, .. }) | Some(LockObs::Renewed { deadline_mono_ns }) => {
                    opened.push((index, e.t_ns, *deadline_mono_ns));
                }
                Some(LockObs::Released { .. }) | Some(LockObs::LockLost { .. }) => {
                    close(&mut segments, e.node, opened, e.t_ns);
                }
                _ => {}
            },
            What::Crash { .. } => close(&mut segments, e.node, opened, e.t_ns),
            _ => {}
        }
    }
    for (client, mut opened) in open.into_entries() {
        close(&mut segments, client, &mut opened, h.end_ns);
    }
    if segments.is_empty() {
        return Status::NotApplicable("no client ever held the lock".into());
    }
    // `index` is unique, so the key is a total order and an unstable sort gives the one result.
    segments.sort_unstable_by_key(|s| (s.start_ns, s.index));
    let mut active: Vec<&Segment> = Vec::new();
    for s in &segments {
        active.retain(|a| a.end_ns > s.start_ns);
        if let Some(other) = active.iter().find(|a| a.client != s.client) {
            let how = match &h.events[s.index].what {
                What::Observe(o) if o.kind() == "renewed" => "renewed",
                _ => "acquired",
            };
            return Status::Violated(Violation {
                event: s.index,
                t_ns: s.start_ns,
                why: format!(
                    "{} {how} the lock at {} while {} still held it (since {}, until {})",
                    h.names.of(s.client),
                    fmt_secs(s.start_ns),
                    h.names.of(other.client),
                    fmt_secs(other.start_ns),
                    fmt_secs(other.end_ns)
                ),
            });
        }
        active.push(s);
    }
    let clients: std::collections::BTreeSet<NodeId> = segments.iter().map(|s| s.client).collect();
    Status::Held(format!(
        "{} holding intervals of {} clients, none overlapping",
        segments.len(),
        clients.len()
    ))
}
