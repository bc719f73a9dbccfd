//! The Redis commands the lock models send, and Redis's replies. `Display` prints them the
//! way `redis-cli` would show them, so a trace reads like a `MONITOR` log: written as
//! [`Piece`]s, which a message's text pushes in place ([`fmt_piece`]).

use std::fmt;

use locksim_sim::pieces::{Piece, fmt_piece};
use locksim_sim::push;

use crate::lock::obs::ShortLease;

/// The two keys the models use: the lock and the fencing counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Lock,
    Fence,
}

impl Key {
    fn name(self) -> &'static str {
        match self {
            Key::Lock => "lock",
            Key::Fence => "fence",
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Each name pushed from its own arm, so each copy has a constant length (through
/// [`Key::name`] it was a `memcpy` call of either length).
impl Piece for Key {
    fn push_to(&self, out: &mut String) {
        match self {
            Key::Lock => out.push_str("lock"),
            Key::Fence => out.push_str("fence"),
        }
    }
}

/// A stored value: an opaque lease string (random per acquisition) or an integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Lease(u64),
    Int(i64),
}

impl Piece for Value {
    fn push_to(&self, out: &mut String) {
        match self {
            Value::Lease(l) => ShortLease(*l).push_to(out),
            Value::Int(i) => i.push_to(out),
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

impl Piece for Cmd {
    fn push_to(&self, out: &mut String) {
        match *self {
            Cmd::SetNxPx { key, value, px_ms } => push!(out, "SET ", key, " ", value, " NX PX ", px_ms),
            Cmd::SetNx { key, value } => push!(out, "SETNX ", key, " ", value),
            Cmd::PExpire { key, ms } => push!(out, "PEXPIRE ", key, " ", ms),
            Cmd::Get { key } => push!(out, "GET ", key),
            Cmd::Del { key } => push!(out, "DEL ", key),
            Cmd::Incr { key } => push!(out, "INCR ", key),
            Cmd::Pttl { key } => push!(out, "PTTL ", key),
            Cmd::DelIfEq { key, value } => push!(out, "EVAL compare-and-delete ", key, " ", value),
            Cmd::PExpireIfEq { key, value, ms } => {
                push!(out, "EVAL compare-and-pexpire ", key, " ", value, " ", ms)
            }
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms: Some(ms),
                fence,
            } => push!(out, "EVAL acquire ", key, " ", value, " NX PX ", ms, " + INCR ", fence),
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms: None,
                fence,
            } => push!(out, "EVAL acquire SETNX ", key, " ", value, " + INCR ", fence),
        }
    }
}

impl fmt::Display for Cmd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_piece(self, f)
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

impl Piece for Reply {
    fn push_to(&self, out: &mut String) {
        match self {
            Reply::Ok => out.push_str("OK"),
            Reply::Nil => out.push_str("(nil)"),
            Reply::Int(i) => push!(out, "(integer) ", *i),
            Reply::Bulk(v) => push!(out, "\"", *v, "\""),
            Reply::Error(e) => push!(out, "(error) ", *e),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_piece(self, f)
    }
}
