//! `liveness`: after the last fault ends, some client acquires the lock within the liveness
//! window (default 3 x ttl). A key leaked without a TTL breaks it. Only faults that fired count
//! (the history records nothing else); when none fired, the window runs from the start.

use std::collections::{BTreeMap, BTreeSet};

use crate::history::{History, What};
use crate::ids::NodeId;
use crate::lock_obs::LockObs;
use crate::node::Observation;
use crate::time::{fmt_duration, fmt_secs};

use super::{LockFacts, LockSetup, NodeTable, Status, Violation, count};

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
fn quiet_from<M, O: Observation>(h: &History<M, O>, setup: &LockSetup) -> Result<Option<(u64, usize)>, String> {
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

pub(super) fn check<M, O: Observation>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
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
mod tests {
    use super::check;
    use crate::check::test_history::*;
    use crate::check::{LockSetup, Status};
    use crate::history::What;
    use crate::ids::NodeId;
    use crate::lock_obs::{ClockKind, Expiry, LockObs};

    fn judged(h: Hist, setup: &LockSetup) -> Status {
        judge(&h.build(), |h, f| check(h, f, setup))
    }

    /// One server, quorum 1.
    fn single(h: Hist) -> Status {
        judged(h, &setup(&[S0], 1))
    }

    fn jump(h: Hist, t_ns: u64) -> Hist {
        h.at(t_ns, C1, What::ClockJump { by_ns: 1 })
    }

    fn crash_for_good(h: Hist, t_ns: u64, node: NodeId) -> Hist {
        h.at(t_ns, node, What::Crash { restart_after_ns: None })
    }

    fn role(h: Hist, t_ns: u64, node: NodeId, authoritative: bool) -> Hist {
        let role = if authoritative {
            "promoted to primary"
        } else {
            "replica"
        };
        h.obs(t_ns, node, LockObs::RoleChanged { authoritative, role })
    }

    #[test]
    fn with_no_fault_the_window_runs_from_the_start_and_says_so() {
        let h = Hist::new().acquired(4 * MS, C0, 1, 10 * S);
        assert_eq!(held(single(h)), "client-0 acquired at 0.004 s, no fault fired");
        let v = violated(single(Hist::new().acquired(31 * S, C0, 1, 40 * S)));
        assert_eq!(
            v.why,
            "no fault fired, and no client acquired the lock within 30 s from the start"
        );
        let h = Hist::new().end(29 * S);
        assert_eq!(
            not_applicable(single(h)),
            "no fault fired, and the run ends at 29.000 s, before the liveness window (30 s from the start) closes"
        );
    }

    #[test]
    fn a_window_closing_exactly_at_the_end_is_judged() {
        // The run includes its last instant, so the whole window was seen.
        let v = violated(single(jump(Hist::new(), 10 * S).end(40 * S)));
        assert_eq!((v.event, v.t_ns), (0, 40 * S));
        assert_eq!(
            v.why,
            "no client acquired the lock within 30 s after the faults ended at 10.000 s"
        );
        let why = not_applicable(single(jump(Hist::new(), 10 * S).end(40 * S - 1)));
        assert_eq!(
            why,
            "the run ends at 39.999 s, before the liveness window (30 s after the faults ended at 10.000 s) closes"
        );
    }

    #[test]
    fn an_acquisition_counts_from_the_end_of_the_fault_to_the_close_of_the_window() {
        let h = jump(Hist::new(), 10 * S).acquired(40 * S, C0, 1, 50 * S);
        assert_eq!(
            held(single(h)),
            "client-0 acquired at 40.000 s, 30 s after the faults ended"
        );
        let h = jump(Hist::new(), 10 * S).acquired(40 * S + 1, C0, 1, 50 * S);
        let v = violated(single(h));
        assert_eq!(
            (v.event, v.t_ns),
            (0, 40 * S),
            "the last event before the window closed"
        );
        // At the fault's instant: only after its event.
        let h = jump(Hist::new().acquired(10 * S, C0, 1, 20 * S), 10 * S);
        assert!(matches!(single(h), Status::Violated(_)), "acquired before the fault");
        let h = jump(Hist::new(), 10 * S).acquired(10 * S, C0, 1, 20 * S);
        assert_eq!(
            held(single(h)),
            "client-0 acquired at 10.000 s, 0 ms after the faults ended"
        );
    }

    #[test]
    fn the_last_fault_to_end_starts_the_window() {
        // A delay window's last messages are in flight until window + extra.
        let delay = What::Delay {
            fault: 0,
            from: C0,
            to: S0,
            window_ns: 5 * S,
            extra_ns: S,
        };
        let h = jump(Hist::new().at(S, S0, delay.clone()), 3 * S).acquired(7 * S - 1, C0, 1, 20 * S);
        let v = violated(single(h));
        assert!(v.why.ends_with("after the faults ended at 7.000 s"), "{}", v.why);
        let h = jump(Hist::new().at(S, S0, delay), 3 * S).acquired(7 * S, C0, 1, 20 * S);
        assert!(held(single(h)).ends_with("0 ms after the faults ended"));
        // Each closing event ends its fault.
        let ends = [
            (
                What::Pause {
                    duration_ns: S,
                    suspend: false,
                },
                What::Resume,
            ),
            (
                What::Crash {
                    restart_after_ns: Some(S),
                },
                What::Restart,
            ),
            (
                What::Partition {
                    fault: 1,
                    groups: vec![vec![C0], vec![S0]],
                    one_way: false,
                },
                What::Heal { fault: 1 },
            ),
            (
                What::Lossy {
                    fault: 2,
                    from: None,
                    to: None,
                    ppm: 1,
                    duplicate: false,
                },
                What::WindowEnd { fault: 2 },
            ),
        ];
        for (open, close) in ends {
            let h = Hist::new()
                .at(S, C0, open)
                .at(4 * S, C0, close)
                .acquired(4 * S, C1, 2, 9 * S);
            assert_eq!(
                held(single(h)),
                "client-1 acquired at 4.000 s, 0 ms after the faults ended"
            );
        }
        let h = Hist::new()
            .at(S, S0, What::Failover { primary: S0 })
            .acquired(2 * S, C1, 2, 9 * S);
        assert!(held(single(h)).ends_with("1 s after the faults ended"));
    }

    #[test]
    fn a_fault_still_open_at_the_end_makes_liveness_not_applicable() {
        let cases = [
            (
                What::Pause {
                    duration_ns: S,
                    suspend: true,
                },
                "client-0 is still paused when the run ends",
            ),
            (
                What::Crash {
                    restart_after_ns: Some(S),
                },
                "client-0 has not restarted when the run ends",
            ),
            (
                What::Partition {
                    fault: 1,
                    groups: vec![vec![C0], vec![S0]],
                    one_way: true,
                },
                "a partition never heals",
            ),
            (
                What::Lossy {
                    fault: 2,
                    from: Some(C0),
                    to: None,
                    ppm: 1,
                    duplicate: true,
                },
                "message loss never ends",
            ),
        ];
        for (open, why) in cases {
            let h = Hist::new().at(S, C0, open).acquired(2 * S, C1, 2, 9 * S);
            assert_eq!(not_applicable(single(h)), why);
        }
    }

    #[test]
    fn a_client_crashing_for_good_is_a_fault_that_ends_at_the_crash() {
        let h = crash_for_good(Hist::new(), S, C0).acquired(2 * S, C1, 2, 9 * S);
        assert_eq!(
            held(single(h)),
            "client-1 acquired at 2.000 s, 1 s after the faults ended"
        );
    }

    #[test]
    fn a_server_crashing_for_good_blocks_liveness_only_when_nobody_else_serves_the_lock() {
        let primary_and_replica = setup(&[S0, S1], 1);
        // The replica never serves: nobody can be granted the lock.
        let h = role(Hist::new(), 0, S1, false);
        let h = crash_for_good(h, S, S0).acquired(2 * S, C1, 2, 9 * S);
        assert_eq!(
            not_applicable(judged(h, &primary_and_replica)),
            "server-0 crashed and never restarts, and no other server serves the lock"
        );
        // The failover-race: the replica is promoted and serves; liveness is judged.
        let h = role(Hist::new(), 0, S1, false);
        let h = role(crash_for_good(h, S, S0), S, S1, true).acquired(2 * S, C1, 2, 9 * S);
        assert_eq!(
            held(judged(h, &primary_and_replica)),
            "client-1 acquired at 2.000 s, 1 s after the faults ended"
        );
        // Promoted, then demoted again: it does not serve at the end.
        let h = role(role(Hist::new(), 0, S1, false), S, S1, true);
        let h = role(crash_for_good(h, 2 * S, S0), 3 * S, S1, false);
        assert!(matches!(judged(h, &primary_and_replica), Status::NotApplicable(_)));
    }

    #[test]
    fn redlock_stays_live_while_the_servers_left_make_a_quorum() {
        let three = setup(&[S0, S1, S2], 2);
        let h = crash_for_good(Hist::new(), S, S0).acquired(2 * S, C1, 2, 9 * S);
        assert!(held(judged(h, &three)).starts_with("client-1 acquired at 2.000 s"));
        let h = crash_for_good(crash_for_good(Hist::new(), S, S2), S, S0).acquired(2 * S, C1, 2, 9 * S);
        assert_eq!(
            not_applicable(judged(h, &three)),
            "server-2 crashed and never restarts: 1 server serves the lock, fewer than the quorum of 2"
        );
        // Unavailable (a delayed restart that never ends) counts for nobody either.
        let h = role(crash_for_good(Hist::new(), S, S0), S, S1, false);
        assert_eq!(
            not_applicable(judged(h, &three)),
            "server-0 crashed and never restarts: 1 server serves the lock, fewer than the quorum of 2"
        );
        let five = setup(&[S0, S1, S2, C0, C1], 4);
        let h = crash_for_good(crash_for_good(Hist::new(), S, S1), S, S0);
        assert!(not_applicable(judged(h, &five)).ends_with(": 3 servers serve the lock, fewer than the quorum of 4"));
    }

    #[test]
    fn a_violation_names_a_key_leaked_without_expiry() {
        let leaked = LockObs::KeySet { lease: 1, expiry: None };
        let h = jump(Hist::new().acquired(0, C0, 1, u64::MAX).obs(0, S0, leaked), S);
        let v = violated(single(h));
        assert_eq!(
            v.why,
            "no client acquired the lock within 30 s after the faults ended at 1.000 s: server-0's lock key for client-0 has no expiry"
        );
        // A key with an expiry, or one deleted before the window closes, is no leak.
        let expiring = Some(Expiry {
            clock: ClockKind::Wall,
            at_ns: 200 * S as i64,
        });
        let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(
            2 * S,
            S0,
            LockObs::KeyExtended {
                lease: 1,
                expiry: expiring,
            },
        );
        assert!(violated(single(h)).why.ends_with("1.000 s"));
        let gone = LockObs::KeyDeleted {
            lease: 1,
            cause: crate::lock_obs::DeleteCause::PlainDel,
        };
        let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(31 * S, S0, gone);
        assert!(violated(single(h)).why.ends_with("1.000 s"));
        let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 7, expiry: None }), S);
        assert!(
            violated(single(h))
                .why
                .ends_with("lock key for an unknown owner has no expiry")
        );
        let gone = LockObs::KeyExpired { lease: 1 };
        let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(31 * S, S0, gone);
        assert!(violated(single(h)).why.ends_with("1.000 s"));
        let gone = LockObs::KeyExpired { lease: 1 };
        let h = jump(Hist::new().obs(0, S0, LockObs::KeySet { lease: 1, expiry: None }), S).obs(32 * S, S0, gone);
        assert!(
            violated(single(h)).why.ends_with("has no expiry"),
            "deleted after the window closed"
        );
    }
}
