//! `stale_write`: every write the resource accepts comes from a client whose lock the service
//! still stands by at that true time — no other client holds the lock, and none could be
//! granted it at that instant (DESIGN section 5).
//!
//! The rule is one for every lock service, written over servers and a quorum: a write is stale
//! when some other client — or a newcomer — could gather a quorum of servers that would grant
//! it the lock right now. A server counts for a client when it is *up and serving* and its lock
//! key is absent, expired by the server's own clock, or already that client's. A server that is
//! crashed, sitting out a delayed restart, a replica, demoted, or a Raft member between leaders
//! (`RoleChanged { authoritative: false }`) is unavailable, not free: it can grant nothing, so it
//! counts for nobody. That is antirez's delayed-restart argument for Redlock, and for etcd it
//! makes an election change nothing: the new leader speaks again only once it has applied the
//! committed store, and then it names the same holder.
//!
//! Where a new leader retires the old ones (`LockSetup::newest_serves_alone`: Raft under
//! majority commit), an earlier leader counts for nobody from the moment a newer one serves,
//! though it may be paused or cut off and not yet know it. A server that is up but cut off by a
//! partition still counts: it would grant to a client on its side. A Redis primary that refuses
//! writes for want of replicas (`NOREPLICAS`) records that it does not serve.
//!
//! Single Redis is the quorum-of-one case: the serving primary has the writer's key, or the
//! write is stale (a promoted replica without the key makes it stale). Fencing alone does not
//! guarantee this: the resource learns of a new holder only when that holder writes.

use locksim_sim::NodeId;
use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::{fmt_secs, fmt_signed_secs};
use locksim_sim::{History, What};

use super::{LockFacts, LockSetup};
use crate::lock::AsLock;
use crate::lock::obs::{ClockKind, Expiry, LockObs, short_lease};

/// What the checker knows of one server, from its recorded facts and its crashes.
#[derive(Clone, Copy, Default)]
struct Server<'h> {
    key: Option<(u64, Option<Expiry>)>,
    down: bool,
    /// The role it last named, and whether that role serves the lock.
    role: Option<(&'h str, bool)>,
}

/// Whom a server would grant the lock to, right now. Plain values: a run judges many writes
/// and words only the one that breaks the invariant.
#[derive(Clone, Copy)]
enum Grants {
    /// Nobody: it is down or does not serve the lock.
    Nobody,
    /// Anybody: it has no lock key.
    NoKey,
    /// Anybody: its key expired at `at_ns` by the clock that reads `now_ns`.
    Expired { at_ns: i64, now_ns: i64 },
    /// Only the owner of this lease.
    Owner(u64),
}

/// One server as a write finds it.
struct Seen<'h> {
    node: NodeId,
    server: Server<'h>,
    grants: Grants,
}

pub(super) fn check<M, O: AsLock>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
    // Every node's state is tracked, a client's too (a crash of any node); only
    // the lock servers' entries are ever read, so no node needs telling apart here.
    let mut nodes: NodeTable<Server> = NodeTable::new();
    let mut seen: Vec<Seen> = Vec::with_capacity(setup.servers.len());
    let mut writes = 0usize;
    for (index, e) in h.events.iter().enumerate() {
        // Only a node's own events are looked up: network events carry no real node.
        let obs = match &e.what {
            What::Crash { .. } => {
                nodes.get_mut(e.node).down = true;
                continue;
            }
            What::Restart => {
                nodes.get_mut(e.node).down = false;
                continue;
            }
            What::Observe(o) => match o.as_lock() {
                Some(obs) => obs,
                None => continue,
            },
            _ => continue,
        };
        // The resource records the writes; so does an etcd member serving the counter in a
        // transaction (`[resource] kind = "etcd-txn"`).
        let LockObs::WriteApplied { client, lease, .. } = obs else {
            let node = nodes.get_mut(e.node);
            match obs {
                LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
                    node.key = Some((*lease, *expiry));
                }
                LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => node.key = None,
                LockObs::RoleChanged { authoritative, role } => {
                    node.role = Some((role, *authoritative));
                    if *authoritative && setup.newest_serves_alone {
                        retire_all_but(&mut nodes, setup, e.node);
                    }
                }
                _ => {}
            }
            continue;
        };
        writes += 1;
        seen.clear();
        seen.extend(setup.servers.iter().map(|&node| {
            let server = nodes.get(node);
            let grants = grants_at(h, node, server, e.t_ns);
            Seen { node, server, grants }
        }));
        if let Some(why) = rival(h, facts, setup, *lease, &seen) {
            return Status::Violated(Violation {
                event: index,
                t_ns: e.t_ns,
                why: format!(
                    "the resource accepted {}'s write at {} but {} does not hold the lock: {why}",
                    h.names.of(*client),
                    fmt_secs(e.t_ns),
                    h.names.of(*client),
                ),
            });
        }
    }
    if writes == 0 {
        return Status::NotApplicable("no write was accepted".into());
    }
    Status::Held(format!(
        "{}, each while no other client held the lock or could be granted it",
        count(writes, "accepted write")
    ))
}

/// A new Raft leader under majority commit retires every earlier one: none of them can commit
/// anything any more, though one paused or cut off has not said it stepped down.
fn retire_all_but(nodes: &mut NodeTable<Server<'_>>, setup: &LockSetup, leader: NodeId) {
    for &other in &setup.servers {
        let s = nodes.get_mut(other);
        if other != leader && !matches!(s.role, Some((_, false))) {
            s.role = Some(("superseded by a newer leader", false));
        }
    }
}

/// A server's name, with the role it last took when it took one ("replica-0 (promoted to
/// primary)"), so a reader sees why it speaks for the lock.
fn server_name<M, O>(h: &History<M, O>, node: NodeId, s: Server<'_>) -> String {
    match s.role {
        Some((role, true)) => format!("{} ({role})", h.names.of(node)),
        _ => h.names.of(node).to_string(),
    }
}

fn grants_at<M, O>(h: &History<M, O>, node: NodeId, s: Server<'_>, t_ns: u64) -> Grants {
    if s.down || matches!(s.role, Some((_, false))) {
        return Grants::Nobody;
    }
    match s.key {
        None => Grants::NoKey,
        Some((lease, Some(e))) => {
            let now_ns = match e.clock {
                ClockKind::Wall => h.clock(node).wall_at(t_ns),
                ClockKind::Mono => h.clock(node).mono_at(t_ns) as i64,
            };
            if now_ns <= e.at_ns {
                Grants::Owner(lease)
            } else {
                Grants::Expired { at_ns: e.at_ns, now_ns }
            }
        }
        Some((lease, None)) => Grants::Owner(lease),
    }
}

/// Which lease other than the writer's could be granted the lock by a quorum of the servers
/// `seen`, and why; `None` when none could. Locks are compared by lease, not by client: a write
/// that arrives after its writer released and acquired again was made under a lock the service
/// no longer stands by (Kleppmann's delayed packet can land in its own sender's next lease).
fn rival<M, O>(
    h: &History<M, O>,
    facts: &LockFacts,
    setup: &LockSetup,
    writer_lease: u64,
    seen: &[Seen],
) -> Option<String> {
    let free = seen
        .iter()
        .filter(|s| matches!(s.grants, Grants::NoKey | Grants::Expired { .. }))
        .count();
    let keyed_by = |lease: u64| {
        seen.iter()
            .filter(move |s| matches!(s.grants, Grants::Owner(l) if l == lease))
    };
    // A newcomer first (`None`), then each other lease with a key, in server order.
    let newcomer = (free >= setup.quorum).then_some(None);
    let other = seen.iter().find_map(|s| match s.grants {
        Grants::Owner(lease) if lease != writer_lease && free + keyed_by(lease).count() >= setup.quorum => {
            Some(Some(lease))
        }
        _ => None,
    });
    let candidate = newcomer.or(other)?;
    let who = candidate.map_or("another client".to_string(), |lease| holder(h, facts, lease));
    let keyed: Vec<String> = candidate
        .map(|lease| keyed_by(lease).map(|s| server_name(h, s.node, s.server)).collect())
        .unwrap_or_default();
    let mut reasons: Vec<String> = Vec::new();
    if !keyed.is_empty() {
        let verb = if keyed.len() == 1 { "has" } else { "have" };
        let whose = if setup.quorum == 1 {
            format!("the key for {who}")
        } else {
            "its key".to_string()
        };
        reasons.push(format!("{} {verb} {whose}", and_list(&keyed)));
    }
    reasons.extend(seen.iter().filter_map(|s| {
        let name = server_name(h, s.node, s.server);
        match s.grants {
            Grants::NoKey => Some(format!("{name} has no lock key")),
            Grants::Expired { at_ns, now_ns } => Some(format!(
                "{name} has its key expired (at {}, its clock reads {})",
                fmt_signed_secs(at_ns),
                fmt_signed_secs(now_ns)
            )),
            _ => None,
        }
    }));
    if setup.quorum == 1 {
        return reasons.into_iter().next();
    }
    Some(format!(
        "{who} could be granted it by {} of {} servers, a quorum of {}: {}",
        keyed.len() + free,
        setup.servers.len(),
        setup.quorum,
        reasons.join("; ")
    ))
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// "client-1 (lease 3fa2)": the lease is named too, since the writer's own later lease can be
/// the one that makes its write stale.
fn holder<M, O>(h: &History<M, O>, facts: &LockFacts, lease: u64) -> String {
    format!("{} (lease {})", facts.owner_name(h, lease), short_lease(lease))
}

#[cfg(test)]
mod tests;
