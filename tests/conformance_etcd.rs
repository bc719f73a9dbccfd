//! Conformance of the etcd store model (`locksim_protocols::etcd::kv::Kv`) against a real
//! single-member etcd 3.4 (issue 4, "Conformance against a real etcd").
//!
//! Each case below is a named list of steps — a request and the pause before it. For every case
//! the test starts a fresh, private etcd (free loopback client and peer ports, a temporary data
//! dir; a fresh one because a revision can never be reset, and a fresh store is at revision 1 on
//! both sides), runs each step against it and against a fresh model `Kv`, and compares:
//! - the step's outcome: success or refusal (`lease not found`, `lease already exists`,
//!   `duplicate key given in txn request`), which branch a transaction took and each of its
//!   operations' results, the keys a range returned (in order, with their value,
//!   `create_revision`, `mod_revision`, `version` and lease), how many keys a delete deleted, a
//!   granted lease's TTL, and the store's revision after the step (a reply's `header.revision`);
//! - after every step, the whole store: every key with all its fields, and the revision.
//!
//! Lease expiry is compared for real: an `expire` step waits until etcd reports the lease gone
//! (`/v3/lease/timetolive` answers TTL -1; never before the TTL has run out since the grant was
//! sent, which is checked) and then revokes it in the model, since expiry is the model server's
//! job and a revoke in the store. etcd's minimum TTL is 2 s (1.5 × its 1 s election timeout,
//! rounded up): the cases grant nothing shorter, and compare the TTL etcd answers with the
//! model's.
//!
//! The transport is etcd's JSON gateway over plain HTTP (see `etcd_wire`), not `etcdctl`; note
//! that `etcdctl lock`'s `ETCD_LOCK_REV` is a header revision, not the lock key's
//! `create_revision`, so the lock recipe is spelt out here as clientv3's `Mutex` does it.
//!
//! Without an `etcd` (on `PATH` or at `/usr/bin/etcd`) the test says it is skipped and passes —
//! unless `LOCKSIM_REQUIRE_ETCD` is set (and not `0`), as `.ci/run` does: then it fails.

mod etcd_wire;

use std::collections::BTreeMap;
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use etcd_wire::{EtcdServer, b64, bool_field, header_revision, int_field, prefix_range_end, text_field};
use locksim::load::parse_scenario;
use locksim::protocols::run;
use locksim::sim::Recording;
use locksim::sim::trace::TraceEvent;
use locksim_protocols::etcd::kv::{
    CmpOp, Compare, KeyValue, Kv, KvError, Op, OpResult, Order, Range, Target, TxnResult,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// The cases.

/// What a step does.
#[derive(Clone, Debug)]
enum Action {
    Put {
        key: String,
        value: String,
        lease: i64,
    },
    Delete(String),
    Get(Range),
    Txn {
        compares: Vec<Compare>,
        success: Vec<Op>,
        failure: Vec<Op>,
    },
    Grant {
        id: i64,
        ttl_s: i64,
    },
    Revoke(i64),
    /// Waits until etcd has expired the lease, then revokes it in the model.
    Expire(i64),
}

struct Step {
    pause_ms: u64,
    action: Action,
}

struct Case {
    name: &'static str,
    steps: Vec<Step>,
}

/// A step right after the previous one.
fn now(action: Action) -> Step {
    Step { pause_ms: 0, action }
}

/// A step `ms` milliseconds after the previous one.
fn after(ms: u64, action: Action) -> Step {
    Step { pause_ms: ms, action }
}

fn put(key: &str, value: &str) -> Action {
    put_lease(key, value, 0)
}

fn put_lease(key: &str, value: &str, lease: i64) -> Action {
    Action::Put {
        key: key.into(),
        value: value.into(),
        lease,
    }
}

fn del(key: &str) -> Action {
    Action::Delete(key.into())
}

fn get(key: &str) -> Action {
    Action::Get(Range::key(key))
}

fn range(key: &str, order: Order, max_create_revision: i64, limit: usize) -> Range {
    Range::prefix(key, order, max_create_revision, limit)
}

/// Every key under `prefix`, in key order.
fn prefix(prefix: &str) -> Range {
    range(prefix, Order::ByKey, 0, 0)
}

/// clientv3's `WithFirstCreate()`: the oldest key under the prefix (the lock's owner).
fn first_create(prefix: &str) -> Range {
    range(prefix, Order::FirstCreate, 0, 1)
}

/// clientv3's `WithLastCreate()` + `WithMaxCreateRev(max)`: the newest key under the prefix
/// created at or before `max` (a waiter's predecessor, with `max` = its own revision - 1).
fn last_create(prefix: &str, max: i64) -> Range {
    range(prefix, Order::LastCreate, max, 1)
}

fn txn(compares: Vec<Compare>, success: Vec<Op>, failure: Vec<Op>) -> Action {
    Action::Txn {
        compares,
        success,
        failure,
    }
}

fn op_put(key: &str, value: &str, lease: i64) -> Op {
    Op::Put {
        key: key.into(),
        value: value.into(),
        lease,
    }
}

fn op_del(key: &str) -> Op {
    Op::Delete { key: key.into() }
}

fn op_get(r: Range) -> Op {
    Op::Range(r)
}

fn cmp(key: &str, op: CmpOp, target: Target) -> Compare {
    Compare {
        key: key.into(),
        op,
        target,
    }
}

fn create(key: &str, op: CmpOp, rev: i64) -> Compare {
    cmp(key, op, Target::CreateRevision(rev))
}

fn modr(key: &str, op: CmpOp, rev: i64) -> Compare {
    cmp(key, op, Target::ModRevision(rev))
}

fn version(key: &str, op: CmpOp, v: i64) -> Compare {
    cmp(key, op, Target::Version(v))
}

fn value(key: &str, op: CmpOp, v: &str) -> Compare {
    cmp(key, op, Target::Value(v.into()))
}

/// A transaction of one compare that writes `hit` when it holds, so that the branch taken
/// shows in the revision and the store too.
fn check(c: Compare) -> Action {
    txn(vec![c], vec![op_put("hit", "", 0)], vec![])
}

fn grant(id: i64, ttl_s: i64) -> Action {
    Action::Grant { id, ttl_s }
}

fn revoke(id: i64) -> Action {
    Action::Revoke(id)
}

fn expire(id: i64) -> Action {
    Action::Expire(id)
}

/// The lock key of the session with `lease` under `pfx`, as clientv3 names it.
fn lock_key(pfx: &str, lease: i64) -> String {
    format!("{pfx}{lease:x}")
}

/// clientv3 `Mutex.tryAcquire` (3.4): if my key does not exist yet, put it with my lease and
/// read the owner; else read my key (its `create_revision` is my revision) and the owner.
fn lock(pfx: &str, lease: i64) -> Action {
    let me = lock_key(pfx, lease);
    txn(
        vec![create(&me, CmpOp::Equal, 0)],
        vec![op_put(&me, "", lease), op_get(first_create(pfx))],
        vec![op_get(Range::key(&me)), op_get(first_create(pfx))],
    )
}

/// A waiter's query in clientv3's `waitDeletes`: the key it waits on, if any.
fn predecessor(pfx: &str, my_rev: i64) -> Action {
    Action::Get(last_create(pfx, my_rev - 1))
}

/// The `etcd-txn` resource's write: `counter := value` only while the lock key still has the
/// `create_revision` `token`; else read the counter.
fn fenced_write(lock_key: &str, token: i64, value: &str) -> Action {
    txn(
        vec![create(lock_key, CmpOp::Equal, token)],
        vec![op_put("/counter", value, 0)],
        vec![op_get(Range::key("/counter"))],
    )
}

fn cases() -> Vec<Case> {
    use CmpOp::{Equal, Greater, Less, NotEqual};
    let l = "/lock/l/";
    vec![
        Case {
            name: "a new store is at revision 1; every put is one revision; a re-put keeps create_revision",
            steps: vec![
                now(get("a")),
                now(put("a", "1")),
                now(put("b", "1")),
                now(put("a", "2")),
                now(get("a")),
                now(get("missing")),
                now(Action::Get(prefix(""))),
            ],
        },
        Case {
            name: "a delete of a missing key is no write; a re-created key starts over at version 1",
            steps: vec![
                now(del("missing")),
                now(put("a", "1")),
                now(put("a", "2")),
                now(del("a")),
                now(del("a")),
                now(get("a")),
                now(put("a", "3")),
                now(get("a")),
                now(put("a", "4")),
                now(get("a")),
            ],
        },
        Case {
            name: "a txn's writes share one revision and its reads see them; a txn writing nothing keeps the revision",
            steps: vec![
                now(txn(
                    vec![],
                    vec![op_put("x", "1", 0), op_put("y", "1", 0), op_get(prefix(""))],
                    vec![],
                )),
                now(txn(
                    vec![create("x", Equal, 0)],
                    vec![op_put("x", "2", 0)],
                    vec![op_get(Range::key("x")), op_get(prefix(""))],
                )),
                now(txn(vec![], vec![op_del("nope"), op_del("nope2")], vec![])),
                now(txn(vec![], vec![op_del("nope"), op_get(Range::key("y"))], vec![])),
                now(txn(vec![create("y", Greater, 0)], vec![], vec![])),
                now(txn(
                    vec![],
                    vec![op_del("x"), op_put("z", "1", 0), op_get(prefix(""))],
                    vec![],
                )),
                now(txn(vec![], vec![op_del("y"), op_del("y")], vec![])),
                now(txn(vec![], vec![op_put("z", "2", 0), op_del("nope")], vec![])),
                now(get("z")),
            ],
        },
        Case {
            name: "a branch that puts a key twice, or puts and deletes it, is refused, even the branch not taken",
            steps: vec![
                now(put("a", "1")),
                now(txn(vec![], vec![op_put("a", "x", 0), op_put("a", "y", 0)], vec![])),
                now(txn(vec![], vec![op_del("a"), op_put("a", "x", 0)], vec![])),
                now(txn(vec![], vec![op_put("b", "x", 0), op_del("b")], vec![])),
                now(txn(
                    vec![create("a", Equal, 2)],
                    vec![op_put("c", "1", 0)],
                    vec![op_put("a", "x", 0), op_put("a", "y", 0)],
                )),
                now(txn(
                    vec![],
                    vec![op_put("a", "x", 0x77), op_put("a", "y", 0x77)],
                    vec![],
                )),
                now(txn(vec![], vec![op_put("a", "x", 0x77), op_put("b", "y", 0)], vec![])),
                now(txn(vec![], vec![op_put("a", "x", 0), op_put("b", "y", 0)], vec![])),
                now(get("a")),
            ],
        },
        Case {
            name: "compares on create/mod revision, version and value with =, !=, >, <; a missing key",
            steps: vec![
                now(put("k", "b")),
                now(put("k", "c")),
                now(put("e", "")),
                now(check(create("k", Equal, 2))),
                now(check(create("k", NotEqual, 2))),
                now(check(create("k", Greater, 1))),
                now(check(create("k", Less, 2))),
                now(check(modr("k", Equal, 3))),
                now(check(modr("k", Greater, 3))),
                now(check(modr("k", Less, 4))),
                now(check(modr("k", NotEqual, 2))),
                now(check(version("k", Equal, 2))),
                now(check(version("k", Greater, 2))),
                now(check(version("k", Less, 3))),
                now(check(value("k", Equal, "c"))),
                now(check(value("k", NotEqual, "c"))),
                now(check(value("k", Greater, "b"))),
                now(check(value("k", Less, "b"))),
                now(check(value("e", Equal, ""))),
                now(check(create("m", Equal, 0))),
                now(check(create("m", Greater, 0))),
                now(check(modr("m", Equal, 0))),
                now(check(version("m", Equal, 0))),
                now(check(version("m", Less, 1))),
                now(check(value("m", Equal, ""))),
                now(check(value("m", NotEqual, "c"))),
                now(txn(
                    vec![create("k", Equal, 2), modr("k", Equal, 3)],
                    vec![op_put("both", "", 0)],
                    vec![op_get(Range::key("k"))],
                )),
                now(txn(
                    vec![create("k", Equal, 2), modr("k", Equal, 2)],
                    vec![op_put("both", "", 0)],
                    vec![op_get(Range::key("k"))],
                )),
            ],
        },
        Case {
            name: "ranges: a prefix in key order, first/last create, max_create_revision, limit",
            steps: vec![
                now(put("/r/c", "1")),
                now(put("/r/a", "1")),
                now(put("/r/b", "1")),
                now(put("/r0", "past the prefix's range end")),
                now(put("/r", "before the prefix")),
                now(put("/q/x", "1")),
                now(put("/r/c", "2")),
                now(Action::Get(prefix("/r/"))),
                now(Action::Get(first_create("/r/"))),
                now(Action::Get(last_create("/r/", 0))),
                now(Action::Get(last_create("/r/", 3))),
                now(Action::Get(last_create("/r/", 2))),
                now(Action::Get(last_create("/r/", 1))),
                now(Action::Get(range("/r/", Order::FirstCreate, 3, 0))),
                now(Action::Get(range("/r/", Order::LastCreate, 0, 0))),
                now(Action::Get(range("/r/", Order::ByKey, 0, 2))),
                now(Action::Get(range("/r/", Order::ByKey, 3, 0))),
                now(Action::Get(range("/r/", Order::ByKey, 2, 1))),
                now(Action::Get(range("/r/", Order::FirstCreate, 4, 2))),
                now(Action::Get(first_create("/nothing/"))),
                now(get("/r")),
            ],
        },
        Case {
            name: "the lock recipe: owner = first create, predecessor = last create before mine, unlock hands over",
            steps: vec![
                now(grant(0x7a1, 60)),
                now(grant(0x3b2, 60)),
                now(grant(0x5c3, 60)),
                now(lock(l, 0x7a1)),
                now(lock(l, 0x3b2)),
                now(lock(l, 0x5c3)),
                now(lock(l, 0x3b2)),
                now(predecessor(l, 2)),
                now(predecessor(l, 3)),
                now(predecessor(l, 4)),
                now(del(&lock_key(l, 0x7a1))),
                now(Action::Get(first_create(l))),
                now(predecessor(l, 3)),
                now(revoke(0x3b2)),
                now(Action::Get(first_create(l))),
                now(predecessor(l, 4)),
            ],
        },
        Case {
            name: "leases: a client-chosen ID once; a put with an unknown lease fails, in a txn the whole txn",
            steps: vec![
                now(grant(0x10, 10)),
                now(grant(0x10, 20)),
                now(put_lease("k", "", 0x99)),
                now(put_lease("k", "", 0x10)),
                now(get("k")),
                now(txn(vec![], vec![op_put("a", "", 0), op_put("b", "", 0x99)], vec![])),
                now(txn(
                    vec![create("k", Equal, 0)],
                    vec![op_put("c", "", 0x99)],
                    vec![op_get(Range::key("k"))],
                )),
                now(txn(
                    vec![create("k", Greater, 0)],
                    vec![op_put("c", "", 0x99)],
                    vec![op_get(Range::key("k"))],
                )),
                now(revoke(0x99)),
                now(get("k")),
            ],
        },
        Case {
            name: "revoke deletes every attached key in one revision; detached and moved keys survive",
            steps: vec![
                now(grant(0x20, 60)),
                now(grant(0x21, 60)),
                now(put_lease("k1", "", 0x20)),
                now(put_lease("k2", "", 0x20)),
                now(put_lease("k3", "", 0x20)),
                now(put_lease("k4", "", 0x21)),
                now(put("k5", "")),
                now(put_lease("k6", "", 0x20)),
                now(put_lease("k7", "", 0x20)),
                now(put("k2", "re-put without the lease")),
                now(put_lease("k3", "moved", 0x21)),
                now(del("k6")),
                now(revoke(0x20)),
                now(Action::Get(prefix(""))),
                now(revoke(0x20)),
                now(put_lease("k8", "", 0x20)),
                now(del("k4")),
                now(del("k3")),
                now(revoke(0x21)),
                now(grant(0x22, 60)),
                now(revoke(0x22)),
            ],
        },
        Case {
            name: "fencing in the store: a write compares the lock key's create_revision with its token",
            steps: vec![
                now(grant(0xa, 60)),
                now(grant(0xb, 60)),
                now(lock(l, 0xa)),
                now(lock(l, 0xb)),
                now(fenced_write(&lock_key(l, 0xa), 2, "1")),
                now(fenced_write(&lock_key(l, 0xb), 3, "x")),
                now(revoke(0xa)),
                now(Action::Get(first_create(l))),
                now(predecessor(l, 3)),
                now(fenced_write(&lock_key(l, 0xa), 2, "2")),
                now(fenced_write(&lock_key(l, 0xb), 3, "2")),
                now(lock(l, 0xa)),
                now(fenced_write(&lock_key(l, 0xa), 2, "3")),
            ],
        },
        Case {
            name: "lease expiry (real, 2 s): the keys outlive 1 s, then all go in one revision; the waiter owns",
            steps: vec![
                now(grant(0x2, 2)),
                now(grant(0x3, 2)),
                now(grant(0x60, 60)),
                now(lock(l, 0x2)),
                now(put_lease("/session/2", "", 0x2)),
                now(lock(l, 0x60)),
                after(1000, Action::Get(prefix(""))),
                now(predecessor(l, 4)),
                now(expire(0x2)),
                now(expire(0x3)),
                now(Action::Get(first_create(l))),
                now(predecessor(l, 4)),
                now(fenced_write(&lock_key(l, 0x2), 2, "late")),
                now(fenced_write(&lock_key(l, 0x60), 4, "1")),
                now(put_lease("k", "", 0x2)),
                now(revoke(0x2)),
            ],
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// Outcomes, comparable between the model and etcd.

/// What a step gave.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    Put {
        revision: i64,
    },
    Deleted {
        deleted: i64,
        revision: i64,
    },
    Range {
        kvs: Vec<KeyValue>,
        revision: i64,
    },
    Txn {
        succeeded: bool,
        results: Vec<OpResult>,
        revision: i64,
    },
    Granted {
        ttl_ms: i64,
        revision: i64,
    },
    Revoked {
        revision: i64,
    },
    Expired {
        revision: i64,
    },
    Refused(KvError),
    /// An etcd error the model never gives.
    Error(String),
}

struct Kvs<'a>(&'a [KeyValue]);

impl fmt::Display for Kvs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, kv) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(
                f,
                "{:?}={:?} (c{} m{} v{}",
                kv.key, kv.value, kv.create_revision, kv.mod_revision, kv.version
            )?;
            if kv.lease != 0 {
                write!(f, " lease {:x}", kv.lease)?;
            }
            f.write_str(")")?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Put { revision } => write!(f, "ok @{revision}"),
            Outcome::Deleted { deleted, revision } => write!(f, "deleted {deleted} @{revision}"),
            Outcome::Range { kvs, revision } => write!(f, "{} @{revision}", Kvs(kvs)),
            Outcome::Txn {
                succeeded,
                results,
                revision,
            } => {
                f.write_str(if *succeeded { "then: " } else { "else: " })?;
                for (i, r) in results.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    match r {
                        OpResult::Put => f.write_str("put ok")?,
                        OpResult::Delete(n) => write!(f, "deleted {n}")?,
                        OpResult::Range(kvs) => write!(f, "{}", Kvs(kvs))?,
                    }
                }
                if results.is_empty() {
                    f.write_str("(nothing)")?;
                }
                write!(f, " @{revision}")
            }
            Outcome::Granted { ttl_ms, revision } => write!(f, "granted, TTL {ttl_ms} ms @{revision}"),
            Outcome::Revoked { revision } => write!(f, "revoked @{revision}"),
            Outcome::Expired { revision } => write!(f, "expired @{revision}"),
            Outcome::Refused(e) => write!(f, "refused: {e:?}"),
            Outcome::Error(e) => write!(f, "error: {e} (not an error the model gives)"),
        }
    }
}

fn show_range(r: &Range) -> String {
    let mut s = if r.prefix {
        format!("range prefix {:?}", r.key)
    } else {
        format!("range {:?}", r.key)
    };
    match r.order {
        Order::ByKey => {}
        Order::FirstCreate => s += " first-create",
        Order::LastCreate => s += " last-create",
    }
    if r.max_create_revision > 0 {
        s += &format!(" max-create-rev {}", r.max_create_revision);
    }
    if r.limit > 0 {
        s += &format!(" limit {}", r.limit);
    }
    s
}

fn show_op(op: &Op) -> String {
    match op {
        Op::Put { key, value, lease } => show_put(key, value, *lease),
        Op::Delete { key } => format!("delete {key:?}"),
        Op::Range(r) => show_range(r),
    }
}

fn show_put(key: &str, value: &str, lease: i64) -> String {
    if lease == 0 {
        format!("put {key:?}={value:?}")
    } else {
        format!("put {key:?}={value:?} lease {lease:x}")
    }
}

fn show_compare(c: &Compare) -> String {
    let op = match c.op {
        CmpOp::Equal => "=",
        CmpOp::NotEqual => "!=",
        CmpOp::Greater => ">",
        CmpOp::Less => "<",
    };
    match &c.target {
        Target::CreateRevision(v) => format!("create({:?}) {op} {v}", c.key),
        Target::ModRevision(v) => format!("mod({:?}) {op} {v}", c.key),
        Target::Version(v) => format!("version({:?}) {op} {v}", c.key),
        Target::Value(v) => format!("value({:?}) {op} {v:?}", c.key),
    }
}

fn show_action(a: &Action) -> String {
    let list = |ops: &[Op]| ops.iter().map(show_op).collect::<Vec<_>>().join(", ");
    match a {
        Action::Put { key, value, lease } => show_put(key, value, *lease),
        Action::Delete(key) => format!("delete {key:?}"),
        Action::Get(r) => show_range(r),
        Action::Txn {
            compares,
            success,
            failure,
        } => {
            let cmps = compares.iter().map(show_compare).collect::<Vec<_>>().join(" && ");
            format!("txn if [{cmps}] then [{}] else [{}]", list(success), list(failure))
        }
        Action::Grant { id, ttl_s } => format!("lease grant {id:x} TTL {ttl_s} s"),
        Action::Revoke(id) => format!("lease revoke {id:x}"),
        Action::Expire(id) => format!("lease {id:x} expires (waited for)"),
    }
}

// ---------------------------------------------------------------------------------------------
// The model.

fn model_txn(r: Result<TxnResult, KvError>) -> Outcome {
    match r {
        Ok(r) => Outcome::Txn {
            succeeded: r.succeeded,
            results: r.results,
            revision: r.revision,
        },
        Err(e) => Outcome::Refused(e),
    }
}

fn model_exec(kv: &mut Kv, a: &Action) -> Outcome {
    match a {
        Action::Put { key, value, lease } => match kv.put(key, value, *lease) {
            Ok(revision) => Outcome::Put { revision },
            Err(e) => Outcome::Refused(e),
        },
        Action::Delete(key) => {
            let (deleted, revision) = kv.delete(key);
            Outcome::Deleted { deleted, revision }
        }
        Action::Get(r) => Outcome::Range {
            kvs: kv.range(r),
            revision: kv.revision(),
        },
        Action::Txn {
            compares,
            success,
            failure,
        } => model_txn(kv.txn(compares, success, failure)),
        Action::Grant { id, ttl_s } => match kv.lease_grant(*id, ttl_s * 1000) {
            Ok(()) => Outcome::Granted {
                ttl_ms: kv.lease_ttl_ms(*id).expect("just granted"),
                revision: kv.revision(),
            },
            Err(e) => Outcome::Refused(e),
        },
        Action::Revoke(id) => match kv.lease_revoke(*id) {
            Ok((_, revision)) => Outcome::Revoked { revision },
            Err(e) => Outcome::Refused(e),
        },
        Action::Expire(id) => match kv.lease_revoke(*id) {
            Ok((_, revision)) => Outcome::Expired { revision },
            Err(e) => Outcome::Refused(e),
        },
    }
}

/// The whole model store, in key order.
fn model_state(kv: &Kv) -> (Vec<KeyValue>, i64) {
    (kv.range(&prefix("")), kv.revision())
}

// ---------------------------------------------------------------------------------------------
// etcd: requests and replies.

fn range_json(r: &Range) -> Value {
    let mut req = serde_json::Map::new();
    if r.prefix {
        // clientv3's WithPrefix: the empty prefix is the whole keyspace, ["\0", "\0").
        let key = if r.key.is_empty() {
            vec![0]
        } else {
            r.key.as_bytes().to_vec()
        };
        req.insert("key".into(), json!(b64(&key)));
        req.insert("range_end".into(), json!(b64(&prefix_range_end(r.key.as_bytes()))));
    } else {
        req.insert("key".into(), json!(b64(r.key.as_bytes())));
    }
    let (sort_order, sort_target) = match r.order {
        Order::ByKey => ("NONE", "KEY"),
        Order::FirstCreate => ("ASCEND", "CREATE"),
        Order::LastCreate => ("DESCEND", "CREATE"),
    };
    req.insert("sort_order".into(), json!(sort_order));
    req.insert("sort_target".into(), json!(sort_target));
    if r.max_create_revision > 0 {
        req.insert("max_create_revision".into(), json!(r.max_create_revision.to_string()));
    }
    if r.limit > 0 {
        req.insert("limit".into(), json!(r.limit.to_string()));
    }
    Value::Object(req)
}

fn put_json(key: &str, value: &str, lease: i64) -> Value {
    let mut req = json!({ "key": b64(key.as_bytes()), "value": b64(value.as_bytes()) });
    if lease != 0 {
        req["lease"] = json!(lease.to_string());
    }
    req
}

fn compare_json(c: &Compare) -> Value {
    let result = match c.op {
        CmpOp::Equal => "EQUAL",
        CmpOp::NotEqual => "NOT_EQUAL",
        CmpOp::Greater => "GREATER",
        CmpOp::Less => "LESS",
    };
    let mut req = json!({ "key": b64(c.key.as_bytes()), "result": result });
    let (target, field, v) = match &c.target {
        Target::CreateRevision(v) => ("CREATE", "create_revision", json!(v.to_string())),
        Target::ModRevision(v) => ("MOD", "mod_revision", json!(v.to_string())),
        Target::Version(v) => ("VERSION", "version", json!(v.to_string())),
        Target::Value(v) => ("VALUE", "value", json!(b64(v.as_bytes()))),
    };
    req["target"] = json!(target);
    req[field] = v;
    req
}

fn op_json(op: &Op) -> Value {
    match op {
        Op::Put { key, value, lease } => json!({ "request_put": put_json(key, value, *lease) }),
        Op::Delete { key } => json!({ "request_delete_range": { "key": b64(key.as_bytes()) } }),
        Op::Range(r) => json!({ "request_range": range_json(r) }),
    }
}

/// The request for `a` (not `Expire`, which polls).
fn request(a: &Action) -> (&'static str, Value) {
    match a {
        Action::Put { key, value, lease } => ("/v3/kv/put", put_json(key, value, *lease)),
        Action::Delete(key) => ("/v3/kv/deleterange", json!({ "key": b64(key.as_bytes()) })),
        Action::Get(r) => ("/v3/kv/range", range_json(r)),
        Action::Txn {
            compares,
            success,
            failure,
        } => (
            "/v3/kv/txn",
            json!({
                "compare": compares.iter().map(compare_json).collect::<Vec<_>>(),
                "success": success.iter().map(op_json).collect::<Vec<_>>(),
                "failure": failure.iter().map(op_json).collect::<Vec<_>>(),
            }),
        ),
        Action::Grant { id, ttl_s } => (
            "/v3/lease/grant",
            json!({ "ID": id.to_string(), "TTL": ttl_s.to_string() }),
        ),
        Action::Revoke(id) => ("/v3/lease/revoke", json!({ "ID": id.to_string() })),
        Action::Expire(_) => unreachable!("an expiry is waited for (`await_expiry`), not requested"),
    }
}

fn parse_kvs(v: &Value) -> Result<Vec<KeyValue>, String> {
    let Some(kvs) = v.get("kvs") else {
        return Ok(Vec::new());
    };
    let kvs = kvs.as_array().ok_or_else(|| format!("kvs is not an array: {kvs}"))?;
    kvs.iter()
        .map(|kv| {
            Ok(KeyValue {
                key: text_field(kv, "key")?,
                value: text_field(kv, "value")?,
                create_revision: int_field(kv, "create_revision")?,
                mod_revision: int_field(kv, "mod_revision")?,
                version: int_field(kv, "version")?,
                lease: int_field(kv, "lease")?,
            })
        })
        .collect()
}

fn parse_op_result(r: &Value) -> Result<OpResult, String> {
    if r.get("response_put").is_some() {
        Ok(OpResult::Put)
    } else if let Some(d) = r.get("response_delete_range") {
        Ok(OpResult::Delete(int_field(d, "deleted")?))
    } else if let Some(g) = r.get("response_range") {
        Ok(OpResult::Range(parse_kvs(g)?))
    } else {
        Err(format!("a txn response of no known kind: {r}"))
    }
}

/// etcd's reply to `a` as an outcome; `Err` when the reply is not what the API promises.
fn parse(a: &Action, reply: &etcd_wire::Reply) -> Result<Outcome, String> {
    if let Some(msg) = reply.error() {
        return Ok(if msg.contains("requested lease not found") {
            Outcome::Refused(KvError::LeaseNotFound)
        } else if msg.contains("lease already exists") {
            Outcome::Refused(KvError::LeaseExists)
        } else if msg.contains("duplicate key given in txn request") {
            Outcome::Refused(KvError::DuplicateKey)
        } else {
            Outcome::Error(msg)
        });
    }
    let body = &reply.body;
    let revision = header_revision(body)?;
    Ok(match a {
        Action::Put { .. } => Outcome::Put { revision },
        Action::Delete(_) => Outcome::Deleted {
            deleted: int_field(body, "deleted")?,
            revision,
        },
        Action::Get(_) => Outcome::Range {
            kvs: parse_kvs(body)?,
            revision,
        },
        Action::Txn { .. } => Outcome::Txn {
            succeeded: bool_field(body, "succeeded")?,
            results: match body.get("responses") {
                None => Vec::new(),
                Some(rs) => rs
                    .as_array()
                    .ok_or_else(|| format!("responses is not an array: {rs}"))?
                    .iter()
                    .map(parse_op_result)
                    .collect::<Result<_, _>>()?,
            },
            revision,
        },
        Action::Grant { .. } => Outcome::Granted {
            ttl_ms: int_field(body, "TTL")? * 1000,
            revision,
        },
        Action::Revoke(_) => Outcome::Revoked { revision },
        Action::Expire(_) => Outcome::Expired { revision },
    })
}

/// The whole etcd keyspace, in key order, and the revision.
fn etcd_state(server: &EtcdServer) -> Result<(Vec<KeyValue>, i64), String> {
    let reply = server
        .post("/v3/kv/range", &range_json(&prefix("")))
        .map_err(|e| format!("reading the whole store: {e}"))?;
    if let Some(e) = reply.error() {
        return Err(format!("reading the whole store: {e}"));
    }
    Ok((parse_kvs(&reply.body)?, header_revision(&reply.body)?))
}

/// Waits until etcd has expired lease `id` (`timetolive` answers TTL -1), then reads the
/// revision (a linearizable read, so after the revoke the expiry proposed is applied). Checks
/// that it did not expire before its TTL, counted from when the grant was sent.
fn await_expiry(server: &EtcdServer, id: i64, granted: Option<(Instant, i64)>) -> Result<(Outcome, String), String> {
    let (sent, ttl_s) = granted.ok_or_else(|| format!("lease {id:x} expires but this case never granted it"))?;
    let ttl = Duration::from_secs(ttl_s.unsigned_abs());
    let deadline = sent + ttl + Duration::from_secs(15);
    loop {
        let reply = server
            .post("/v3/lease/timetolive", &json!({ "ID": id.to_string() }))
            .map_err(|e| format!("lease timetolive: {e}"))?;
        if let Some(e) = reply.error() {
            return Err(format!("lease timetolive: {e}"));
        }
        if int_field(&reply.body, "TTL")? == -1 {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!(
                "lease {id:x} (TTL {ttl_s} s) still alive {:.1} s after its grant",
                sent.elapsed().as_secs_f64()
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let gone_after = sent.elapsed();
    if gone_after < ttl {
        return Err(format!(
            "etcd expired lease {id:x} (TTL {ttl_s} s) only {:.3} s after its grant was sent",
            gone_after.as_secs_f64()
        ));
    }
    let (_, revision) = etcd_state(server)?;
    Ok((
        Outcome::Expired { revision },
        format!("gone {:.2} s after the grant", gone_after.as_secs_f64()),
    ))
}

// ---------------------------------------------------------------------------------------------
// Running.

/// Runs one case against a fresh etcd and a fresh model; `Err` describes the first step where
/// they disagree.
fn run_case(bin: &Path, case: &Case) -> Result<(), String> {
    let server = EtcdServer::start(bin).map_err(|e| format!("case {:?}: starting etcd: {e}", case.name))?;
    let mut kv = Kv::default();
    let mut transcript = String::new();
    let mut granted: BTreeMap<i64, (Instant, i64)> = BTreeMap::new();
    let start = Instant::now();
    for (i, step) in case.steps.iter().enumerate() {
        std::thread::sleep(Duration::from_millis(step.pause_ms));
        let at = format!(
            "{}at {:.3} s",
            if step.pause_ms > 0 {
                format!("after a {} ms pause, ", step.pause_ms)
            } else {
                String::new()
            },
            start.elapsed().as_secs_f64()
        );
        let fail = |what: &str, sent: &str, model: String, etcd: String, transcript: &str| {
            format!(
                "case {name:?}\n  {what} at step {n} of {total} ({at}):\n    step:    {step}\n    \
                 sent:    {sent}\n    model:   {model}\n    etcd:    {etcd}\n  the steps before it agreed:\n{transcript}",
                name = case.name,
                n = i + 1,
                total = case.steps.len(),
                step = show_action(&step.action),
                transcript = if transcript.is_empty() {
                    "    (none)\n"
                } else {
                    transcript
                },
            )
        };
        let (etcd, sent, note) = if let Action::Expire(id) = step.action {
            let (outcome, note) = await_expiry(&server, id, granted.get(&id).copied())
                .map_err(|e| format!("case {:?}, step {}: {e}", case.name, i + 1))?;
            (
                outcome,
                format!("POST /v3/lease/timetolive {{\"ID\":\"{id}\"}} until TTL -1"),
                note,
            )
        } else {
            let (path, body) = request(&step.action);
            let sent_at = Instant::now();
            let reply = server
                .post(path, &body)
                .map_err(|e| format!("case {:?}, step {}: POST {path}: {e}", case.name, i + 1))?;
            let outcome = parse(&step.action, &reply).map_err(|e| {
                format!(
                    "case {:?}, step {}: POST {path}: {e}; reply {}",
                    case.name,
                    i + 1,
                    reply.body
                )
            })?;
            if let (Action::Grant { id, .. }, Outcome::Granted { ttl_ms, .. }) = (&step.action, &outcome) {
                granted.insert(*id, (sent_at, ttl_ms / 1000));
            }
            (outcome, format!("POST {path} {body}"), String::new())
        };
        let model = model_exec(&mut kv, &step.action);
        if model != etcd {
            return Err(fail(
                "disagrees",
                &sent,
                model.to_string(),
                etcd.to_string(),
                &transcript,
            ));
        }
        let (model_kvs, model_rev) = model_state(&kv);
        let (etcd_kvs, etcd_rev) = etcd_state(&server).map_err(|e| format!("case {:?}: {e}", case.name))?;
        if (&model_kvs, model_rev) != (&etcd_kvs, etcd_rev) {
            transcript += &format!("    {:>2}. {:<70} -> {etcd}\n", i + 1, show_action(&step.action));
            return Err(fail(
                "the stores differ after a step that agreed",
                &sent,
                format!("{} @{model_rev}", Kvs(&model_kvs)),
                format!("{} @{etcd_rev}", Kvs(&etcd_kvs)),
                &transcript,
            ));
        }
        let note = if note.is_empty() { note } else { format!("   ({note})") };
        transcript += &format!("    {:>2}. {:<70} -> {etcd}{note}\n", i + 1, show_action(&step.action));
    }
    Ok(())
}

/// `LOCKSIM_REQUIRE_ETCD` set and not `0`: a missing `etcd` fails the test.
fn etcd_required() -> bool {
    std::env::var("LOCKSIM_REQUIRE_ETCD").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says `line` on the real stderr, past the test harness's capture, so that a skip shows in a
/// plain `cargo test`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn model_kv_agrees_with_real_etcd() {
    let Some(bin) = etcd_wire::find_etcd() else {
        assert!(
            !etcd_required(),
            "conformance_etcd: etcd not found on PATH or at /usr/bin/etcd, and LOCKSIM_REQUIRE_ETCD is set \
             (Debian: apt-get install etcd-server etcd-client)"
        );
        say("conformance_etcd: SKIPPED — etcd not found (Debian: apt-get install etcd-server etcd-client)");
        return;
    };
    let version = etcd_wire::etcd_version(&bin).unwrap_or_else(|e| panic!("conformance_etcd: {e}"));
    let cases = cases();
    let started = Instant::now();
    let failures: Vec<String> = cases.iter().filter_map(|case| run_case(&bin, case).err()).collect();
    let steps: usize = cases.iter().map(|c| c.steps.len()).sum();
    assert!(
        failures.is_empty(),
        "{} of {} cases: the model disagrees with {version} ({})\n\n{}",
        failures.len(),
        cases.len(),
        bin.display(),
        failures.join("\n")
    );
    say(&format!(
        "conformance_etcd: {} cases, {steps} steps agree with {version} ({:.1} s)",
        cases.len(),
        started.elapsed().as_secs_f64()
    ));
}

/// etcdserver `applyEntryNormal` promotes a new leader's lessor with `Promote(electionTimeout)`:
/// every lease runs until now + election timeout + TTL. A restarted one-member etcd with a 5 s
/// election timeout shows it: a 20 s lease has 24-25 s left as soon as the member serves again
/// (`timetolive` rounds down to whole seconds). The model's promoted leader, in the same
/// layout, must give the same: its lock key's expiry, recorded at the promotion, minus the
/// promotion's instant.
#[test]
fn a_new_leader_extends_leases_by_its_election_timeout_like_etcd() {
    let Some(bin) = etcd_wire::find_etcd() else {
        assert!(
            !etcd_required(),
            "conformance_etcd: etcd not found on PATH or at /usr/bin/etcd, and LOCKSIM_REQUIRE_ETCD is set"
        );
        say("conformance_etcd (lease promotion): SKIPPED — etcd not found");
        return;
    };
    let (ttl_s, election_ms) = (20i64, 5000u64);
    let model = parse_scenario(
        "promote.toml",
        &format!(
            "name = \"promote\"\ndescription = \"a one-member cluster restarts while a lease is alive\"\n\
             seed = 1\nduration_ms = 20000\n\n[protocol]\nkind = \"etcd-lease\"\nclients = 1\nservers = 1\n\
             ttl_ms = {}\nwork_ms = 15000\nheartbeat_ms = 500\nelection_timeout_ms = {election_ms}\n\n\
             [[fault]]\nkind = \"crash\"\nnode = \"server-0\"\nafter = \"client-0:acquired\"\nrestart_after_ms = 1000\n",
            ttl_s * 1000
        ),
    )
    .unwrap();
    let mut trace: Vec<TraceEvent> = Vec::new();
    run(&model, 1, Recording::Traced(&mut trace));
    let events: Vec<Value> = trace.iter().map(|e| serde_json::from_str(&e.json).unwrap()).collect();
    let restart = events
        .iter()
        .position(|e| e["kind"] == "restart")
        .expect("server-0 restarts");
    let promoted = events[restart..]
        .iter()
        .position(|e| e["kind"] == "leader_elected")
        .map(|k| &events[restart + k])
        .expect("server-0 leads again");
    let key = events
        .iter()
        .find(|e| e["kind"] == "key_set" && e["t_ns"] == promoted["t_ns"])
        .expect("the promoted leader records the lock key with its new expiry");
    let model_left_s =
        (key["expiry"]["at_ns"].as_i64().unwrap() - promoted["mono_ns"].as_i64().unwrap()) / 1_000_000_000;

    let election = election_ms.to_string();
    let mut server =
        etcd_wire::EtcdServer::start_with(&bin, &["--election-timeout", &election, "--heartbeat-interval", "500"])
            .unwrap_or_else(|e| panic!("conformance_etcd: {e}"));
    let id = 4242i64;
    let granted = server
        .post(
            "/v3/lease/grant",
            &json!({ "ID": id.to_string(), "TTL": ttl_s.to_string() }),
        )
        .unwrap();
    assert_eq!(granted.error(), None, "lease grant");
    server.restart(&bin).unwrap_or_else(|e| panic!("conformance_etcd: {e}"));
    let reply = server
        .post("/v3/lease/timetolive", &json!({ "ID": id.to_string() }))
        .unwrap();
    let etcd_left_s = int_field(&reply.body, "TTL").unwrap();
    assert!(
        etcd_left_s > ttl_s && (model_left_s - 1..=model_left_s).contains(&etcd_left_s),
        "after a restart etcd gives the {ttl_s} s lease {etcd_left_s} s, the model's new leader {model_left_s} s"
    );
    say(&format!(
        "conformance_etcd: a restarted leader gives a {ttl_s} s lease {etcd_left_s} s (model {model_left_s} s)"
    ));
}
