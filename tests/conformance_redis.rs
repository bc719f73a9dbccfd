//! Conformance of the Redis model (`locksim_protocols::redis::store::Store`) against a real
//! `redis-server` (issue 3, item 6).
//!
//! Each case below is a named list of steps — a command and the pause before it. The test
//! starts a private `redis-server` on a free loopback port (no persistence), and for every case
//! runs `FLUSHALL`, then each step against both the real server and a fresh model `Store`,
//! comparing every reply. The model's clock is the real time elapsed since the case started, so
//! expiry is compared for real: a `SET ... PX 100` followed by a 150 ms pause must be gone on
//! both.
//!
//! How replies are compared:
//! - Keys go over the wire as `lock` and `fence`; `Value::Lease(l)` as `lease-<16 hex digits>`
//!   (never a number, so `INCR` on a lease fails as on a real random token) and `Value::Int(i)`
//!   as its decimal. The model's replies are mapped the same way, and must match Redis's RESP
//!   type and value exactly (`SETNX` answers an integer, `SET NX` a status or nil), errors by
//!   their prefix (`ERR`).
//! - Time: a step's model reply is computed at the instant just before the command was sent
//!   and at the instant its reply came back; Redis ran it in between, so it must agree with one
//!   of the two. `PTTL` and `TTL` must fall between those two model readings, widened by
//!   `TOLERANCE_MS` for Redis's millisecond clock; `-1` (no TTL) and `-2` (no key) exactly. A
//!   slow machine widens the window rather than failing the test.
//! - The two scripts are the seed's `unlock.lua` and `renew.lua` verbatim (seed 004, section
//!   9.2.2–9.2.3), sent with `EVAL`; the model's one-script acquire (`AcquireWithToken`) is
//!   `ACQUIRE_LUA` below.
//!
//! - `min-replicas-to-write`: a case sets it with `CONFIG SET` on the real server (which has
//!   no replica) and the model's `GoodReplicas` check with no replica; every case first sets it
//!   back to 0, since a refused `FLUSHALL` would leave the next case a dirty keyspace.
//!
//! Without a `redis-server` (on `PATH` or at `/usr/bin/redis-server`) the test says it is
//! skipped and passes — unless `LOCKSIM_REQUIRE_REDIS` is set (and not `0`), as `.ci/run` does:
//! then it fails.

mod redis_wire;

use std::io::Write;
use std::time::{Duration, Instant};

use locksim_protocols::redis::cmd::{Cmd, Key, Reply, Value};
use locksim_protocols::redis::min_replicas::{GoodReplicas, MinReplicasConfig};
use locksim_protocols::redis::store::Store;
use redis_wire::{Conn, RedisServer, Resp};

/// Seed 004, 9.2.2: compare-and-delete (the model's `Cmd::DelIfEq`).
const UNLOCK_LUA: &str = r#"-- unlock.lua：只有 token 匹配才删除
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0"#;

/// Seed 004, 9.2.3: compare-and-PEXPIRE (the model's `Cmd::PExpireIfEq`).
const RENEW_LUA: &str = r#"-- renew.lua：token 匹配才延长 TTL
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0"#;

/// The model's `Cmd::AcquireWithToken`: `SET lock token NX [PX ms]`, and only when it was set,
/// `INCR fence`, atomically. Replies the token, or nil when the lock is held. (A failing `INCR`
/// aborts the script with its error, after the `SET` — Redis does not roll scripts back.)
const ACQUIRE_LUA: &str = r#"-- acquire.lua: KEYS = lock, fence; ARGV = token [, px_ms]
local set
if ARGV[2] then
  set = redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])
else
  set = redis.call("SET", KEYS[1], ARGV[1], "NX")
end
if set then
  return redis.call("INCR", KEYS[2])
end
return false"#;

const SCRIPTS: [(&str, &str); 3] = [
    ("unlock.lua", UNLOCK_LUA),
    ("renew.lua", RENEW_LUA),
    ("acquire.lua", ACQUIRE_LUA),
];

/// Slack on `PTTL`/`TTL` beyond the window the command ran in: Redis keeps expiries and reads
/// its clock in whole milliseconds, the model in nanoseconds.
const TOLERANCE_MS: i64 = 5;

// ---------------------------------------------------------------------------------------------
// The cases.

/// What a step does: a model command, or `TTL` (which the model has no command for: its
/// answer is derived from the model's `PTTL` the way Redis derives `TTL`, to check that `TTL`
/// agrees on -1 and -2 too), or `CONFIG SET min-replicas-to-write N` (the model's primary
/// with that setting and no replica: `min_replicas`).
#[derive(Copy, Clone, Debug)]
enum Op {
    Cmd(Cmd),
    Ttl(Key),
    MinReplicasToWrite(u32),
}

struct Step {
    pause_ms: u64,
    op: Op,
}

struct Case {
    name: &'static str,
    steps: &'static [Step],
}

const LOCK: Key = Key::Lock;
const FENCE: Key = Key::Fence;
const A: Value = Value::Lease(0xaaaa_1111_2222_3333);
const B: Value = Value::Lease(0xbbbb_4444_5555_6666);

/// A step right after the previous one.
const fn now(op: Op) -> Step {
    Step { pause_ms: 0, op }
}

/// A step `ms` milliseconds after the previous one.
const fn after(ms: u64, op: Op) -> Step {
    Step { pause_ms: ms, op }
}

const fn set_nx_px(key: Key, value: Value, px_ms: u64) -> Op {
    Op::Cmd(Cmd::SetNxPx { key, value, px_ms })
}
const fn setnx(key: Key, value: Value) -> Op {
    Op::Cmd(Cmd::SetNx { key, value })
}
const fn pexpire(key: Key, ms: u64) -> Op {
    Op::Cmd(Cmd::PExpire { key, ms })
}
const fn get(key: Key) -> Op {
    Op::Cmd(Cmd::Get { key })
}
const fn del(key: Key) -> Op {
    Op::Cmd(Cmd::Del { key })
}
const fn incr(key: Key) -> Op {
    Op::Cmd(Cmd::Incr { key })
}
const fn pttl(key: Key) -> Op {
    Op::Cmd(Cmd::Pttl { key })
}
const fn ttl(key: Key) -> Op {
    Op::Ttl(key)
}
const fn del_if_eq(key: Key, value: Value) -> Op {
    Op::Cmd(Cmd::DelIfEq { key, value })
}
const fn pexpire_if_eq(key: Key, value: Value, ms: u64) -> Op {
    Op::Cmd(Cmd::PExpireIfEq { key, value, ms })
}
const fn min_replicas_to_write(n: u32) -> Op {
    Op::MinReplicasToWrite(n)
}
const fn acquire(value: Value, px_ms: Option<u64>) -> Op {
    Op::Cmd(Cmd::AcquireWithToken {
        key: LOCK,
        value,
        px_ms,
        fence: FENCE,
    })
}

const CASES: &[Case] = &[
    Case {
        name: "SET NX PX grants once, GET reads the holder, PTTL/TTL count down",
        steps: &[
            now(get(LOCK)),
            now(set_nx_px(LOCK, A, 10_000)),
            now(set_nx_px(LOCK, B, 10_000)),
            now(get(LOCK)),
            now(pttl(LOCK)),
            now(ttl(LOCK)),
            after(50, pttl(LOCK)),
        ],
    },
    Case {
        name: "SET NX PX expires: gone for GET, PTTL, TTL; the next SET NX wins",
        steps: &[
            now(set_nx_px(LOCK, A, 100)),
            now(get(LOCK)),
            after(150, get(LOCK)),
            now(pttl(LOCK)),
            now(ttl(LOCK)),
            now(set_nx_px(LOCK, B, 10_000)),
            now(get(LOCK)),
        ],
    },
    Case {
        name: "SET PX 0 is refused",
        steps: &[
            now(set_nx_px(LOCK, A, 0)),
            now(get(LOCK)),
            now(acquire(A, Some(0))),
            now(get(LOCK)),
            now(get(FENCE)),
        ],
    },
    Case {
        name: "compare-and-delete (unlock.lua) deletes only its own key",
        steps: &[
            now(del_if_eq(LOCK, A)),
            now(set_nx_px(LOCK, B, 10_000)),
            now(del_if_eq(LOCK, A)),
            now(get(LOCK)),
            now(del_if_eq(LOCK, B)),
            now(get(LOCK)),
            now(del_if_eq(LOCK, B)),
        ],
    },
    Case {
        name: "late release after expiry: unlock.lua spares the next holder, plain DEL does not",
        steps: &[
            now(set_nx_px(LOCK, A, 100)),
            after(150, set_nx_px(LOCK, B, 10_000)),
            now(del_if_eq(LOCK, A)),
            now(get(LOCK)),
            now(del(LOCK)),
            now(get(LOCK)),
        ],
    },
    Case {
        name: "compare-and-PEXPIRE (renew.lua) extends only its own key",
        steps: &[
            now(pexpire_if_eq(LOCK, A, 10_000)),
            now(set_nx_px(LOCK, A, 200)),
            now(pexpire_if_eq(LOCK, B, 10_000)),
            now(pttl(LOCK)),
            now(pexpire_if_eq(LOCK, A, 10_000)),
            now(pttl(LOCK)),
            after(250, get(LOCK)),
            now(pttl(LOCK)),
        ],
    },
    Case {
        name: "renewing too late: the key is gone and stays gone",
        steps: &[
            now(set_nx_px(LOCK, A, 100)),
            after(150, pexpire_if_eq(LOCK, A, 10_000)),
            now(get(LOCK)),
            now(pttl(LOCK)),
        ],
    },
    Case {
        name: "SETNX then PEXPIRE: no TTL in between (-1), then it expires",
        steps: &[
            now(setnx(LOCK, A)),
            now(setnx(LOCK, B)),
            now(get(LOCK)),
            now(pttl(LOCK)),
            now(ttl(LOCK)),
            now(pexpire(LOCK, 100)),
            now(pttl(LOCK)),
            now(ttl(LOCK)),
            after(150, pttl(LOCK)),
            now(pexpire(LOCK, 100)),
            now(setnx(LOCK, B)),
            now(get(LOCK)),
        ],
    },
    Case {
        name: "blind PEXPIRE extends whoever holds the key; PEXPIRE 0 deletes it",
        steps: &[
            now(set_nx_px(LOCK, B, 100)),
            now(pexpire(LOCK, 10_000)),
            after(150, get(LOCK)),
            now(pttl(LOCK)),
            now(pexpire(LOCK, 0)),
            now(get(LOCK)),
            now(pttl(LOCK)),
            now(pexpire(LOCK, 0)),
        ],
    },
    Case {
        name: "DEL counts only live keys",
        steps: &[
            now(del(LOCK)),
            now(setnx(LOCK, A)),
            now(del(LOCK)),
            now(del(LOCK)),
            now(set_nx_px(LOCK, A, 100)),
            after(150, del(LOCK)),
        ],
    },
    Case {
        name: "INCR counts from a missing key, with no TTL",
        steps: &[
            now(incr(FENCE)),
            now(incr(FENCE)),
            now(incr(FENCE)),
            now(get(FENCE)),
            now(pttl(FENCE)),
            now(ttl(FENCE)),
        ],
    },
    Case {
        name: "INCR on a lease string is an error and leaves it",
        steps: &[now(setnx(LOCK, A)), now(incr(LOCK)), now(get(LOCK)), now(pttl(LOCK))],
    },
    Case {
        name: "INCR past i64::MAX is an error",
        steps: &[
            now(setnx(FENCE, Value::Int(i64::MAX - 1))),
            now(incr(FENCE)),
            now(incr(FENCE)),
            now(get(FENCE)),
        ],
    },
    Case {
        name: "INCR keeps the key's TTL; on an expired key it starts over without one",
        steps: &[
            now(set_nx_px(FENCE, Value::Int(41), 300)),
            now(incr(FENCE)),
            now(get(FENCE)),
            now(pttl(FENCE)),
            after(350, get(FENCE)),
            now(incr(FENCE)),
            now(pttl(FENCE)),
        ],
    },
    Case {
        name: "acquire script (SET NX PX + INCR fence): a token per grant, none when refused",
        steps: &[
            now(acquire(A, Some(10_000))),
            now(acquire(B, Some(10_000))),
            now(get(FENCE)),
            now(get(LOCK)),
            now(pttl(LOCK)),
            now(pttl(FENCE)),
            now(del_if_eq(LOCK, A)),
            now(acquire(B, Some(10_000))),
            now(get(LOCK)),
        ],
    },
    Case {
        name: "acquire script after the holder's lease expired: the next token",
        steps: &[
            now(acquire(A, Some(100))),
            after(150, get(LOCK)),
            now(acquire(B, Some(10_000))),
            now(get(LOCK)),
            now(get(FENCE)),
        ],
    },
    Case {
        name: "acquire script without PX (SETNX form) leaves no TTL",
        steps: &[
            now(acquire(A, None)),
            now(pttl(LOCK)),
            now(ttl(LOCK)),
            now(acquire(B, None)),
            now(get(FENCE)),
        ],
    },
    Case {
        name: "acquire script with a non-integer fence: error after the SET, which stays",
        steps: &[
            now(setnx(FENCE, A)),
            now(acquire(B, Some(10_000))),
            now(get(LOCK)),
            now(get(FENCE)),
            now(acquire(B, Some(10_000))),
        ],
    },
    Case {
        name: "min-replicas-to-write 1 without a replica: writes refused NOREPLICAS, reads served",
        steps: &[
            now(set_nx_px(LOCK, A, 10_000)),
            now(min_replicas_to_write(1)),
            now(get(LOCK)),
            now(pttl(LOCK)),
            now(set_nx_px(LOCK, B, 10_000)),
            now(del_if_eq(LOCK, B)),
            now(pexpire_if_eq(LOCK, B, 10_000)),
            now(del_if_eq(LOCK, A)),
            now(pexpire_if_eq(LOCK, A, 10_000)),
            now(pexpire(LOCK, 10_000)),
            now(del(LOCK)),
            now(incr(FENCE)),
            now(acquire(B, Some(10_000))),
            now(get(LOCK)),
            now(min_replicas_to_write(0)),
            now(del_if_eq(LOCK, A)),
            now(set_nx_px(LOCK, B, 10_000)),
        ],
    },
];

// ---------------------------------------------------------------------------------------------
// Mapping the model to the wire and back.

fn wire_key(key: Key) -> String {
    key.to_string()
}

fn wire_value(value: Value) -> String {
    match value {
        Value::Lease(l) => format!("lease-{l:016x}"),
        Value::Int(i) => i.to_string(),
    }
}

/// The command Redis receives for `op`.
fn wire_args(op: Op) -> Vec<String> {
    let s = |x: &str| x.to_owned();
    match op {
        Op::Ttl(key) => vec![s("TTL"), wire_key(key)],
        Op::MinReplicasToWrite(n) => vec![s("CONFIG"), s("SET"), s("min-replicas-to-write"), n.to_string()],
        Op::Cmd(cmd) => match cmd {
            Cmd::SetNxPx { key, value, px_ms } => vec![
                s("SET"),
                wire_key(key),
                wire_value(value),
                s("NX"),
                s("PX"),
                px_ms.to_string(),
            ],
            Cmd::SetNx { key, value } => vec![s("SETNX"), wire_key(key), wire_value(value)],
            Cmd::PExpire { key, ms } => vec![s("PEXPIRE"), wire_key(key), ms.to_string()],
            Cmd::Get { key } => vec![s("GET"), wire_key(key)],
            Cmd::Del { key } => vec![s("DEL"), wire_key(key)],
            Cmd::Incr { key } => vec![s("INCR"), wire_key(key)],
            Cmd::Pttl { key } => vec![s("PTTL"), wire_key(key)],
            Cmd::DelIfEq { key, value } => vec![s("EVAL"), s(UNLOCK_LUA), s("1"), wire_key(key), wire_value(value)],
            Cmd::PExpireIfEq { key, value, ms } => vec![
                s("EVAL"),
                s(RENEW_LUA),
                s("1"),
                wire_key(key),
                wire_value(value),
                ms.to_string(),
            ],
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms,
                fence,
            } => {
                let mut args = vec![s("EVAL"), s(ACQUIRE_LUA), s("2"), wire_key(key), wire_key(fence)];
                args.push(wire_value(value));
                args.extend(px_ms.map(|ms| ms.to_string()));
                args
            }
        },
    }
}

/// `args` as sent, a script shown by its name.
fn shown_args(args: &[String]) -> String {
    args.iter()
        .map(|a| match SCRIPTS.iter().find(|(_, text)| a == text) {
            Some((name, _)) => format!("<{name}>"),
            None => a.clone(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn shown_op(op: Op) -> String {
    match op {
        Op::Cmd(cmd) => cmd.to_string(),
        Op::Ttl(key) => format!("TTL {key}"),
        Op::MinReplicasToWrite(n) => format!("CONFIG SET min-replicas-to-write {n}"),
    }
}

/// A reply in wire terms, comparable between the model and Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Ok,
    Nil,
    Int(i64),
    Bulk(String),
    Error(String),
    /// Any other RESP reply (which the model never gives).
    Other(String),
}

impl Seen {
    fn from_model(reply: Reply) -> Seen {
        match reply {
            Reply::Ok => Seen::Ok,
            Reply::Nil => Seen::Nil,
            Reply::Int(i) => Seen::Int(i),
            Reply::Bulk(v) => Seen::Bulk(wire_value(v)),
            Reply::Error(e) => Seen::Error(e.to_owned()),
        }
    }

    fn from_redis(resp: &Resp) -> Seen {
        match resp {
            Resp::Status(s) if s == "OK" => Seen::Ok,
            Resp::Bulk(None) => Seen::Nil,
            Resp::Bulk(Some(b)) => Seen::Bulk(String::from_utf8_lossy(b).into_owned()),
            Resp::Int(i) => Seen::Int(*i),
            Resp::Error(e) => Seen::Error(e.clone()),
            other => Seen::Other(other.to_string()),
        }
    }

    /// Equal, errors by their prefix (`ERR`, `WRONGTYPE`, ...).
    fn agrees(&self, other: &Seen) -> bool {
        match (self, other) {
            (Seen::Error(a), Seen::Error(b)) => a.split(' ').next() == b.split(' ').next(),
            _ => self == other,
        }
    }
}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Seen::Ok => f.write_str("OK"),
            Seen::Nil => f.write_str("(nil)"),
            Seen::Int(i) => write!(f, "(integer) {i}"),
            Seen::Bulk(s) => write!(f, "{s:?}"),
            Seen::Error(e) => write!(f, "(error) {e}"),
            Seen::Other(s) => write!(f, "{s} (not a reply the model gives)"),
        }
    }
}

/// Redis's `TTL` from a remaining time in ms (`ttlGenericCommand`: `(ttl+500)/1000`).
fn ttl_of_ms(ms: i64) -> i64 {
    (ms.max(0) + 500) / 1000
}

/// The model of a primary without replicas: its keyspace and its `min-replicas` check.
#[derive(Clone)]
struct Model {
    store: Store,
    good: GoodReplicas,
}

impl Model {
    fn new() -> Model {
        Model {
            store: Store::default(),
            good: GoodReplicas::new(MinReplicasConfig::OFF),
        }
    }
}

/// Runs `op` on the model at `now_ns`, as the wire reply — but `TTL` as the model's `PTTL` in
/// ms, rounded only when judged or shown (`shown_model`). A command goes through the
/// `min-replicas` check first, as in the model's server (which has purged expired keys).
fn model_exec(model: &mut Model, op: Op, now_ns: i64) -> Seen {
    let store = &mut model.store;
    match op {
        Op::Cmd(cmd) => {
            store.purge_expired(now_ns, |_, _| {});
            let reply = model
                .good
                .refusal(cmd, store)
                .unwrap_or_else(|| store.exec(cmd, now_ns));
            Seen::from_model(reply)
        }
        Op::Ttl(key) => Seen::from_model(store.exec(Cmd::Pttl { key }, now_ns)),
        Op::MinReplicasToWrite(to_write) => {
            model.good = GoodReplicas::new(MinReplicasConfig {
                to_write,
                ..MinReplicasConfig::OFF
            });
            Seen::Ok
        }
    }
}

/// The model's reply as Redis would give it: for `TTL`, rounded to seconds.
fn shown_model(op: Op, seen: &Seen) -> Seen {
    match (op, seen) {
        (Op::Ttl(_), Seen::Int(ms)) if *ms >= 0 => Seen::Int(ttl_of_ms(*ms)),
        _ => seen.clone(),
    }
}

/// Whether Redis's reply to `op` agrees with the model's replies at the instants just before
/// (`early`) and just after (`late`) Redis ran it; `Some(true)` when it agrees with `early`.
fn judge(op: Op, early: &Seen, late: &Seen, redis: &Seen) -> Option<bool> {
    let is_ttl_read = matches!(op, Op::Cmd(Cmd::Pttl { .. }) | Op::Ttl(_));
    if let (true, Seen::Int(e), Seen::Int(l), Seen::Int(r)) = (is_ttl_read, early, late, redis)
        && *e >= 0
        && *r >= 0
    {
        // A remaining time: it lies between the model's readings at the two instants (the
        // later may find the key just expired), give or take the tolerance. `TTL` rounds the
        // widened bounds to seconds as Redis does.
        let (lo, hi) = ((*l).max(0) - TOLERANCE_MS, e + TOLERANCE_MS);
        let (lo, hi) = match op {
            Op::Ttl(_) => (ttl_of_ms(lo), ttl_of_ms(hi)),
            _ => (lo, hi),
        };
        return (lo..=hi).contains(r).then_some(true);
    }
    if shown_model(op, early).agrees(redis) {
        Some(true)
    } else if shown_model(op, late).agrees(redis) {
        Some(false)
    } else {
        None
    }
}

// ---------------------------------------------------------------------------------------------
// Running.

/// Runs one case against a flushed server and a fresh model; `Err` describes the first step
/// where they disagree.
fn run_case(conn: &mut Conn, case: &Case) -> Result<(), String> {
    for reset in [&["CONFIG", "SET", "min-replicas-to-write", "0"][..], &["FLUSHALL"]] {
        match conn.call(reset) {
            Ok(Resp::Status(s)) if s == "OK" => {}
            other => return Err(format!("{} failed: {other:?}", reset.join(" "))),
        }
    }
    let mut model = Model::new();
    let mut transcript = String::new();
    let start = Instant::now();
    let elapsed_ns = || i64::try_from(start.elapsed().as_nanos()).expect("a case lasts less than 292 years");
    for (i, step) in case.steps.iter().enumerate() {
        std::thread::sleep(Duration::from_millis(step.pause_ms));
        let args = wire_args(step.op);
        let before_ns = elapsed_ns();
        let resp = conn.call(&args);
        let after_ns = elapsed_ns();
        let resp = resp.map_err(|e| format!("case {:?}: redis-server: {e}", case.name))?;
        let redis = Seen::from_redis(&resp);
        let (mut early_model, mut late_model) = (model.clone(), model.clone());
        let early = model_exec(&mut early_model, step.op, before_ns);
        let late = model_exec(&mut late_model, step.op, after_ns);
        let pause = if step.pause_ms > 0 {
            format!("after a {} ms pause, ", step.pause_ms)
        } else {
            String::new()
        };
        let at = format!("{pause}at {:.3} ms", before_ns as f64 / 1e6);
        match judge(step.op, &early, &late, &redis) {
            Some(agreed_early) => {
                model = if agreed_early { early_model } else { late_model };
                transcript += &format!("    {:>2}. {:<58} -> {redis}   ({at})\n", i + 1, shown_op(step.op));
            }
            None => {
                let (early, late) = (shown_model(step.op, &early), shown_model(step.op, &late));
                let model = if early == late {
                    early.to_string()
                } else {
                    format!("{early} (at {before_ns} ns, when sent) / {late} (at {after_ns} ns, when answered)")
                };
                return Err(format!(
                    "case {name:?}\n  disagrees at step {n} of {total} ({at}):\n    \
                     command: {cmd}\n    sent:    {sent}\n    model:   {model}\n    redis:   {redis}\n  \
                     the steps before it agreed:\n{transcript}",
                    name = case.name,
                    n = i + 1,
                    total = case.steps.len(),
                    cmd = shown_op(step.op),
                    sent = shown_args(&args),
                    transcript = if transcript.is_empty() {
                        "    (none)\n"
                    } else {
                        &transcript
                    },
                ));
            }
        }
    }
    Ok(())
}

/// `LOCKSIM_REQUIRE_REDIS` set and not `0`: a missing `redis-server` fails the test.
fn redis_required() -> bool {
    std::env::var("LOCKSIM_REQUIRE_REDIS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says `line` on the real stderr, past the test harness's capture, so that a skip shows in a
/// plain `cargo test`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[test]
fn model_store_agrees_with_real_redis() {
    let Some(bin) = redis_wire::find_redis_server() else {
        assert!(
            !redis_required(),
            "conformance_redis: redis-server not found on PATH or at /usr/bin/redis-server, and \
             LOCKSIM_REQUIRE_REDIS is set (Debian: apt-get install redis-server)"
        );
        say("conformance_redis: SKIPPED — redis-server not found (Debian: apt-get install redis-server)");
        return;
    };
    let server = RedisServer::start(&bin).unwrap_or_else(|e| panic!("conformance_redis: {e}"));
    let mut conn = server
        .connect()
        .unwrap_or_else(|e| panic!("conformance_redis: connecting to {}: {e}", server.addr));
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| run_case(&mut conn, case).err())
        .collect();
    let steps: usize = CASES.iter().map(|c| c.steps.len()).sum();
    assert!(
        failures.is_empty(),
        "{} of {} cases: the model disagrees with {} ({})\n\n{}",
        failures.len(),
        CASES.len(),
        server.version,
        bin.display(),
        failures.join("\n")
    );
    say(&format!(
        "conformance_redis: {} cases, {steps} steps agree with {}",
        CASES.len(),
        server.version
    ));
}

/// The scripts above are the seed's, character for character (checked when the seeds are
/// beside the project, as `../shared/seeds/`).
#[test]
fn scripts_are_the_seeds() {
    let seed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/seeds/004_522f6eae54ccc38e.txt");
    let Ok(text) = std::fs::read_to_string(&seed) else {
        say(&format!(
            "conformance_redis: {} absent; scripts not re-checked",
            seed.display()
        ));
        return;
    };
    for script in [UNLOCK_LUA, RENEW_LUA] {
        assert!(text.contains(script), "not in {}:\n{script}", seed.display());
    }
}
