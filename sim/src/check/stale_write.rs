//! `stale_write`: every write the resource accepts comes from a client that, at that true
//! time, holds the lock according to the lock service's own state — the key maps to its lease
//! and is unexpired by the server's clock, on a quorum of the servers. Fencing alone does not
//! guarantee this: the resource learns of a new holder only when that holder writes.

use crate::history::History;
use crate::lock_obs::{ClockKind, Expiry, LockObs};
use crate::time::{fmt_secs, fmt_signed_secs};

use super::{LockFacts, LockSetup, NodeTable, Status, Violation};

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
    // The lock key each server holds.
    let mut keys: NodeTable<Option<(u64, Option<Expiry>)>> = NodeTable::new();
    // Servers that said they do not (or no longer) serve the lock, with the role they named.
    let mut idle: NodeTable<Option<&str>> = NodeTable::new();
    let mut writes = 0;
    for f in &facts.all {
        if setup.servers.contains(&f.node) && !matches!(f.obs, LockObs::WriteApplied { .. }) {
            match f.obs {
                LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
                    *keys.get_mut(f.node) = Some((*lease, *expiry));
                }
                LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => {
                    *keys.get_mut(f.node) = None;
                }
                LockObs::RoleChanged { authoritative, role } => {
                    *idle.get_mut(f.node) = if *authoritative { None } else { Some(role) };
                }
                _ => {}
            }
            continue;
        }
        let LockObs::WriteApplied { client, lease, .. } = f.obs else {
            continue;
        };
        writes += 1;
        let mut agree = 0;
        let mut objection = None;
        for &server in &setup.servers {
            let verdict = match keys.get(server) {
                _ if let Some(role) = idle.get(server) => Err(format!("does not serve the lock ({role})")),
                None => Err("has no lock key".to_string()),
                Some((held, _)) if held != *lease => Err(format!("has the key for {}", facts.owner_name(h, held))),
                Some((_, Some(e))) => {
                    let now = match e.clock {
                        ClockKind::Wall => h.clock(server).wall_at(f.t_ns),
                        ClockKind::Mono => h.clock(server).mono_at(f.t_ns) as i64,
                    };
                    if now <= e.at_ns {
                        Ok(())
                    } else {
                        Err(format!(
                            "has its key expired (at {}, its clock reads {})",
                            fmt_signed_secs(e.at_ns),
                            fmt_signed_secs(now)
                        ))
                    }
                }
                Some((_, None)) => Ok(()),
            };
            match verdict {
                Ok(()) => agree += 1,
                Err(why) => {
                    objection.get_or_insert_with(|| format!("{} {why}", h.names.of(server)));
                }
            }
        }
        if agree < setup.quorum {
            let count = if setup.servers.len() > 1 {
                format!(
                    "holds on {agree} of {} servers, needs {}: ",
                    setup.servers.len(),
                    setup.quorum
                )
            } else {
                String::new()
            };
            return Status::Violated(Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "the resource accepted {}'s write at {} but {} does not hold the lock: {count}{}",
                    h.names.of(*client),
                    fmt_secs(f.t_ns),
                    h.names.of(*client),
                    objection.unwrap_or_default()
                ),
            });
        }
    }
    if writes == 0 {
        Status::NotApplicable("no write was accepted".into())
    } else {
        Status::Held(format!("{writes} accepted writes, each by the current holder"))
    }
}
