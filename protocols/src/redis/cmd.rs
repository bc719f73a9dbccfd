//! The Redis commands the lock models send, and Redis's replies. `Display` prints them the
//! way `redis-cli` would show them, so a trace reads like a `MONITOR` log.

use std::fmt;

use locksim_sim::write_pieces;

use crate::lock::obs::ShortLease;

/// The two keys the models use: the lock and the fencing counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Lock,
    Fence,
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Key::Lock => "lock",
            Key::Fence => "fence",
        })
    }
}

/// A stored value: an opaque lease string (random per acquisition) or an integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Lease(u64),
    Int(i64),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Lease(l) => fmt::Display::fmt(&ShortLease(*l), f),
            Value::Int(i) => fmt::Display::fmt(i, f),
        }
    }
}

/// A command, or one of the seeds' Lua scripts (run atomically, as `EVAL` is).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// `SET key value NX PX ms`
    SetNxPx {
        key: Key,
        value: Value,
        px_ms: u64,
    },
    /// `SETNX key value` — no TTL: the first half of the two-command acquire.
    SetNx {
        key: Key,
        value: Value,
    },
    /// `PEXPIRE key ms`
    PExpire {
        key: Key,
        ms: u64,
    },
    Get {
        key: Key,
    },
    Del {
        key: Key,
    },
    Incr {
        key: Key,
    },
    Pttl {
        key: Key,
    },
    /// The seed's release script: `if GET(key) == value then DEL(key)`.
    DelIfEq {
        key: Key,
        value: Value,
    },
    /// The seed's renew script: `if GET(key) == value then PEXPIRE(key, ms)`.
    PExpireIfEq {
        key: Key,
        value: Value,
        ms: u64,
    },
    /// Acquire and take a fencing token in one script: `SET key value NX [PX ms]`, and when it
    /// was set, `INCR fence`. `px_ms = None` is `SETNX` (no TTL).
    AcquireWithToken {
        key: Key,
        value: Value,
        px_ms: Option<u64>,
        fence: Key,
    },
}

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cmd::SetNxPx { key, value, px_ms } => write_pieces!(f, "SET ", key, " ", value, " NX PX ", px_ms),
            Cmd::SetNx { key, value } => write_pieces!(f, "SETNX ", key, " ", value),
            Cmd::PExpire { key, ms } => write_pieces!(f, "PEXPIRE ", key, " ", ms),
            Cmd::Get { key } => write_pieces!(f, "GET ", key),
            Cmd::Del { key } => write_pieces!(f, "DEL ", key),
            Cmd::Incr { key } => write_pieces!(f, "INCR ", key),
            Cmd::Pttl { key } => write_pieces!(f, "PTTL ", key),
            Cmd::DelIfEq { key, value } => write_pieces!(f, "EVAL compare-and-delete ", key, " ", value),
            Cmd::PExpireIfEq { key, value, ms } => {
                write_pieces!(f, "EVAL compare-and-pexpire ", key, " ", value, " ", ms)
            }
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms: Some(ms),
                fence,
            } => write_pieces!(f, "EVAL acquire ", key, " ", value, " NX PX ", ms, " + INCR ", fence),
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms: None,
                fence,
            } => write_pieces!(f, "EVAL acquire SETNX ", key, " ", value, " + INCR ", fence),
        }
    }
}

/// A reply, as RESP types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Ok,
    Nil,
    Int(i64),
    Bulk(Value),
    Error(&'static str),
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Ok => f.write_str("OK"),
            Reply::Nil => f.write_str("(nil)"),
            Reply::Int(i) => write_pieces!(f, "(integer) ", i),
            Reply::Bulk(v) => write_pieces!(f, "\"", v, "\""),
            Reply::Error(e) => write_pieces!(f, "(error) ", e),
        }
    }
}
