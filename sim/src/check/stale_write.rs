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

use crate::history::{History, What};
use crate::ids::NodeId;
use crate::lock_obs::{ClockKind, Expiry, LockObs, short_lease};
use crate::node::Observation;
use crate::time::{fmt_secs, fmt_signed_secs};

use super::{LockFacts, LockSetup, NodeTable, Status, Violation, count};

/// What the checker knows of one server, from its recorded facts and its crashes.
#[derive(Clone, Copy, Default)]
struct Server {
    key: Option<(u64, Option<Expiry>)>,
    down: bool,
    /// The role it last named, and whether that role serves the lock.
    role: Option<(&'static str, bool)>,
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
struct Seen {
    node: NodeId,
    server: Server,
    grants: Grants,
}

pub(super) fn check<M, O: Observation>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
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
fn retire_all_but(nodes: &mut NodeTable<Server>, setup: &LockSetup, leader: NodeId) {
    for &other in &setup.servers {
        let s = nodes.get_mut(other);
        if other != leader && !matches!(s.role, Some((_, false))) {
            s.role = Some(("superseded by a newer leader", false));
        }
    }
}

/// A server's name, with the role it last took when it took one ("replica-0 (promoted to
/// primary)"), so a reader sees why it speaks for the lock.
fn server_name<M, O>(h: &History<M, O>, node: NodeId, s: Server) -> String {
    match s.role {
        Some((role, true)) => format!("{} ({role})", h.names.of(node)),
        _ => h.names.of(node).to_string(),
    }
}

fn grants_at<M, O>(h: &History<M, O>, node: NodeId, s: Server, t_ns: u64) -> Grants {
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
mod tests {
    use super::*;
    use crate::check::test_history::*;
    use crate::lock_obs::DeleteCause;

    /// Leases: client-0's first and second acquisition, client-1's.
    const L0: u64 = 0xa000 << 48;
    const L0_LATER: u64 = 0xa001 << 48;
    const L1: u64 = 0xb000 << 48;
    const SERVERS: [NodeId; 5] = [S0, S1, S2, S3, S4];

    /// Who started which lease, so verdicts can name owners.
    fn cast() -> Hist {
        Hist::new()
            .obs(0, C0, LockObs::AcquireStarted { lease: L0, attempt: 1 })
            .obs(
                0,
                C0,
                LockObs::AcquireStarted {
                    lease: L0_LATER,
                    attempt: 2,
                },
            )
            .obs(0, C1, LockObs::AcquireStarted { lease: L1, attempt: 1 })
    }

    /// `lease`'s key on each of `on`, expiring at wall `expires_ms`.
    fn keys(mut h: Hist, t_ms: u64, on: &[NodeId], lease: u64, expires_ms: i64) -> Hist {
        for &server in on {
            let expiry = Some(Expiry {
                clock: ClockKind::Wall,
                at_ns: expires_ms * MS as i64,
            });
            h = h.obs(t_ms * MS, server, LockObs::KeySet { lease, expiry });
        }
        h
    }

    fn role(h: Hist, t_ms: u64, server: NodeId, authoritative: bool, role: &'static str) -> Hist {
        h.obs(t_ms * MS, server, LockObs::RoleChanged { authoritative, role })
    }

    /// The verdict over the first `servers` of the cast, with `quorum`.
    fn verdict(h: &Hist, servers: usize, quorum: usize) -> Status {
        let h = h.clone().build();
        check(&h, &LockFacts::of(&h), &setup(&SERVERS[..servers], quorum))
    }

    #[test]
    fn the_holders_write_holds_and_a_write_under_another_key_is_stale() {
        let h = keys(cast(), 1, &[S0], L0, 10_000).write_under(2 * MS, C0, L0);
        assert_eq!(
            held(verdict(&h, 1, 1)),
            "1 accepted write, each while no other client held the lock or could be granted it"
        );
        let deleted = LockObs::KeyDeleted {
            lease: L0,
            cause: DeleteCause::Release,
        };
        let h = keys(h.obs(3 * MS, S0, deleted), 4, &[S0], L1, 14_000).write_under(5 * MS, C0, L0);
        let v = violated(verdict(&h, 1, 1));
        assert_eq!(
            v.why,
            "the resource accepted client-0's write at 0.005 s but client-0 does not hold the lock: \
             server-0 has the key for client-1 (lease b000)"
        );
        assert_eq!(v.t_ns, 5 * MS);
    }

    #[test]
    fn a_key_lives_through_its_expiry_instant_and_is_free_just_after() {
        // Redis expires a key just after its instant: a write at exactly that instant is the
        // holder's, one nanosecond later anybody could take the lock.
        let h = keys(cast(), 1, &[S0], L0, 10);
        held(verdict(&h.clone().write_under(10 * MS, C0, L0), 1, 1));
        let why = violated(verdict(&h.write_under(10 * MS + 1, C0, L0), 1, 1)).why;
        assert!(
            why.ends_with("server-0 has its key expired (at 0.010 s, its clock reads 0.010 s)"),
            "{why}"
        );
    }

    #[test]
    fn a_write_under_an_earlier_lease_is_stale_even_when_its_writer_holds_again() {
        // Kleppmann's delayed packet can land while its own sender holds a later lease.
        let h = keys(cast(), 1, &[S0], L0_LATER, 10_000).write_under(2 * MS, C0, L0);
        let why = violated(verdict(&h, 1, 1)).why;
        assert!(why.ends_with("server-0 has the key for client-0 (lease a001)"), "{why}");
    }

    #[test]
    fn a_crashed_server_is_unavailable_not_free_until_it_restarts() {
        // Redlock, 5 servers: client-0's key on {0,1,2}; server-2 crashes and loses it. While
        // it is down, the free {3,4} are no quorum for anybody; restarted empty, {2,3,4} are.
        let lost = LockObs::KeyDeleted {
            lease: L0,
            cause: DeleteCause::Crash,
        };
        let crash = What::Crash {
            restart_after_ns: Some(MS),
        };
        let h = keys(cast(), 1, &[S0, S1, S2], L0, 10_000)
            .obs(2 * MS, S2, lost)
            .at(2 * MS, S2, crash)
            .write_under(3 * MS, C0, L0);
        held(verdict(&h, 5, 3));
        let h = h.at(4 * MS, S2, What::Restart).write_under(5 * MS, C0, L0);
        let why = violated(verdict(&h, 5, 3)).why;
        assert!(
            why.ends_with(
                "another client could be granted it by 3 of 5 servers, a quorum of 3: \
                 server-2 has no lock key; server-3 has no lock key; server-4 has no lock key"
            ),
            "{why}"
        );
    }

    #[test]
    fn a_delayed_restart_lends_its_vote_to_nobody_until_it_serves_again() {
        // antirez's delayed restart: server-2 restarted empty but serves nothing for a TTL.
        let h = keys(cast(), 1, &[S0, S1], L0, 10_000);
        let h = keys(h, 1, &[S3], L1, 10_000);
        let h = role(h, 2, S2, false, "restarted, unavailable (delayed restart)").write_under(3 * MS, C0, L0);
        held(verdict(&h, 5, 3));
        let h = role(h, 4, S2, true, "available again").write_under(5 * MS, C0, L0);
        let why = violated(verdict(&h, 5, 3)).why;
        // client-1 has its key on server-3, and the free server-2 and server-4 would grant it.
        assert!(
            why.ends_with(
                "client-1 (lease b000) could be granted it by 3 of 5 servers, a quorum of 3: \
                 server-3 has its key; server-2 (available again) has no lock key; server-4 has no lock key"
            ),
            "{why}"
        );
    }

    #[test]
    fn another_clients_keys_short_of_a_quorum_do_not_make_a_write_stale() {
        let h = keys(cast(), 1, &[S0, S1, S2], L0, 10_000);
        let h = keys(h, 1, &[S3, S4], L1, 10_000).write_under(2 * MS, C0, L0);
        held(verdict(&h, 5, 3));
    }

    #[test]
    fn an_election_changes_nothing_and_a_new_leader_without_the_key_makes_it_stale() {
        // etcd-style, 3 members, the leader speaks for the store (quorum 1 of the members that
        // serve). Between leaders nobody can grant anything.
        let h = role(cast(), 0, S1, false, "follower");
        let h = role(h, 0, S2, false, "follower");
        let h = keys(h, 1, &[S0], L0, 10_000);
        let h = role(h, 2, S0, false, "follower").write_under(3 * MS, C0, L0);
        held(verdict(&h, 3, 1));
        let h = keys(role(h, 4, S1, true, "leader"), 4, &[S1], L0, 12_000).write_under(5 * MS, C0, L0);
        held(verdict(&h, 3, 1));
        let h = h
            .obs(6 * MS, S1, LockObs::KeyExpired { lease: L0 })
            .write_under(7 * MS, C0, L0);
        let why = violated(verdict(&h, 3, 1)).why;
        assert!(why.ends_with("server-1 (leader) has no lock key"), "{why}");
    }

    #[test]
    fn a_new_raft_leader_retires_the_old_one_even_one_that_never_said_it_stepped_down() {
        // etcd, majority commit: server-0 leads, is paused (it records nothing), server-1 is
        // elected and serves client-1's key. The deposed server-0 — keeping client-0's key, or
        // none — can commit nothing any more, so client-1's write is its own.
        let pause = What::Pause {
            duration_ns: 30 * S,
            suspend: false,
        };
        let h = role(cast(), 0, S1, false, "follower");
        let h = role(role(h, 0, S2, false, "follower"), 0, S0, true, "leader");
        let h = keys(h, 1, &[S0], L0, 10_000).at(2 * MS, S0, pause);
        let h = role(h, 3, S1, true, "leader");
        let h = keys(h, 4, &[S1], L1, 14_000).write_under(5 * MS, C1, L1);
        let mut alone = setup(&SERVERS[..3], 1);
        let judged = |h: &Hist, setup: &LockSetup| {
            let h = h.clone().build();
            check(&h, &LockFacts::of(&h), setup)
        };
        alone.newest_serves_alone = true;
        held(judged(&h, &alone));
        // Where the old leader can still grant (a store that acknowledges before replicating,
        // Redis's split brain), its key for client-0 stands.
        let why = violated(judged(&h, &setup(&SERVERS[..3], 1))).why;
        assert!(
            why.ends_with("server-0 (leader) has the key for client-0 (lease a000)"),
            "{why}"
        );
        // A retired leader serves again once it is elected again.
        let h = role(h, 6, S0, true, "leader").write_under(7 * MS, C1, L1);
        let why = violated(judged(&h, &alone)).why;
        assert!(
            why.ends_with("server-0 (leader) has the key for client-0 (lease a000)"),
            "{why}"
        );
    }

    #[test]
    fn a_write_a_server_applies_in_a_transaction_is_judged_too() {
        // etcd-txn: the member that commits the counter write records it.
        let applied = LockObs::WriteApplied {
            client: C0,
            lease: L0,
            token: None,
            value: 1,
            based_on: 0,
            prev_value: 0,
        };
        let h = keys(cast(), 1, &[S0], L1, 10_000).obs(2 * MS, S0, applied);
        let why = violated(verdict(&h, 1, 1)).why;
        assert!(why.ends_with("server-0 has the key for client-1 (lease b000)"), "{why}");
    }

    #[test]
    fn no_accepted_write_is_not_applicable() {
        let h = keys(cast(), 1, &[S0], L0, 10_000);
        assert_eq!(not_applicable(verdict(&h, 1, 1)), "no write was accepted");
    }
}
