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
//!
//! Kept: each node's key, whether it is down and the role it last named (bounded by the
//! nodes), the writes of the instant not judged yet with the servers as each found them, and
//! the first stale write with the servers as it found them. A write is judged once its instant
//! has passed, with the clocks as they are then: a clock jump later in the same instant is in
//! the wall clock at that instant, as it is when the whole run is read back.

use locksim_sim::check::{NodeTable, Status, Violation, count};
use locksim_sim::time::{fmt_secs, fmt_signed_secs};
use locksim_sim::{ClockTrack, Names, NodeId, What};

use super::owners::Owners;
use super::{At, LockSetup};
use crate::lock::obs::{ClockKind, Expiry, LockObs, Text, short_lease};

/// What the checker knows of one server, from its recorded facts and its crashes.
#[derive(Clone, Copy, Default)]
struct Server {
    key: Option<(u64, Option<Expiry>)>,
    down: bool,
    /// The role it last named, and whether that role serves the lock.
    role: Option<(Text, bool)>,
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
#[derive(Clone, Copy)]
struct Seen {
    node: NodeId,
    server: Server,
    grants: Grants,
}

/// An accepted write not judged yet: where, whose, and under which lease.
#[derive(Clone, Copy)]
struct Write {
    at: At,
    client: NodeId,
    lease: u64,
}

/// The first stale write, the lease that could be granted the lock instead (`None`: a
/// newcomer), and the servers as the write found them.
struct Stale {
    write: Write,
    rival: Option<u64>,
    seen: Vec<Seen>,
}

#[derive(Default)]
pub(super) struct StaleWrite {
    // Every node's state is tracked, a client's too (a crash of any node); only the lock
    // servers' entries are ever read, so no node needs telling apart here.
    nodes: NodeTable<Server>,
    /// The writes of instant `pending_ns`, and the lock servers (in `setup.servers` order) as
    /// each found them, one run of servers per write.
    pending: Vec<Write>,
    pending_servers: Vec<Server>,
    pending_ns: u64,
    seen: Vec<Seen>,
    writes: usize,
    stale: Option<Stale>,
}

impl StaleWrite {
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.pending.len() + self.pending_servers.len()
    }

    pub fn fault<M, O>(&mut self, at: At, what: &What<M, O>) {
        match what {
            What::Crash { .. } => self.nodes.get_mut(at.node).down = true,
            What::Restart => self.nodes.get_mut(at.node).down = false,
            _ => {}
        }
    }

    pub fn fact(&mut self, at: At, obs: &LockObs, setup: &LockSetup) {
        // The resource records the writes; so does an etcd member serving the counter in a
        // transaction (`[resource] kind = "etcd-txn"`).
        let LockObs::WriteApplied { client, lease, .. } = obs else {
            let node = self.nodes.get_mut(at.node);
            match obs {
                LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
                    node.key = Some((*lease, *expiry));
                }
                LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => node.key = None,
                LockObs::RoleChanged { authoritative, role } => {
                    node.role = Some((*role, *authoritative));
                    if *authoritative && setup.newest_serves_alone {
                        retire_all_but(&mut self.nodes, setup, at.node);
                    }
                }
                _ => {}
            }
            return;
        };
        if self.stale.is_some() {
            return;
        }
        self.writes += 1;
        self.pending.push(Write {
            at,
            client: *client,
            lease: *lease,
        });
        self.pending_ns = at.t_ns;
        let nodes = &self.nodes;
        self.pending_servers.extend(setup.servers.iter().map(|&s| nodes.get(s)));
    }

    /// Judges the writes of an instant before `t_ns`. Inlined, as every event asks; the
    /// judging itself is out of line.
    #[inline(always)]
    pub fn settle_before(&mut self, t_ns: u64, clocks: &[ClockTrack], setup: &LockSetup) {
        if !self.pending.is_empty() && t_ns > self.pending_ns {
            self.settle(clocks, setup);
        }
    }

    /// Judges the pending writes, in event order, against the servers as each found them.
    #[inline(never)]
    pub fn settle(&mut self, clocks: &[ClockTrack], setup: &LockSetup) {
        let per_write = setup.servers.len();
        for (i, write) in self.pending.iter().enumerate() {
            let servers = &self.pending_servers[i * per_write..(i + 1) * per_write];
            self.seen.clear();
            self.seen
                .extend(setup.servers.iter().zip(servers).map(|(&node, &server)| {
                    let grants = grants_at(&clocks[node.index()], server, write.at.t_ns);
                    Seen { node, server, grants }
                }));
            if let Some(rival) = rival(setup, write.lease, &self.seen) {
                self.stale = Some(Stale {
                    write: *write,
                    rival,
                    seen: self.seen.clone(),
                });
                break;
            }
        }
        self.pending.clear();
        self.pending_servers.clear();
    }

    pub fn status(&self, names: &Names, owners: &Owners, setup: &LockSetup) -> Status {
        if let Some(s) = &self.stale {
            let client = names.of(s.write.client);
            let why = why(names, owners, setup, s.rival, &s.seen);
            return Status::Violated(Violation {
                event: s.write.at.index,
                t_ns: s.write.at.t_ns,
                why: format!(
                    "the resource accepted {client}'s write at {} but {client} does not hold the lock: {why}",
                    fmt_secs(s.write.at.t_ns),
                ),
            });
        }
        if self.writes == 0 {
            return Status::NotApplicable("no write was accepted".into());
        }
        Status::Held(format!(
            "{}, each while no other client held the lock or could be granted it",
            count(self.writes, "accepted write")
        ))
    }
}

/// A new Raft leader under majority commit retires every earlier one: none of them can commit
/// anything any more, though one paused or cut off has not said it stepped down.
fn retire_all_but(nodes: &mut NodeTable<Server>, setup: &LockSetup, leader: NodeId) {
    for &other in &setup.servers {
        let s = nodes.get_mut(other);
        if other != leader && !matches!(s.role, Some((_, false))) {
            s.role = Some(("superseded by a newer leader".into(), false));
        }
    }
}

/// A server's name, with the role it last took when it took one ("replica-0 (promoted to
/// primary)"), so a reader sees why it speaks for the lock.
fn server_name(names: &Names, node: NodeId, s: Server) -> String {
    match s.role {
        Some((role, true)) => format!("{} ({role})", names.of(node)),
        _ => names.of(node).to_string(),
    }
}

fn grants_at(clock: &ClockTrack, s: Server, t_ns: u64) -> Grants {
    if s.down || matches!(s.role, Some((_, false))) {
        return Grants::Nobody;
    }
    match s.key {
        None => Grants::NoKey,
        Some((lease, Some(e))) => {
            let now_ns = match e.clock {
                ClockKind::Wall => clock.wall_at(t_ns),
                ClockKind::Mono => clock.mono_at(t_ns) as i64,
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

fn free(seen: &[Seen]) -> usize {
    seen.iter()
        .filter(|s| matches!(s.grants, Grants::NoKey | Grants::Expired { .. }))
        .count()
}

fn keyed_by(seen: &[Seen], lease: u64) -> impl Iterator<Item = &Seen> {
    seen.iter()
        .filter(move |s| matches!(s.grants, Grants::Owner(l) if l == lease))
}

/// Which lease other than the writer's could be granted the lock by a quorum of the servers
/// `seen` (`Some(None)`: a newcomer); `None` when none could. Locks are compared by lease, not
/// by client: a write that arrives after its writer released and acquired again was made under
/// a lock the service no longer stands by (Kleppmann's delayed packet can land in its own
/// sender's next lease).
fn rival(setup: &LockSetup, writer_lease: u64, seen: &[Seen]) -> Option<Option<u64>> {
    let free = free(seen);
    // A newcomer first (`None`), then each other lease with a key, in server order.
    let newcomer = (free >= setup.quorum).then_some(None);
    newcomer.or_else(|| {
        seen.iter().find_map(|s| match s.grants {
            Grants::Owner(lease) if lease != writer_lease && free + keyed_by(seen, lease).count() >= setup.quorum => {
                Some(Some(lease))
            }
            _ => None,
        })
    })
}

/// Why `candidate` could be granted the lock, from the servers `seen`.
fn why(names: &Names, owners: &Owners, setup: &LockSetup, candidate: Option<u64>, seen: &[Seen]) -> String {
    let free = free(seen);
    let who = candidate.map_or("another client".to_string(), |lease| holder(names, owners, lease));
    let keyed: Vec<String> = candidate
        .map(|lease| {
            keyed_by(seen, lease)
                .map(|s| server_name(names, s.node, s.server))
                .collect()
        })
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
        let name = server_name(names, s.node, s.server);
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
        return reasons.into_iter().next().unwrap_or_default();
    }
    format!(
        "{who} could be granted it by {} of {} servers, a quorum of {}: {}",
        keyed.len() + free,
        setup.servers.len(),
        setup.quorum,
        reasons.join("; ")
    )
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
fn holder(names: &Names, owners: &Owners, lease: u64) -> String {
    format!("{} (lease {})", owners.name(names, lease), short_lease(lease))
}

#[cfg(test)]
mod tests;
