//! Conformance of the PostgreSQL lease model (`locksim_protocols::postgres_lease::server`)
//! against a real PostgreSQL (issue 14, item 4).
//!
//! The test makes its own cluster (`initdb` in a temporary folder, `postgres` on a free
//! loopback port; as the `postgres` user when run as root) and seed 000's two tables, and runs
//! each case below against both the real server, through the `postgres` driver, and a fresh
//! model server fed the same statements as messages. Every step compares the two answers: a
//! claim's row count with the model's grant, a guard's rows with its `Checked`, a lock error
//! (SQLSTATE 55P03, `NOWAIT`) with its "row locked", a write's success with `Committed`. The
//! model's clocks are the real time elapsed since the case began, so expiry is compared for
//! real: a lease of 200 ms claimed again after 400 ms is free on both. Some steps check what the
//! model assumes of PostgreSQL and cannot itself be asked (now() fixed within a transaction,
//! a plain FOR UPDATE blocking until COMMIT, advisory locks ending with their session).
//!
//! The last case puts PgBouncer (transaction pooling, a pool of one) in front of the cluster.
//!
//! Without PostgreSQL's binaries (`LOCKSIM_POSTGRES_BIN`, `/usr/lib/postgresql/<v>/bin`, or
//! `initdb` on `PATH`) the test says it is skipped and passes, and without `pgbouncer` its case
//! is skipped — unless `LOCKSIM_REQUIRE_POSTGRES` is set (and not `0`), as `.ci/run` does:
//! then either fails.

mod postgres_wire;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use locksim::protocols::postgres_lease::advisory::Pooler;
use locksim::protocols::postgres_lease::keepalive::LINUX_DEFAULTS;
use locksim::protocols::postgres_lease::msg::PgMsg;
use locksim::protocols::postgres_lease::server::{ExpiryClock, IDLE, PgServer, ServerConfig};
use locksim::sim::rng::stream;
use locksim::sim::{Ctx, Effect, NodeId};
use postgres::error::SqlState;
use postgres::{Client, SimpleQueryMessage, Transaction};
use postgres_wire::{Bouncer, Cluster, bin_dir, pgbouncer};
use rand_chacha::ChaCha8Rng;

const TTL_MS: u64 = 200;
const A: u32 = 0;
const B: u32 = 1;
const LEASE_A: u64 = 0x0aaa_1111_2222_3333;
const LEASE_B: u64 = 0x0bbb_4444_5555_6666;

const SCHEMA: &str = "
    DROP TABLE IF EXISTS lease, resource;
    CREATE TABLE lease (id int PRIMARY KEY, owner bigint, epoch bigint NOT NULL, expires_at timestamptz NOT NULL);
    INSERT INTO lease VALUES (1, NULL, 0, '-infinity');
    CREATE TABLE resource (id int PRIMARY KEY, value bigint NOT NULL);
    INSERT INTO resource VALUES (1, 0);";

/// The model server beside the real one, on the real time elapsed since the case began.
struct Model {
    server: PgServer,
    rng: ChaCha8Rng,
    began: Instant,
    next_req: u64,
}

impl Model {
    fn new(idle_timeout_ms: u64) -> Self {
        Self::with(idle_timeout_ms, Pooler::None, ExpiryClock::Database)
    }

    /// A model whose lease statements read `expiry_clock`.
    fn clocked(expiry_clock: ExpiryClock) -> Self {
        Self::with(0, Pooler::None, expiry_clock)
    }

    fn with(idle_timeout_ms: u64, pooler: Pooler, expiry_clock: ExpiryClock) -> Self {
        Model {
            server: PgServer::new(ServerConfig {
                ttl_ns: TTL_MS * 1_000_000,
                expiry_clock,
                idle_timeout_ns: idle_timeout_ms * 1_000_000,
                pooler,
                keepalive: LINUX_DEFAULTS,
            }),
            rng: stream(1, "conformance"),
            began: Instant::now(),
            next_req: 1,
        }
    }

    /// Hands the server one message from client `from` now; its replies.
    fn send(&mut self, from: u32, msg: impl FnOnce(u64) -> PgMsg) -> Vec<PgMsg> {
        let req = self.next_req;
        self.next_req += 1;
        let now_ns = self.began.elapsed().as_nanos() as u64;
        let mut out = Vec::new();
        let mut ctx = Ctx::new(NodeId(9), now_ns as i64, now_ns, &mut self.rng, &mut out);
        self.server.on_msg(&mut ctx, NodeId(from), msg(req));
        replies(out)
    }

    /// `pg_try_advisory_lock` from client `from`'s session.
    fn try_lock(&mut self, from: u32) -> bool {
        let session = u64::from(from) + 1;
        let reply = self.send(from, |req| PgMsg::TryLock {
            req,
            session,
            lease: u64::from(from) + 100,
        });
        match reply.as_slice() {
            [PgMsg::Locked { ok, .. }] => *ok,
            other => panic!("model try_lock answered {other:?}"),
        }
    }

    /// `idle_in_transaction_session_timeout` fires.
    fn idle_timeout(&mut self) -> Vec<PgMsg> {
        let now_ns = self.began.elapsed().as_nanos() as u64;
        let mut out = Vec::new();
        let mut ctx = Ctx::new(NodeId(9), now_ns as i64, now_ns, &mut self.rng, &mut out);
        self.server.on_timer(&mut ctx, IDLE);
        replies(out)
    }

    fn claim(&mut self, from: u32, lease: u64) -> Option<u64> {
        let reply = self.send(from, |req| PgMsg::Claim {
            req,
            session: u64::from(from) + 1,
            lease,
            client_wall_ns: 0,
        });
        match reply.as_slice() {
            [PgMsg::Claimed { epoch, .. }] => *epoch,
            other => panic!("model claim answered {other:?}"),
        }
    }

    /// `BEGIN; SELECT value FROM resource`: the counter, in a transaction opened here.
    fn begin_and_read(&mut self, from: u32) -> u64 {
        let reply = self.send(from, |req| PgMsg::Read {
            req,
            session: u64::from(from) + 1,
            begin: true,
        });
        match reply.as_slice() {
            [PgMsg::Value { value, .. }] => *value,
            other => panic!("model read answered {other:?}"),
        }
    }

    /// The guard: `Ok(true)` one row, `Ok(false)` none, `Err` row locked (NOWAIT).
    fn check(&mut self, from: u32, lease: u64, epoch: u64) -> Result<bool, &'static str> {
        self.check_in(from, lease, epoch, false)
    }

    /// The guard, in the transaction `begin_and_read` opened when `begun`.
    fn check_in(&mut self, from: u32, lease: u64, epoch: u64, begun: bool) -> Result<bool, &'static str> {
        let reply = self.send(from, |req| PgMsg::Check {
            req,
            session: u64::from(from) + 1,
            lease,
            epoch,
            client_wall_ns: 0,
            hold: true,
            begun,
        });
        match reply.as_slice() {
            [PgMsg::Checked { ok: false, why, .. }] if why.contains("NOWAIT") => Err(why),
            [PgMsg::Checked { ok, .. }] => Ok(*ok),
            other => panic!("model guard answered {other:?}"),
        }
    }

    /// The business write and COMMIT of the guard's transaction: whether it committed.
    fn write(&mut self, from: u32, lease: u64, epoch: u64, value: u64) -> bool {
        let reply = self.send(from, |req| PgMsg::Write {
            req,
            session: u64::from(from) + 1,
            lease,
            token: Some(epoch),
            value,
            based_on: 0,
            in_tx: true,
        });
        match reply.as_slice() {
            [PgMsg::Committed { .. }] => true,
            [PgMsg::Failed { .. }] => false,
            other => panic!("model write answered {other:?}"),
        }
    }
}

fn replies(out: Vec<Effect<PgMsg, impl Sized>>) -> Vec<PgMsg> {
    out.into_iter()
        .filter_map(|e| match e {
            Effect::Send { msg, .. } => Some(msg),
            _ => None,
        })
        .collect()
}

/// Seed 000's claim in one transaction: lock the row NOWAIT, take it if free or expired by
/// clock_timestamp(). `Some(epoch)`, `None` (0 rows), or the lock error.
fn claim(c: &mut Client, lease: u64) -> Result<Option<u64>, SqlState> {
    claim_by(c, "clock_timestamp()", lease)
}

/// The claim with `ts` (`clock_timestamp()` or `now()`) for the time.
fn claim_by(c: &mut Client, ts: &str, lease: u64) -> Result<Option<u64>, SqlState> {
    let mut tx = c.transaction().expect("BEGIN");
    if let Err(e) = tx.query("SELECT 1 FROM lease WHERE id = 1 FOR UPDATE NOWAIT", &[]) {
        return Err(e.code().cloned().expect("an error with a SQLSTATE"));
    }
    let rows = tx
        .query(
            &format!(
                "UPDATE lease SET owner = $1, epoch = epoch + 1, expires_at = {ts} + interval '{TTL_MS} milliseconds'
                 WHERE id = 1 AND (owner IS NULL OR expires_at <= {ts}) RETURNING epoch"
            ),
            &[&(lease as i64)],
        )
        .expect("the claim's UPDATE");
    tx.commit().expect("COMMIT");
    Ok(rows.first().map(|r| r.get::<_, i64>(0) as u64))
}

/// Seed 000's guard, opening the write's transaction: `Ok(true)` when the row is still ours.
fn guard<'c>(tx: &mut Transaction<'c>, lease: u64, epoch: u64) -> Result<bool, SqlState> {
    guard_by(tx, "clock_timestamp()", lease, epoch)
}

/// The guard with `ts` (`clock_timestamp()` or `now()`) for the time.
fn guard_by<'c>(tx: &mut Transaction<'c>, ts: &str, lease: u64, epoch: u64) -> Result<bool, SqlState> {
    match tx.query(
        &format!("SELECT owner FROM lease WHERE id = 1 AND epoch = $1 AND expires_at > {ts} FOR UPDATE NOWAIT"),
        &[&(epoch as i64)],
    ) {
        Ok(rows) => Ok(rows
            .first()
            .is_some_and(|r| r.get::<_, Option<i64>>(0) == Some(lease as i64))),
        Err(e) => Err(e.code().cloned().expect("an error with a SQLSTATE")),
    }
}

/// One case: its steps against the cluster, counted.
type Case = fn(&Cluster, &mut Steps);

/// Counts the compared steps of the run, for the closing note.
#[derive(Default)]
struct Steps {
    cases: usize,
    steps: usize,
}

impl Steps {
    fn step(&mut self) {
        self.steps += 1;
    }
}

fn now_is_the_transaction_start_and_clock_timestamp_moves(db: &Cluster, n: &mut Steps) {
    let mut c = db.connect();
    let mut tx = c.transaction().unwrap();
    let micros =
        "SELECT (extract(epoch FROM now()) * 1e6)::bigint, (extract(epoch FROM clock_timestamp()) * 1e6)::bigint";
    let first = tx.query_one(micros, &[]).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let second = tx.query_one(micros, &[]).unwrap();
    let (now1, clock1): (i64, i64) = (first.get(0), first.get(1));
    let (now2, clock2): (i64, i64) = (second.get(0), second.get(1));
    assert_eq!(now1, now2, "now() is the transaction's start, fixed within it");
    n.step();
    assert!(
        clock2 - clock1 >= 100_000,
        "clock_timestamp() moved: {clock1} -> {clock2}"
    );
    n.step();
    tx.commit().unwrap();
    // The model reads its own clock at each statement, which is clock_timestamp()'s answer:
    // a lease claimed with a TTL is free again after it on the model, as it is on the server.
    let mut m = Model::new(0);
    c.batch_execute(SCHEMA).unwrap();
    assert_eq!(claim(&mut c, LEASE_A), Ok(Some(1)));
    assert_eq!(m.claim(A, LEASE_A), Some(1));
    n.step();
    std::thread::sleep(Duration::from_millis(2 * TTL_MS));
    assert_eq!(claim(&mut c, LEASE_B), Ok(Some(2)), "expired by clock_timestamp()");
    assert_eq!(m.claim(B, LEASE_B), Some(2));
    n.step();
}

fn the_claims_row_count_is_the_models_grant(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    let mut m = Model::new(0);
    // A claims; B's claim while A's lease is live updates 0 rows; after the TTL it updates 1.
    for (who, c, lease, real, model) in [(A, &mut a, LEASE_A, Some(1), Some(1)), (B, &mut b, LEASE_B, None, None)] {
        assert_eq!(claim(c, lease), Ok(real), "client {who}");
        assert_eq!(m.claim(who, lease), model, "model, client {who}");
        n.step();
    }
    // A's release at a stale epoch changes nothing; at its own it frees the row at once.
    let stale = a
        .execute(
            "UPDATE lease SET owner = NULL WHERE id = 1 AND epoch = 0 AND owner = $1",
            &[&(LEASE_A as i64)],
        )
        .unwrap();
    assert_eq!(stale, 0);
    n.step();
    let released = a
        .execute(
            "UPDATE lease SET owner = NULL WHERE id = 1 AND epoch = 1 AND owner = $1",
            &[&(LEASE_A as i64)],
        )
        .unwrap();
    assert_eq!(released, 1);
    m.send(A, |_| PgMsg::Release {
        session: 1,
        lease: LEASE_A,
        epoch: 1,
    });
    assert_eq!(claim(&mut b, LEASE_B), Ok(Some(2)), "free once released");
    assert_eq!(m.claim(B, LEASE_B), Some(2));
    n.step();
}

fn a_guard_holds_the_row_until_commit_and_claims_fail_nowait(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    let mut m = Model::new(0);
    assert_eq!(claim(&mut a, LEASE_A), Ok(Some(1)));
    assert_eq!(m.claim(A, LEASE_A), Some(1));
    n.step();
    let mut tx = a.transaction().unwrap();
    assert_eq!(guard(&mut tx, LEASE_A, 1), Ok(true));
    assert_eq!(m.check(A, LEASE_A, 1), Ok(true));
    n.step();
    // A guard that qualifies — A's own lease and epoch, from another connection (A restarted
    // and reconnected) — meets A's open transaction's lock: NOWAIT fails, on both.
    let mut btx = b.transaction().unwrap();
    assert_eq!(guard(&mut btx, LEASE_A, 1), Err(SqlState::LOCK_NOT_AVAILABLE));
    assert!(m.check(B, LEASE_A, 1).is_err(), "model: row locked");
    n.step();
    btx.rollback().unwrap();
    // Past the lease, the row is still locked by A's open transaction: B's claim fails NOWAIT.
    std::thread::sleep(Duration::from_millis(2 * TTL_MS));
    assert_eq!(claim(&mut b, LEASE_B), Err(SqlState::LOCK_NOT_AVAILABLE));
    assert_eq!(m.claim(B, LEASE_B), None);
    n.step();
    // A guard whose WHERE no longer holds (the lease expired) answers 0 rows without trying
    // the lock: PostgreSQL tests the row's committed version first.
    let mut btx = b.transaction().unwrap();
    assert_eq!(guard(&mut btx, LEASE_A, 1), Ok(false));
    assert_eq!(m.check(B, LEASE_A, 1), Ok(false));
    n.step();
    btx.rollback().unwrap();
    // A's late write commits; then B's claim goes through (the lease expired meanwhile).
    tx.execute("UPDATE resource SET value = 1 WHERE id = 1", &[]).unwrap();
    tx.commit().unwrap();
    assert!(m.write(A, LEASE_A, 1, 1));
    n.step();
    assert_eq!(claim(&mut b, LEASE_B), Ok(Some(2)));
    assert_eq!(m.claim(B, LEASE_B), Some(2));
    n.step();
    // A's guard at its old epoch now finds no row, on both.
    let mut tx = a.transaction().unwrap();
    assert_eq!(guard(&mut tx, LEASE_A, 1), Ok(false));
    assert_eq!(m.check(A, LEASE_A, 1), Ok(false));
    n.step();
}

fn a_plain_for_update_blocks_a_second_locker_until_commit(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    let mut tx = a.transaction().unwrap();
    tx.query("SELECT 1 FROM lease WHERE id = 1 FOR UPDATE", &[]).unwrap();
    let (done, finished) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut btx = b.transaction().unwrap();
        btx.query("SELECT 1 FROM lease WHERE id = 1 FOR UPDATE", &[]).unwrap();
        done.send(()).unwrap();
        btx.commit().unwrap();
    });
    assert!(
        finished.recv_timeout(Duration::from_millis(300)).is_err(),
        "the second FOR UPDATE waits while the first transaction is open"
    );
    n.step();
    tx.commit().unwrap();
    finished
        .recv_timeout(Duration::from_secs(5))
        .expect("the second FOR UPDATE returns once the first transaction commits");
    waiter.join().unwrap();
    n.step();
}

fn idle_in_transaction_timeout_aborts_the_paused_holder(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    a.batch_execute("SET idle_in_transaction_session_timeout = '300ms'")
        .unwrap();
    let mut m = Model::new(300);
    assert_eq!(claim(&mut a, LEASE_A), Ok(Some(1)));
    assert_eq!(m.claim(A, LEASE_A), Some(1));
    n.step();
    let mut tx = a.transaction().unwrap();
    assert_eq!(guard(&mut tx, LEASE_A, 1), Ok(true));
    assert_eq!(m.check(A, LEASE_A, 1), Ok(true));
    n.step();
    // The holder "pauses" past the timeout (and its lease): the server ends its session.
    std::thread::sleep(Duration::from_millis(2 * TTL_MS + 200));
    let terminated = m.idle_timeout();
    assert!(
        matches!(terminated.as_slice(), [PgMsg::Terminated { session: 1 }]),
        "{terminated:?}"
    );
    // The row is free: B claims it (no lock error), on both.
    assert_eq!(claim(&mut b, LEASE_B), Ok(Some(2)));
    assert_eq!(m.claim(B, LEASE_B), Some(2));
    n.step();
    // The holder wakes: its write fails, and nothing of it is committed.
    let late = tx.execute("UPDATE resource SET value = 99 WHERE id = 1", &[]);
    let err = late.expect_err("the terminated session's write fails");
    assert!(
        err.code() == Some(&SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT) || err.is_closed(),
        "{err}"
    );
    assert!(!m.write(A, LEASE_A, 1, 99));
    n.step();
    let value: i64 = b
        .query_one("SELECT value FROM resource WHERE id = 1", &[])
        .unwrap()
        .get(0);
    assert_eq!(value, 0, "the late write was never committed");
    n.step();
}

/// `expiry_clock = "transaction-start"` with `begin = "before-read"`: a guard made late in a
/// transaction begun while the lease was live reads now() = that start, and passes on a lease
/// that clock_timestamp() calls expired; its row lock then keeps a claim out until COMMIT.
/// And the epoch in the guard's WHERE catches a claim made while the transaction stood open.
fn a_guard_on_now_in_a_transaction_begun_before_expiry(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    let mut on_now = Model::clocked(ExpiryClock::TransactionStart);
    let mut on_clock = Model::clocked(ExpiryClock::Database);
    assert_eq!(claim_by(&mut a, "now()", LEASE_A), Ok(Some(1)));
    assert_eq!(on_now.claim(A, LEASE_A), Some(1));
    assert_eq!(on_clock.claim(A, LEASE_A), Some(1));
    n.step();
    // A opens the write's transaction and reads while its lease is live, then works past it.
    let mut tx = a.transaction().unwrap();
    let read = "SELECT value FROM resource WHERE id = 1";
    assert_eq!(tx.query_one(read, &[]).unwrap().get::<_, i64>(0), 0);
    assert_eq!(on_now.begin_and_read(A), 0);
    assert_eq!(on_clock.begin_and_read(A), 0);
    std::thread::sleep(Duration::from_millis(2 * TTL_MS));
    // In that one transaction, clock_timestamp() sees the expiry: 0 rows, nothing locked ...
    assert_eq!(guard_by(&mut tx, "clock_timestamp()", LEASE_A, 1), Ok(false));
    assert_eq!(on_clock.check_in(A, LEASE_A, 1, true), Ok(false));
    n.step();
    // ... and now(), the transaction's start, does not: 1 row, and the row is locked.
    assert_eq!(guard_by(&mut tx, "now()", LEASE_A, 1), Ok(true));
    assert_eq!(on_now.check_in(A, LEASE_A, 1, true), Ok(true));
    n.step();
    // B's claim, on now() in its own fresh transaction, finds the expired row locked.
    assert_eq!(claim_by(&mut b, "now()", LEASE_B), Err(SqlState::LOCK_NOT_AVAILABLE));
    assert_eq!(on_now.claim(B, LEASE_B), None);
    n.step();
    // A's late write commits, and only then does B's claim go through.
    tx.execute("UPDATE resource SET value = 1 WHERE id = 1", &[]).unwrap();
    tx.commit().unwrap();
    assert!(on_now.write(A, LEASE_A, 1, 1));
    assert_eq!(claim_by(&mut b, "now()", LEASE_B), Ok(Some(2)));
    assert_eq!(on_now.claim(B, LEASE_B), Some(2));
    n.step();
    // A opens a transaction while B's lease is live; B's lease expires, A claims again
    // (epoch 3) from another connection of its own — say it restarted — and the old
    // transaction's guard on now() at B's epoch, though now() says B's lease is live, finds
    // the epoch moved: 0 rows.
    let mut stale = b.transaction().unwrap();
    assert_eq!(stale.query_one(read, &[]).unwrap().get::<_, i64>(0), 1);
    assert_eq!(on_now.begin_and_read(B), 1);
    std::thread::sleep(Duration::from_millis(2 * TTL_MS));
    assert_eq!(claim_by(&mut a, "now()", LEASE_A), Ok(Some(3)));
    assert_eq!(on_now.claim(A, LEASE_A), Some(3));
    n.step();
    assert_eq!(guard_by(&mut stale, "now()", LEASE_B, 2), Ok(false));
    assert_eq!(on_now.check_in(B, LEASE_B, 2, true), Ok(false));
    n.step();
}

/// What the model's claims never do (they lock NOWAIT) but a plain `FOR UPDATE` claim would:
/// wait for the holder's COMMIT. The waiting transaction's now() is still its own start, so
/// after the wait it calls a lease live that clock_timestamp() calls expired — a claim on
/// now() that waited refuses, which costs a retry, never safety.
fn a_waiting_transactions_now_is_its_start(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    a.batch_execute(SCHEMA).unwrap();
    assert_eq!(claim(&mut a, LEASE_A), Ok(Some(1)));
    let mut tx = a.transaction().unwrap();
    assert_eq!(guard(&mut tx, LEASE_A, 1), Ok(true));
    let (done, answered) = mpsc::channel();
    let (begun, has_begun) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut btx = b.transaction().unwrap();
        let micros = "SELECT (extract(epoch FROM now()) * 1e6)::bigint";
        let began: i64 = btx.query_one(micros, &[]).unwrap().get(0);
        begun.send(()).unwrap();
        btx.query("SELECT 1 FROM lease WHERE id = 1 FOR UPDATE", &[]).unwrap();
        let row = btx
            .query_one(
                "SELECT (extract(epoch FROM now()) * 1e6)::bigint, (extract(epoch FROM clock_timestamp()) * 1e6)::bigint,
                        expires_at <= now(), expires_at <= clock_timestamp() FROM lease WHERE id = 1",
                &[],
            )
            .unwrap();
        btx.rollback().unwrap();
        let answer: (i64, i64, i64, bool, bool) = (began, row.get(0), row.get(1), row.get(2), row.get(3));
        done.send(answer).unwrap();
    });
    // The wait is timed from the waiter's start, not from its spawn: its now() is then at least
    // this long before the commit releases it, however late a loaded host runs its thread.
    has_begun
        .recv_timeout(Duration::from_secs(5))
        .expect("the waiter began");
    std::thread::sleep(Duration::from_millis(2 * TTL_MS));
    tx.commit().unwrap();
    let (began, now_after, clock_after, expired_by_now, expired_by_clock) = answered
        .recv_timeout(Duration::from_secs(5))
        .expect("the waiter got the row");
    waiter.join().unwrap();
    assert_eq!(
        began, now_after,
        "now() after the wait is the waiting transaction's start"
    );
    assert!(
        clock_after - now_after >= (2 * TTL_MS * 1_000) as i64,
        "clock_timestamp() moved on through the wait: {now_after} -> {clock_after}"
    );
    n.step();
    assert!(
        !expired_by_now && expired_by_clock,
        "after the wait, now() calls the lease live, clock_timestamp() expired"
    );
    n.step();
}

/// What the model's keepalive defaults stand for: PostgreSQL ships `tcp_keepalives_* = 0`,
/// which on a TCP connection means the kernel's own settings — what `SHOW` then reads, and
/// what `/proc/sys/net/ipv4/tcp_keepalive_*` hold (Linux: 7200 s, 75 s, 9 probes, the
/// model's `LINUX_DEFAULTS`).
fn keepalive_defaults_are_the_kernels(db: &Cluster, n: &mut Steps) {
    let mut c = db.connect();
    let settings = [
        (
            "tcp_keepalives_idle",
            "tcp_keepalive_time",
            LINUX_DEFAULTS.idle_ns / 1_000_000_000,
        ),
        (
            "tcp_keepalives_interval",
            "tcp_keepalive_intvl",
            LINUX_DEFAULTS.interval_ns / 1_000_000_000,
        ),
        (
            "tcp_keepalives_count",
            "tcp_keepalive_probes",
            u64::from(LINUX_DEFAULTS.count),
        ),
    ];
    for (setting, proc_name, model) in settings {
        let boot = simple(
            &mut c,
            &format!("SELECT boot_val FROM pg_settings WHERE name = '{setting}'"),
        );
        assert_eq!(boot, "0", "{setting} ships as 0: the operating system's default");
        let shown: u64 = simple(&mut c, &format!("SHOW {setting}")).parse().unwrap();
        let kernel: u64 = std::fs::read_to_string(format!("/proc/sys/net/ipv4/{proc_name}"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert_eq!(shown, kernel, "{setting} over TCP reads the kernel's {proc_name}");
        if kernel != model {
            eprintln!("conformance_postgres: this host's {proc_name} is {kernel}, not Linux's default {model}");
        }
        n.step();
    }
}

fn advisory_locks_end_with_their_session(db: &Cluster, n: &mut Steps) {
    let (mut a, mut b) = (db.connect(), db.connect());
    let try_lock = "SELECT pg_try_advisory_lock(42)";
    let mut m = Model::new(0);
    assert!(a.query_one(try_lock, &[]).unwrap().get::<_, bool>(0));
    assert!(m.try_lock(A));
    n.step();
    assert!(
        !b.query_one(try_lock, &[]).unwrap().get::<_, bool>(0),
        "held by A's session"
    );
    assert!(!m.try_lock(B));
    n.step();
    // Another session cannot unlock it (what a transaction-mode pooler's next backend gets).
    let unlocked: bool = b.query_one("SELECT pg_advisory_unlock(42)", &[]).unwrap().get(0);
    assert!(!unlocked, "only the session that holds it can unlock it");
    n.step();
    // The holder disconnects: the server notices and releases the lock.
    drop(a);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !b.query_one(try_lock, &[]).unwrap().get::<_, bool>(0) {
        assert!(Instant::now() < deadline, "the lock outlived its session");
        std::thread::sleep(Duration::from_millis(20));
    }
    m.send(A, |_| PgMsg::Disconnect { session: 1 });
    assert!(m.try_lock(B), "model: released with A's session");
    n.step();
}

/// The first column of the first row of `sql`, sent with the simple query protocol (a
/// transaction-mode pooler keeps no prepared statement from one transaction to the next).
fn simple(c: &mut Client, sql: &str) -> String {
    let messages = c.simple_query(sql).unwrap();
    messages
        .iter()
        .find_map(|m| match m {
            SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
            _ => None,
        })
        .expect("a row")
}

/// PgBouncer's documentation: session-level advisory locks do not work in transaction pooling.
/// Two clients of a pool of one share its server connection, whose session holds the lock; a
/// session-level advisory lock is re-entrant, so both are told they hold it.
fn a_transaction_pooler_gives_one_session_lock_to_two_clients(db: &Cluster, n: &mut Steps) {
    let Some(program) = pgbouncer() else {
        let required = std::env::var("LOCKSIM_REQUIRE_POSTGRES").is_ok_and(|v| v != "0");
        assert!(
            !required,
            "LOCKSIM_REQUIRE_POSTGRES is set but pgbouncer is not installed"
        );
        eprintln!("conformance_postgres: pgbouncer not installed: its case is skipped");
        return;
    };
    let bouncer = Bouncer::start(&program, db);
    let (mut x, mut y, mut direct) = (bouncer.connect(), bouncer.connect(), db.connect());
    let mut m = Model::with(0, Pooler::Transaction, ExpiryClock::Database);
    assert_eq!(simple(&mut x, "SELECT pg_try_advisory_lock(7)"), "t");
    assert!(m.try_lock(A));
    n.step();
    assert_eq!(
        simple(&mut y, "SELECT pg_try_advisory_lock(7)"),
        "t",
        "the second client gets the same server session, which already holds the lock"
    );
    assert!(m.try_lock(B), "model: the pooled session holds it");
    n.step();
    assert_eq!(simple(&mut direct, "SELECT pg_try_advisory_lock(7)"), "f");
    n.step();
    // The first client leaves: the lock stays with the pooled server connection.
    drop(x);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(simple(&mut direct, "SELECT pg_try_advisory_lock(7)"), "f");
    n.step();
    drop(y);
}

#[test]
fn the_lease_model_answers_as_postgresql_does() {
    let required = std::env::var("LOCKSIM_REQUIRE_POSTGRES").is_ok_and(|v| v != "0");
    let Some(bin) = bin_dir() else {
        assert!(
            !required,
            "LOCKSIM_REQUIRE_POSTGRES is set but no PostgreSQL binaries were found"
        );
        eprintln!("conformance_postgres: skipped (no initdb; install postgresql)");
        return;
    };
    let db = Cluster::start(&bin);
    let mut n = Steps::default();
    let cases: [(&str, Case); 10] = [
        (
            "now() vs clock_timestamp()",
            now_is_the_transaction_start_and_clock_timestamp_moves,
        ),
        ("the claim's row count", the_claims_row_count_is_the_models_grant),
        (
            "guard holds the row; NOWAIT",
            a_guard_holds_the_row_until_commit_and_claims_fail_nowait,
        ),
        (
            "FOR UPDATE blocks until COMMIT",
            a_plain_for_update_blocks_a_second_locker_until_commit,
        ),
        (
            "idle_in_transaction_session_timeout",
            idle_in_transaction_timeout_aborts_the_paused_holder,
        ),
        (
            "the guard on now() in a long transaction",
            a_guard_on_now_in_a_transaction_begun_before_expiry,
        ),
        ("a waiting transaction's now()", a_waiting_transactions_now_is_its_start),
        ("advisory locks and sessions", advisory_locks_end_with_their_session),
        ("keepalive defaults", keepalive_defaults_are_the_kernels),
        (
            "pgbouncer transaction pooling",
            a_transaction_pooler_gives_one_session_lock_to_two_clients,
        ),
    ];
    for (name, case) in cases {
        let before = n.steps;
        case(&db, &mut n);
        n.cases += 1;
        eprintln!("conformance_postgres: {name}: {} steps", n.steps - before);
    }
    eprintln!("conformance_postgres: {} cases, {} steps", n.cases, n.steps);
}
