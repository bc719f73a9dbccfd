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
//! Single Redis is the quorum-of-one case: the serving primary has the writer's key, or the
//! write is stale (a promoted replica without the key makes it stale). Fencing alone does not
//! guarantee this: the resource learns of a new holder only when that holder writes.

use crate::history::{History, What};
use crate::ids::NodeId;
use crate::lock_obs::{ClockKind, Expiry, LockObs, short_lease};
use crate::node::Observation;
use crate::time::{fmt_secs, fmt_signed_secs};

use super::{LockFacts, LockSetup, NodeTable, Status, Violation};

/// What the checker knows of one server, from its recorded facts and its crashes.
#[derive(Clone, Copy, Default)]
struct Server {
    key: Option<(u64, Option<Expiry>)>,
    down: bool,
    /// The role it last named, and whether that role serves the lock.
    role: Option<(&'static str, bool)>,
}

/// Whom a server would grant the lock to, right now.
enum Grants {
    /// Nobody: it is down or does not serve the lock.
    Nobody,
    /// Anybody: no key, or an expired one (why).
    Anybody(String),
    /// Only the owner of this lease (the server's name, with its role).
    Owner(u64, String),
}

pub(super) fn check<M, O: Observation>(h: &History<M, O>, facts: &LockFacts, setup: &LockSetup) -> Status {
    let mut is_server: NodeTable<bool> = NodeTable::new();
    for &s in &setup.servers {
        *is_server.get_mut(s) = true;
    }
    let mut servers: NodeTable<Server> = NodeTable::new();
    let mut writes = 0usize;
    for (index, e) in h.events.iter().enumerate() {
        let obs = match &e.what {
            What::Crash { .. } if is_server.get(e.node) => {
                servers.get_mut(e.node).down = true;
                continue;
            }
            What::Restart if is_server.get(e.node) => {
                servers.get_mut(e.node).down = false;
                continue;
            }
            What::Observe(o) => match o.as_lock() {
                Some(obs) => obs,
                None => continue,
            },
            _ => continue,
        };
        if is_server.get(e.node) && !matches!(obs, LockObs::WriteApplied { .. }) {
            let s = servers.get_mut(e.node);
            match obs {
                LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
                    s.key = Some((*lease, *expiry));
                }
                LockObs::KeyDeleted { .. } | LockObs::KeyExpired { .. } => s.key = None,
                LockObs::RoleChanged { authoritative, role } => s.role = Some((role, *authoritative)),
                _ => {}
            }
            continue;
        }
        let LockObs::WriteApplied { client, lease, .. } = obs else {
            continue;
        };
        writes += 1;
        let grants: Vec<(NodeId, Grants)> = setup
            .servers
            .iter()
            .map(|&s| (s, grants_at(h, s, servers.get(s), e.t_ns)))
            .collect();
        if let Some(why) = rival(h, facts, setup, *lease, &grants) {
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
    let s = if writes == 1 { "" } else { "s" };
    Status::Held(format!(
        "{writes} accepted write{s}, each while no other client held the lock or could be granted it"
    ))
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
    let name = server_name(h, node, s);
    match s.key {
        None => Grants::Anybody(format!("{name} has no lock key")),
        Some((lease, Some(e))) => {
            let now = match e.clock {
                ClockKind::Wall => h.clock(node).wall_at(t_ns),
                ClockKind::Mono => h.clock(node).mono_at(t_ns) as i64,
            };
            if now <= e.at_ns {
                Grants::Owner(lease, name)
            } else {
                Grants::Anybody(format!(
                    "{name} has its key expired (at {}, its clock reads {})",
                    fmt_signed_secs(e.at_ns),
                    fmt_signed_secs(now)
                ))
            }
        }
        Some((lease, None)) => Grants::Owner(lease, name),
    }
}

/// Which lease other than the writer's could be granted the lock by a quorum of `grants`, and
/// why; `None` when none could. Locks are compared by lease, not by client: a write that
/// arrives after its writer released and acquired again was made under a lock the service no
/// longer stands by (Kleppmann's delayed packet can land in its own sender's next lease).
fn rival<M, O>(
    h: &History<M, O>,
    facts: &LockFacts,
    setup: &LockSetup,
    writer_lease: u64,
    grants: &[(NodeId, Grants)],
) -> Option<String> {
    // A newcomer first (`None`), then each other lease with a key, in server order.
    let mut candidates: Vec<Option<u64>> = vec![None];
    for (_, g) in grants {
        if let Grants::Owner(lease, _) = g
            && *lease != writer_lease
            && !candidates.contains(&Some(*lease))
        {
            candidates.push(Some(*lease));
        }
    }
    for candidate in candidates {
        let mut keyed: Vec<&str> = Vec::new();
        let mut free: Vec<&str> = Vec::new();
        for (_, g) in grants {
            match g {
                Grants::Anybody(why) => free.push(why),
                Grants::Owner(lease, name) if candidate == Some(*lease) => keyed.push(name),
                _ => {}
            }
        }
        if keyed.len() + free.len() < setup.quorum {
            continue;
        }
        let who = candidate.map_or("another client".to_string(), |lease| holder(h, facts, lease));
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
        reasons.extend(free.iter().map(|why| why.to_string()));
        if setup.quorum == 1 {
            return reasons.into_iter().next();
        }
        return Some(format!(
            "{who} could be granted it by {} of {} servers, a quorum of {}: {}",
            keyed.len() + free.len(),
            setup.servers.len(),
            setup.quorum,
            reasons.join("; ")
        ));
    }
    None
}

/// "a", "a and b", "a, b and c".
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
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
    use crate::check::{Invariant, check_lock};
    use crate::clock::ClockTrack;
    use crate::history::{Event, Stats};
    use crate::ids::Names;
    use crate::lock_obs::DeleteCause;

    const MS: u64 = 1_000_000;
    const C0: NodeId = NodeId(0);
    const C1: NodeId = NodeId(1);
    /// Leases: client-0's first and second acquisition, client-1's.
    const L0: u64 = 0xa000 << 48;
    const L0_LATER: u64 = 0xa001 << 48;
    const L1: u64 = 0xb000 << 48;

    fn server(i: u32) -> NodeId {
        NodeId(2 + i)
    }

    /// A hand-built lock history: two clients, `servers` servers, a resource; every clock
    /// reads true time.
    struct Build {
        servers: u32,
        events: Vec<Event<(), LockObs>>,
    }

    impl Build {
        fn new(servers: u32) -> Self {
            let mut b = Build {
                servers,
                events: Vec::new(),
            };
            b.obs(0, C0, LockObs::AcquireStarted { lease: L0, attempt: 1 });
            b.obs(
                0,
                C0,
                LockObs::AcquireStarted {
                    lease: L0_LATER,
                    attempt: 2,
                },
            );
            b.obs(0, C1, LockObs::AcquireStarted { lease: L1, attempt: 1 });
            b
        }

        fn what(&mut self, t_ms: u64, node: NodeId, what: What<(), LockObs>) -> &mut Self {
            self.events.push(Event {
                t_ns: t_ms * MS,
                node,
                wall_ns: 0,
                mono_ns: 0,
                what,
            });
            self
        }

        fn obs(&mut self, t_ms: u64, node: NodeId, obs: LockObs) -> &mut Self {
            self.what(t_ms, node, What::Observe(obs))
        }

        /// `lease`'s key on each of `on`, expiring at wall `expires_ms`.
        fn keys(&mut self, t_ms: u64, on: &[u32], lease: u64, expires_ms: i64) -> &mut Self {
            for &i in on {
                let expiry = Some(Expiry {
                    clock: ClockKind::Wall,
                    at_ns: expires_ms * MS as i64,
                });
                self.obs(t_ms, server(i), LockObs::KeySet { lease, expiry });
            }
            self
        }

        fn role(&mut self, t_ms: u64, i: u32, authoritative: bool, role: &'static str) -> &mut Self {
            self.obs(t_ms, server(i), LockObs::RoleChanged { authoritative, role })
        }

        fn write(&mut self, t_ms: u64, client: NodeId, lease: u64) -> &mut Self {
            let resource = NodeId(2 + self.servers);
            let applied = LockObs::WriteApplied {
                client,
                lease,
                token: None,
                value: 1,
                based_on: 0,
                prev_value: 0,
            };
            self.obs(t_ms, resource, applied)
        }

        /// The stale_write verdict: its word and its message.
        fn verdict(&self, quorum: usize) -> (&'static str, String) {
            let mut names = vec!["client-0".to_string(), "client-1".to_string()];
            names.extend((0..self.servers).map(|i| format!("server-{i}")));
            names.push("resource".into());
            let nodes = names.len();
            let h = History {
                names: Names::new(names),
                events: self.events.clone(),
                clocks: vec![ClockTrack::default(); nodes],
                end_ns: 60_000 * MS,
                stats: Stats::default(),
            };
            let setup = LockSetup {
                clients: vec![C0, C1],
                servers: (0..self.servers).map(server).collect(),
                quorum,
                liveness_window_ns: 30_000 * MS,
            };
            let v = check_lock(&h, &setup)
                .into_iter()
                .find(|v| v.invariant == Invariant::StaleWrite)
                .expect("stale_write is judged");
            let word = v.status.word();
            let why = match v.status {
                Status::Held(why) | Status::NotApplicable(why) => why,
                Status::Violated(v) => v.why,
            };
            (word, why)
        }
    }

    #[test]
    fn the_holders_write_holds_and_a_write_under_another_key_is_stale() {
        let mut b = Build::new(1);
        b.keys(1, &[0], L0, 10_000).write(2, C0, L0);
        assert_eq!(b.verdict(1).0, "held");
        b.obs(
            3,
            server(0),
            LockObs::KeyDeleted {
                lease: L0,
                cause: DeleteCause::Release,
            },
        )
        .keys(4, &[0], L1, 14_000)
        .write(5, C0, L0);
        let (word, why) = b.verdict(1);
        assert_eq!(word, "violated");
        assert!(
            why.ends_with("but client-0 does not hold the lock: server-0 has the key for client-1 (lease b000)"),
            "{why}"
        );
    }

    #[test]
    fn a_key_lives_through_its_expiry_instant_and_is_free_just_after() {
        // Redis expires a key just after its instant: a write at exactly that instant is the
        // holder's, one nanosecond later anybody could take the lock.
        let mut b = Build::new(1);
        b.keys(1, &[0], L0, 10).write(10, C0, L0);
        assert_eq!(b.verdict(1).0, "held");
        b.events.last_mut().expect("the write").t_ns += 1;
        let (word, why) = b.verdict(1);
        assert_eq!(word, "violated");
        assert!(
            why.ends_with("server-0 has its key expired (at 0.010 s, its clock reads 0.010 s)"),
            "{why}"
        );
    }

    #[test]
    fn a_write_under_an_earlier_lease_is_stale_even_when_its_writer_holds_again() {
        // Kleppmann's delayed packet can land while its own sender holds a later lease.
        let mut b = Build::new(1);
        b.keys(1, &[0], L0_LATER, 10_000).write(2, C0, L0);
        let (word, why) = b.verdict(1);
        assert_eq!(word, "violated");
        assert!(why.ends_with("server-0 has the key for client-0 (lease a001)"), "{why}");
    }

    #[test]
    fn a_crashed_server_is_unavailable_not_free_until_it_restarts() {
        // Redlock, 5 servers: client-0's key on {0,1,2}; server-2 crashes and loses it. While
        // it is down, the free {3,4} are no quorum for anybody; restarted empty, {2,3,4} are.
        let mut b = Build::new(5);
        b.keys(1, &[0, 1, 2], L0, 10_000)
            .obs(
                2,
                server(2),
                LockObs::KeyDeleted {
                    lease: L0,
                    cause: DeleteCause::Crash,
                },
            )
            .what(
                2,
                server(2),
                What::Crash {
                    restart_after_ns: Some(MS),
                },
            )
            .write(3, C0, L0);
        let (word, why) = b.verdict(3);
        assert_eq!(
            (word, why.as_str()),
            (
                "held",
                "1 accepted write, each while no other client held the lock or could be granted it"
            )
        );
        b.what(4, server(2), What::Restart).write(5, C0, L0);
        let (word, why) = b.verdict(3);
        assert_eq!(word, "violated");
        assert!(
            why.ends_with("another client could be granted it by 3 of 5 servers, a quorum of 3: server-2 has no lock key; server-3 has no lock key; server-4 has no lock key"),
            "{why}"
        );
    }

    #[test]
    fn a_delayed_restart_lends_its_vote_to_nobody_until_it_serves_again() {
        // antirez's delayed restart: server-2 restarted empty but serves nothing for a TTL.
        let mut b = Build::new(5);
        b.keys(1, &[0, 1], L0, 10_000)
            .keys(1, &[3], L1, 10_000)
            .role(2, 2, false, "restarted, unavailable (delayed restart)")
            .write(3, C0, L0);
        assert_eq!(b.verdict(3).0, "held");
        b.role(4, 2, true, "available again").write(5, C0, L0);
        let (word, why) = b.verdict(3);
        assert_eq!(word, "violated");
        // client-1 has its key on server-3 and the free server-2 and server-4 would grant it.
        assert!(
            why.ends_with("client-1 (lease b000) could be granted it by 3 of 5 servers, a quorum of 3: server-3 has its key; server-2 (available again) has no lock key; server-4 has no lock key"),
            "{why}"
        );
    }

    #[test]
    fn another_clients_keys_short_of_a_quorum_do_not_make_a_write_stale() {
        let mut b = Build::new(5);
        b.keys(1, &[0, 1, 2], L0, 10_000)
            .keys(1, &[3, 4], L1, 10_000)
            .write(2, C0, L0);
        assert_eq!(b.verdict(3).0, "held");
    }

    #[test]
    fn an_election_changes_nothing_and_a_new_leader_without_the_key_makes_it_stale() {
        // etcd-style, 3 members, the leader speaks for the store (quorum 1 of the members that
        // serve). Between leaders nobody can grant anything.
        let mut b = Build::new(3);
        b.role(0, 1, false, "follower")
            .role(0, 2, false, "follower")
            .keys(1, &[0], L0, 10_000)
            .role(2, 0, false, "follower")
            .write(3, C0, L0);
        assert_eq!(b.verdict(1).0, "held");
        b.role(4, 1, true, "leader").keys(4, &[1], L0, 12_000).write(5, C0, L0);
        assert_eq!(b.verdict(1).0, "held");
        b.obs(6, server(1), LockObs::KeyExpired { lease: L0 }).write(7, C0, L0);
        let (word, why) = b.verdict(1);
        assert_eq!(word, "violated");
        assert!(why.ends_with("server-1 (leader) has no lock key"), "{why}");
    }

    #[test]
    fn no_accepted_write_is_not_applicable() {
        let mut b = Build::new(1);
        b.keys(1, &[0], L0, 10_000);
        assert_eq!(b.verdict(1), ("not_applicable", "no write was accepted".to_string()));
    }
}
