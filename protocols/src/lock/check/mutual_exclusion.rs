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

use locksim_sim::NodeId;
use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{History, What};

use super::{LockFacts, LockSetup};
use crate::lock::AsLock;
use crate::lock::obs::LockObs;

struct Segment {
    client: NodeId,
    index: usize,
    start_ns: u64,
    end_ns: u64,
}

/// An interval a client opened: the index of its acquire or renewal, its true time, and the
/// monotonic deadline it holds until (`None`: no deadline tracked).
type Opened = (usize, u64, Option<u64>);

pub(super) fn check<M, O: AsLock>(h: &History<M, O>, _facts: &LockFacts, setup: &LockSetup) -> Status {
    let mut segments = holdings(h, setup);
    if segments.is_empty() {
        return Status::NotApplicable("no client ever held the lock".into());
    }
    // `index` is unique, so the key is a total order and an unstable sort gives the one result.
    segments.sort_unstable_by_key(|s| (s.start_ns, s.index));
    if let Some(v) = first_overlap(h, &segments) {
        return Status::Violated(v);
    }
    let clients: std::collections::BTreeSet<NodeId> = segments.iter().map(|s| s.client).collect();
    Status::Held(format!(
        "{} of {}, none overlapping",
        count(segments.len(), "holding interval"),
        count(clients.len(), "client")
    ))
}

/// Every client's holding intervals, unsorted.
fn holdings<M, O: AsLock>(h: &History<M, O>, setup: &LockSetup) -> Vec<Segment> {
    // Per client: the intervals it has open. The order in which they close does not matter,
    // since segments are sorted by a total order afterwards.
    let mut open: NodeTable<Vec<Opened>> = NodeTable::new();
    let mut is_client: NodeTable<bool> = NodeTable::new();
    for &client in &setup.clients {
        *is_client.get_mut(client) = true;
    }
    let mut segments = Vec::new();
    for (index, e) in h.events.iter().enumerate() {
        if !is_client.get(e.node) {
            continue;
        }
        let opened = open.get_mut(e.node);
        match &e.what {
            What::Observe(o) => match o.as_lock() {
                Some(LockObs::Acquired { deadline_mono_ns, .. }) => {
                    opened.push((index, e.t_ns, deadline_mono_ns.mono_ns()));
                }
                Some(LockObs::Renewed { deadline_mono_ns }) => opened.push((index, e.t_ns, Some(*deadline_mono_ns))),
                Some(LockObs::Released { .. }) | Some(LockObs::LockLost { .. }) => {
                    close(h, &mut segments, e.node, opened, e.t_ns);
                }
                _ => {}
            },
            What::Crash { .. } => close(h, &mut segments, e.node, opened, e.t_ns),
            _ => {}
        }
    }
    for (client, mut opened) in open.into_entries() {
        close(h, &mut segments, client, &mut opened, h.end_ns);
    }
    segments
}

/// Ends each of `client`'s open intervals at `at_ns`, or earlier at its deadline; an
/// interval left empty is no holding.
fn close<M, O>(h: &History<M, O>, segments: &mut Vec<Segment>, client: NodeId, opened: &mut Vec<Opened>, at_ns: u64) {
    for (index, start_ns, deadline_mono_ns) in opened.drain(..) {
        // No deadline tracked: held until it ends, or the run does.
        let end_ns = deadline_mono_ns.map_or(h.end_ns, |d| h.when_mono(client, d)).min(at_ns);
        if end_ns > start_ns {
            segments.push(Segment {
                client,
                index,
                start_ns,
                end_ns,
            });
        }
    }
}

/// The first holding (in start order) that begins while another client's is still open.
fn first_overlap<M, O: AsLock>(h: &History<M, O>, segments: &[Segment]) -> Option<Violation> {
    let mut active: Vec<&Segment> = Vec::new();
    for s in segments {
        active.retain(|a| a.end_ns > s.start_ns);
        if let Some(other) = active.iter().find(|a| a.client != s.client) {
            let how = match &h.events[s.index].what {
                What::Observe(o) if matches!(o.as_lock(), Some(LockObs::Renewed { .. })) => "renewed",
                _ => "acquired",
            };
            return Some(Violation {
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
    None
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::lock::check::test_history::*;
    use crate::lock::obs::LockObs;
    use locksim_sim::What;

    fn judged(h: &LockHistory) -> locksim_sim::check::Status {
        judge(h, |h, f| check(h, f, &setup(&[S0], 1)))
    }

    fn released(h: Hist, t_ns: u64, client: locksim_sim::NodeId) -> Hist {
        h.obs(t_ns, client, LockObs::Released { lease: 0 })
    }

    /// DESIGN 5: a client holds from its acquire *until* the release is sent, its deadline
    /// passes, or loss is detected — at that instant it no longer holds. Intervals are
    /// half-open, so one that ends at t and one that starts at t do not overlap: the lock
    /// passed from hand to hand, which is what a lock is for.
    #[test]
    fn touching_intervals_do_not_overlap_one_nanosecond_more_does() {
        let h = released(Hist::new().acquired(0, C0, 1, 10 * S), 5 * S, C0)
            .acquired(5 * S, C1, 2, 15 * S)
            .build();
        assert_eq!(held(judged(&h)), "2 holding intervals of 2 clients, none overlapping");
        let h = Hist::new().acquired(0, C0, 1, 10 * S).acquired(5 * S, C1, 2, 15 * S);
        let h = released(h, 5 * S + 1, C0).build();
        let v = violated(judged(&h));
        assert_eq!((v.event, v.t_ns), (3, 5 * S));
        assert_eq!(
            v.why,
            "client-1 acquired the lock at 5.000 s while client-0 still held it (since 0.000 s, until 5.000 s)"
        );
    }

    #[test]
    fn the_local_deadline_ends_a_holding_exactly_when_the_clock_reaches_it() {
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .acquired(10 * S, C1, 2, 20 * S)
            .build();
        assert!(held(judged(&h)).starts_with("2 holding intervals"));
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .acquired(10 * S - 1, C1, 2, 20 * S)
            .build();
        let v = violated(judged(&h));
        assert_eq!((v.event, v.t_ns), (3, 10 * S - 1), "at client-1's acquired");
        assert!(v.why.ends_with("until 10.000 s)"), "{}", v.why);
    }

    #[test]
    fn a_suspended_clock_reaches_the_deadline_later_in_true_time() {
        let mut h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .acquired(12 * S, C1, 2, 30 * S)
            .build();
        h.clocks[C0.index()].suspend(2 * S, 5 * S);
        let v = violated(judged(&h));
        assert!(v.why.ends_with("until 13.000 s)"), "{}", v.why);
    }

    #[test]
    fn loss_and_crash_end_a_holding_at_their_instant() {
        let lost = LockObs::LockLost {
            why: "lease revoked".into(),
        };
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .obs(3 * S, C0, lost)
            .acquired(3 * S, C1, 2, 20 * S)
            .build();
        assert!(held(judged(&h)).starts_with("2 holding"));
        let crash = What::Crash {
            restart_after_ns: Some(S),
        };
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .at(3 * S, C0, crash)
            .acquired(3 * S, C1, 2, 20 * S)
            .build();
        assert!(held(judged(&h)).starts_with("2 holding"));
    }

    #[test]
    fn a_holding_with_no_deadline_lasts_to_the_end_of_the_run() {
        let h = Hist::new()
            .acquired_untracked(0, C0, 1)
            .acquired(90 * S, C1, 2, 95 * S)
            .end(100 * S)
            .build();
        let v = violated(judged(&h));
        assert!(v.why.ends_with("(since 0.000 s, until 100.000 s)"), "{}", v.why);
    }

    #[test]
    fn a_renewal_by_a_client_that_lost_the_lock_overlaps_the_new_holder() {
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .acquired(10 * S, C1, 2, 30 * S)
            .obs(
                12 * S,
                C0,
                LockObs::Renewed {
                    deadline_mono_ns: 22 * S,
                },
            )
            .build();
        let v = violated(judged(&h));
        assert_eq!(
            v.why,
            "client-0 renewed the lock at 12.000 s while client-1 still held it (since 10.000 s, until 30.000 s)"
        );
        // A client's own renewals overlap its own holding, which is no violation.
        let h = Hist::new()
            .acquired(0, C0, 1, 10 * S)
            .obs(
                8 * S,
                C0,
                LockObs::Renewed {
                    deadline_mono_ns: 18 * S,
                },
            )
            .build();
        assert_eq!(held(judged(&h)), "2 holding intervals of 1 client, none overlapping");
    }

    #[test]
    fn two_acquisitions_at_one_instant_overlap() {
        let h = Hist::new()
            .acquired(S, C1, 2, 10 * S)
            .acquired(S, C0, 1, 10 * S)
            .build();
        let v = violated(judged(&h));
        assert!(
            v.why
                .starts_with("client-0 acquired the lock at 1.000 s while client-1"),
            "{}",
            v.why
        );
    }

    #[test]
    fn only_clients_hold_and_an_empty_holding_is_none() {
        // A server recording an acquisition (no model does) is not a client.
        let h = Hist::new().acquired(0, S0, 1, 10 * S).build();
        assert_eq!(not_applicable(judged(&h)), "no client ever held the lock");
        // Released the instant it was acquired: held nothing.
        let h = released(Hist::new().acquired(S, C0, 1, 10 * S), S, C0).build();
        assert_eq!(not_applicable(judged(&h)), "no client ever held the lock");
        let h = released(Hist::new().acquired(S, C0, 1, 10 * S), S + 1, C0).build();
        assert_eq!(held(judged(&h)), "1 holding interval of 1 client, none overlapping");
    }
}
