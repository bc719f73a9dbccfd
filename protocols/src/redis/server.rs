//! A Redis server node: the [`Store`]'s semantics plus what a process adds — active expiry by
//! its own wall clock (a forward jump expires keys at once), persistence across crashes, and
//! the lock-key facts the checkers read.

use locksim_sim::lock_obs::{ClockKind, DeleteCause, Expiry};
use locksim_sim::{Ctx, LockObs, NodeId, TimerTag};
use serde::Serialize;

use super::cmd::{Cmd, Key, Value};
use super::store::{Entry, Store};
use crate::lock_world::Msg;

/// What survives a crash (`appendfsync` policy).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Persistence {
    /// Nothing: the server restarts empty.
    None,
    /// The keyspace as of the last once-a-second fsync: the last second is lost.
    EverySec,
    /// Every write.
    Always,
}

const EXPIRE: TimerTag = 0;
const FSYNC: TimerTag = 1;
const SECOND_NS: u64 = 1_000_000_000;

pub struct RedisServer {
    persistence: Persistence,
    store: Store,
    /// What the disk holds, for `everysec`.
    synced: Store,
    /// The expiry instant the active-expiry timer is set for.
    armed_ns: Option<i64>,
}

type RedisCtx<'a> = Ctx<'a, Msg, LockObs>;

fn lease_of(e: &Entry) -> u64 {
    match e.value {
        Value::Lease(l) => l,
        Value::Int(_) => 0,
    }
}

fn expiry_of(e: &Entry) -> Option<Expiry> {
    e.expires_at_ns.map(|at_ns| Expiry {
        clock: ClockKind::Wall,
        at_ns,
    })
}

impl RedisServer {
    pub fn new(persistence: Persistence) -> Self {
        RedisServer {
            persistence,
            store: Store::default(),
            synced: Store::default(),
            armed_ns: None,
        }
    }

    pub fn on_start(&mut self, ctx: &mut RedisCtx<'_>) {
        if self.persistence == Persistence::EverySec {
            ctx.set_timer(FSYNC, SECOND_NS);
        }
        self.armed_ns = None;
        self.expire(ctx);
    }

    pub fn on_msg(&mut self, ctx: &mut RedisCtx<'_>, from: NodeId, msg: Msg) {
        let Msg::Redis { req, cmd } = msg else {
            return;
        };
        self.expire(ctx);
        let lock_before = self.store.get(Key::Lock).copied();
        let fence_before = self.store.get(Key::Fence).copied();
        let reply = self.store.exec(cmd, ctx.wall_ns());
        let cause = match cmd {
            Cmd::Del { .. } => DeleteCause::PlainDel,
            _ => DeleteCause::Release,
        };
        self.record_lock_change(ctx, lock_before, cause);
        if let (
            Some(Entry {
                value: Value::Int(token),
                ..
            }),
            true,
        ) = (
            self.store.get(Key::Fence),
            self.store.get(Key::Fence).copied() != fence_before,
        ) {
            ctx.record(LockObs::TokenIssued { token: *token as u64 });
        }
        if self.persistence == Persistence::Always {
            self.synced = self.store.clone();
        }
        self.arm(ctx);
        ctx.send(from, Msg::RedisReply { req, reply });
    }

    pub fn on_timer(&mut self, ctx: &mut RedisCtx<'_>, tag: TimerTag) {
        match tag {
            EXPIRE => {
                self.armed_ns = None;
                self.expire(ctx);
            }
            FSYNC => {
                self.synced = self.store.clone();
                ctx.set_timer(FSYNC, SECOND_NS);
            }
            _ => {}
        }
    }

    pub fn on_crash(&mut self, ctx: &mut RedisCtx<'_>) {
        let lock_before = self.store.get(Key::Lock).copied();
        self.store = match self.persistence {
            Persistence::None => Store::default(),
            Persistence::EverySec | Persistence::Always => self.synced.clone(),
        };
        self.armed_ns = None;
        self.record_lock_change(ctx, lock_before, DeleteCause::Crash);
    }

    /// A stepped wall clock: expire what is now due, re-aim the timer.
    pub fn on_clock_jump(&mut self, ctx: &mut RedisCtx<'_>) {
        self.armed_ns = None;
        self.expire(ctx);
    }

    /// Active expiry: removes every key due by the wall clock and re-arms the timer.
    fn expire(&mut self, ctx: &mut RedisCtx<'_>) {
        self.store.purge_expired(ctx.wall_ns(), |key, entry| {
            if key == Key::Lock {
                ctx.record(LockObs::KeyExpired {
                    lease: lease_of(&entry),
                });
            }
        });
        self.arm(ctx);
    }

    /// Sets the expiry timer for the earliest key, unless it is already set for that or an
    /// earlier instant (an early firing just re-arms). Wall and monotonic clocks run at the
    /// same rate, so a wall-clock distance is a valid timer duration until a jump, and a jump
    /// re-arms.
    fn arm(&mut self, ctx: &mut RedisCtx<'_>) {
        let Some(at_ns) = self.store.earliest_expiry() else {
            return;
        };
        if self.armed_ns.is_some_and(|armed| armed <= at_ns) {
            return;
        }
        self.armed_ns = Some(at_ns);
        ctx.set_timer(EXPIRE, (at_ns - ctx.wall_ns()).max(0) as u64);
    }

    fn record_lock_change(&self, ctx: &mut RedisCtx<'_>, before: Option<Entry>, cause: DeleteCause) {
        let after = self.store.get(Key::Lock).copied();
        match (before, after) {
            (Some(b), None) => ctx.record(LockObs::KeyDeleted {
                lease: lease_of(&b),
                cause,
            }),
            (b, Some(a)) if b.is_none_or(|b| b.value != a.value) => ctx.record(LockObs::KeySet {
                lease: lease_of(&a),
                expiry: expiry_of(&a),
            }),
            (Some(b), Some(a)) if b.expires_at_ns != a.expires_at_ns => ctx.record(LockObs::KeyExtended {
                lease: lease_of(&a),
                expiry: expiry_of(&a),
            }),
            _ => {}
        }
    }
}
