use super::*;
use crate::lock::check::STALE_WRITE;
use crate::lock::check::test_history::*;
use crate::lock::obs::DeleteCause;

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
            at_ns: expires_ms * NS_PER_MS as i64,
        });
        h = h.obs(t_ms * NS_PER_MS, server, LockObs::KeySet { lease, expiry });
    }
    h
}

fn role(h: Hist, t_ms: u64, server: NodeId, authoritative: bool, role: &'static str) -> Hist {
    h.obs(
        t_ms * NS_PER_MS,
        server,
        LockObs::RoleChanged {
            authoritative,
            role: role.into(),
        },
    )
}

/// The verdict over the first `servers` of the cast, with `quorum`.
fn verdict(h: &Hist, servers: usize, quorum: usize) -> Status {
    let h = h.clone().build();
    judge(&h, &setup(&SERVERS[..servers], quorum), STALE_WRITE)
}

#[test]
fn the_holders_write_holds_and_a_write_under_another_key_is_stale() {
    let h = keys(cast(), 1, &[S0], L0, 10_000).write_under(2 * NS_PER_MS, C0, L0);
    assert_eq!(
        held(verdict(&h, 1, 1)),
        "1 accepted write, each while no other client held the lock or could be granted it"
    );
    let deleted = LockObs::KeyDeleted {
        lease: L0,
        cause: DeleteCause::Release,
    };
    let h = keys(h.obs(3 * NS_PER_MS, S0, deleted), 4, &[S0], L1, 14_000).write_under(5 * NS_PER_MS, C0, L0);
    let v = violated(verdict(&h, 1, 1));
    assert_eq!(
        v.why,
        "the resource accepted client-0's write at 0.005 s but client-0 does not hold the lock: \
         server-0 has the key for client-1 (lease b000)"
    );
    assert_eq!(v.t_ns, 5 * NS_PER_MS);
}

#[test]
fn a_key_lives_through_its_expiry_instant_and_is_free_just_after() {
    // Redis expires a key just after its instant: a write at exactly that instant is the
    // holder's, one nanosecond later anybody could take the lock.
    let h = keys(cast(), 1, &[S0], L0, 10);
    held(verdict(&h.clone().write_under(10 * NS_PER_MS, C0, L0), 1, 1));
    let why = violated(verdict(&h.write_under(10 * NS_PER_MS + 1, C0, L0), 1, 1)).why;
    assert!(
        why.ends_with("server-0 has its key expired (at 0.010 s, its clock reads 0.010 s)"),
        "{why}"
    );
}

#[test]
fn a_write_under_an_earlier_lease_is_stale_even_when_its_writer_holds_again() {
    // Kleppmann's delayed packet can land while its own sender holds a later lease.
    let h = keys(cast(), 1, &[S0], L0_LATER, 10_000).write_under(2 * NS_PER_MS, C0, L0);
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
        restart_after_ns: Some(NS_PER_MS),
    };
    let h = keys(cast(), 1, &[S0, S1, S2], L0, 10_000)
        .obs(2 * NS_PER_MS, S2, lost)
        .at(2 * NS_PER_MS, S2, crash)
        .write_under(3 * NS_PER_MS, C0, L0);
    held(verdict(&h, 5, 3));
    let h = h
        .at(4 * NS_PER_MS, S2, What::Restart)
        .write_under(5 * NS_PER_MS, C0, L0);
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
    let h = role(h, 2, S2, false, "restarted, unavailable (delayed restart)").write_under(3 * NS_PER_MS, C0, L0);
    held(verdict(&h, 5, 3));
    let h = role(h, 4, S2, true, "available again").write_under(5 * NS_PER_MS, C0, L0);
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
    let h = keys(h, 1, &[S3, S4], L1, 10_000).write_under(2 * NS_PER_MS, C0, L0);
    held(verdict(&h, 5, 3));
}

#[test]
fn an_election_changes_nothing_and_a_new_leader_without_the_key_makes_it_stale() {
    // etcd-style, 3 members, the leader speaks for the store (quorum 1 of the members that
    // serve). Between leaders nobody can grant anything.
    let h = role(cast(), 0, S1, false, "follower");
    let h = role(h, 0, S2, false, "follower");
    let h = keys(h, 1, &[S0], L0, 10_000);
    let h = role(h, 2, S0, false, "follower").write_under(3 * NS_PER_MS, C0, L0);
    held(verdict(&h, 3, 1));
    let h = keys(role(h, 4, S1, true, "leader"), 4, &[S1], L0, 12_000).write_under(5 * NS_PER_MS, C0, L0);
    held(verdict(&h, 3, 1));
    let h = h
        .obs(6 * NS_PER_MS, S1, LockObs::KeyExpired { lease: L0 })
        .write_under(7 * NS_PER_MS, C0, L0);
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
    let h = keys(h, 1, &[S0], L0, 10_000).at(2 * NS_PER_MS, S0, pause);
    let h = role(h, 3, S1, true, "leader");
    let h = keys(h, 4, &[S1], L1, 14_000).write_under(5 * NS_PER_MS, C1, L1);
    let mut alone = setup(&SERVERS[..3], 1);
    let judged = |h: &Hist, setup: &LockSetup| {
        let h = h.clone().build();
        judge(&h, setup, STALE_WRITE)
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
    let h = role(h, 6, S0, true, "leader").write_under(7 * NS_PER_MS, C1, L1);
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
    let h = keys(cast(), 1, &[S0], L1, 10_000).obs(2 * NS_PER_MS, S0, applied);
    let why = violated(verdict(&h, 1, 1)).why;
    assert!(why.ends_with("server-0 has the key for client-1 (lease b000)"), "{why}");
}

#[test]
fn no_accepted_write_is_not_applicable() {
    let h = keys(cast(), 1, &[S0], L0, 10_000);
    assert_eq!(not_applicable(verdict(&h, 1, 1)), "no write was accepted");
}
