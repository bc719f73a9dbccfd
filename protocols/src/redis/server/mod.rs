//! A Redis server node: the [`Store`]'s semantics plus what a process adds — active expiry by
//! its own clock (a forward wall-clock jump expires keys at once), persistence across crashes,
//! asynchronous replication to a replica with a lag, failover and demotion, a delayed restart,
//! and the lock-key facts the checkers read.

mod config;
mod expiry;
mod replication;

use std::collections::VecDeque;

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::cmd::{Cmd, Key, Reply, Value};
use super::min_replicas::{GoodReplicas, unix_s};
use super::msg::Msg;
use super::sentinel::{self, Sentinel};
use super::store::{Entry, Store};
use crate::lock::LockObs;
use crate::lock::obs::DeleteCause;
pub use config::{Persistence, RedisConfig, Role, ServerClock};

/// What a replica, or a primary Sentinel demoted, answers a write.
const READONLY: Reply = Reply::Error("READONLY You can't write against a read only replica.");

const EXPIRE: TimerTag = 0;
const FSYNC: TimerTag = 1;
const REPLICATE: TimerTag = 2;
const AVAILABLE: TimerTag = 3;
// 4 is Sentinel's `RECONFIGURE`.
/// A replica's `REPLCONF ACK`, once a second.
const REPL_ACK: TimerTag = 5;
/// A primary's replication cron, once a second: refreshes the count of good replicas.
const REPL_CRON: TimerTag = 6;
const SECOND_NS: u64 = 1_000_000_000;

pub struct RedisServer {
    cfg: RedisConfig,
    role: Role,
    /// Who this server streams its writes to while it is the primary.
    replicas: Vec<NodeId>,
    replication_lag_ns: u64,
    /// A replica Sentinel promotes when its primary fails (replica-0); `siblings` are the
    /// primary's other replicas, which follow the heir once promoted.
    heir: bool,
    siblings: Vec<NodeId>,
    /// Acks of the replicas, for `min-replicas-to-write`.
    good: GoodReplicas,
    /// Whether it last recorded that it refuses writes (`note_refusal`).
    refusing_noted: bool,
    store: Store,
    /// What the disk holds, for `everysec` and `always`.
    synced: Store,
    /// The expiry instant the active-expiry timer is set for.
    armed_ns: Option<i64>,
    /// Writes waiting out the replication lag: (due on the monotonic clock, key, new entry).
    backlog: VecDeque<(u64, Key, Option<Entry>)>,
    /// Survives the crash: the next start is a restart.
    crashed: bool,
    /// Not serving until the monotonic clock reaches this (a delayed restart).
    unavailable_until_ns: Option<u64>,
    /// Sentinel, as far as this server speaks for it once promoted.
    sentinel: Sentinel,
}

type RedisCtx<'a> = Ctx<'a, Msg, LockObs>;

impl RedisServer {
    pub fn new(cfg: RedisConfig, role: Role, clients: Vec<NodeId>) -> Self {
        RedisServer {
            cfg,
            role,
            replicas: Vec::new(),
            replication_lag_ns: 0,
            heir: false,
            siblings: Vec::new(),
            good: GoodReplicas::new(cfg.min_replicas),
            refusing_noted: false,
            store: Store::default(),
            synced: Store::default(),
            armed_ns: None,
            backlog: VecDeque::new(),
            crashed: false,
            unavailable_until_ns: None,
            sentinel: Sentinel::new(clients),
        }
    }

    /// A primary streaming to `replicas`, each write leaving after `lag_ns`.
    pub fn with_replicas(mut self, replicas: Vec<NodeId>, lag_ns: u64) -> Self {
        self.replicas = replicas;
        self.replication_lag_ns = lag_ns;
        self
    }

    /// The replica a failover of its primary promotes; `siblings` follow it then.
    pub fn heir(mut self, siblings: Vec<NodeId>, lag_ns: u64) -> Self {
        self.heir = true;
        self.siblings = siblings;
        self.replication_lag_ns = lag_ns;
        self
    }

    /// Whether replicas ack and the primary counts them: only when `min-replicas-to-write`
    /// reads the count (real replicas always ack; the model leaves the silent acks out of
    /// the traces of worlds that do not use them).
    fn counts_acks(&self) -> bool {
        self.cfg.min_replicas.active()
    }

    pub fn on_start(&mut self, ctx: &mut RedisCtx<'_>) {
        if self.persistence_syncs_every_second() {
            ctx.set_timer(FSYNC, SECOND_NS);
        }
        if matches!(self.role, Role::Replica { .. }) && !self.crashed {
            ctx.record(LockObs::RoleChanged {
                authoritative: false,
                role: "replica".into(),
            });
        }
        if self.counts_acks() {
            if self.role == Role::Primary && !self.crashed {
                // Replication starts in sync: each replica is online as of now.
                let now_s = unix_s(ctx.wall_ns());
                for &replica in &self.replicas {
                    self.good.online(replica, now_s);
                }
            }
            ctx.set_timer(REPL_ACK, SECOND_NS);
            ctx.set_timer(REPL_CRON, SECOND_NS);
        }
        self.note_refusal(ctx);
        if self.crashed && self.cfg.delayed_restart_ns > 0 {
            self.unavailable_until_ns = Some(ctx.mono_ns() + self.cfg.delayed_restart_ns);
            ctx.record(LockObs::RoleChanged {
                authoritative: false,
                role: "restarted, unavailable (delayed restart)".into(),
            });
            ctx.set_timer(AVAILABLE, self.cfg.delayed_restart_ns);
        }
        self.sentinel.on_restart(ctx);
        self.armed_ns = None;
        self.expire(ctx);
    }

    fn persistence_syncs_every_second(&self) -> bool {
        self.cfg.persistence == Persistence::EverySec
    }

    pub fn on_msg(&mut self, ctx: &mut RedisCtx<'_>, from: NodeId, msg: Msg) {
        match msg {
            Msg::Redis { req, cmd } => self.on_command(ctx, from, req, cmd),
            Msg::Replicate { key, entry } if self.role == (Role::Replica { primary: from }) => {
                let lock_before = self.store.get(Key::Lock).copied();
                self.store.put(key, entry);
                self.record_lock_change(ctx, lock_before, DeleteCause::Release);
                self.persist();
                self.arm(ctx);
            }
            Msg::SwitchMaster { .. } if matches!(self.role, Role::Replica { .. }) => self.follow(ctx, from),
            Msg::SwitchMaster { .. } => self.on_demotion(ctx, from),
            Msg::ReplAck if self.role == Role::Primary && self.replicas.contains(&from) => {
                self.good.ack(from, unix_s(ctx.wall_ns()));
                self.note_refusal(ctx);
            }
            Msg::DemotionAck => self.sentinel.on_demotion_ack(ctx, from),
            _ => {}
        }
    }

    fn on_command(&mut self, ctx: &mut RedisCtx<'_>, from: NodeId, req: u64, cmd: Cmd) {
        if self.unavailable_until_ns.is_some() {
            return; // not accepting connections yet
        }
        let reply = match self.role {
            Role::Demoted { primary } => {
                // The client missed `+switch-master` (it was cut off when Sentinel published
                // it once): after the refusal, it learns the master as it would from Sentinel.
                ctx.send(from, Msg::RedisReply { req, reply: READONLY });
                ctx.send(from, Msg::SwitchMaster { primary });
                return;
            }
            Role::Replica { .. } => READONLY,
            Role::Primary => {
                self.expire(ctx);
                if let Some(refused) = self.good.refusal(cmd, &self.store) {
                    ctx.send(from, Msg::RedisReply { req, reply: refused });
                    return;
                }
                let before = [Key::Lock, Key::Fence].map(|k| self.store.get(k).copied());
                let reply = self.store.exec(cmd, self.now_ns(ctx));
                let cause = match cmd {
                    Cmd::Del { .. } => DeleteCause::PlainDel,
                    _ => DeleteCause::Release,
                };
                self.record_lock_change(ctx, before[0], cause);
                let fence = self.store.get(Key::Fence).copied();
                if let (
                    Some(Entry {
                        value: Value::Int(token),
                        ..
                    }),
                    true,
                ) = (fence, fence != before[1])
                {
                    ctx.record(LockObs::TokenIssued {
                        token: token as u64,
                        lease: None,
                    });
                }
                for (key, old) in [Key::Lock, Key::Fence].into_iter().zip(before) {
                    let new = self.store.get(key).copied();
                    if new != old {
                        self.replicate(ctx, key, new);
                    }
                }
                self.persist();
                self.arm(ctx);
                reply
            }
        };
        ctx.send(from, Msg::RedisReply { req, reply });
    }

    fn persist(&mut self) {
        if self.cfg.persistence == Persistence::Always {
            self.synced = self.store.clone();
        }
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
            REPLICATE => self.flush_backlog(ctx),
            REPL_ACK if let Role::Replica { primary } = self.role => {
                ctx.send(primary, Msg::ReplAck);
                ctx.set_timer(REPL_ACK, SECOND_NS);
            }
            REPL_CRON if self.role == Role::Primary => {
                self.good.refresh(unix_s(ctx.wall_ns()));
                self.note_refusal(ctx);
                ctx.set_timer(REPL_CRON, SECOND_NS);
            }
            sentinel::RECONFIGURE => self.sentinel.on_reconfigure(ctx),
            AVAILABLE => {
                self.unavailable_until_ns = None;
                ctx.record(LockObs::RoleChanged {
                    authoritative: true,
                    role: "available again".into(),
                });
            }
            _ => {}
        }
    }

    /// Sentinel promotes the replica of `primary` (only the heir promotes itself), which
    /// tells the clients, its siblings and the old primary ([`Sentinel::announce_promotion`]).
    pub fn on_failover(&mut self, ctx: &mut RedisCtx<'_>, primary: NodeId) {
        if self.role != (Role::Replica { primary }) || !self.heir {
            return;
        }
        self.role = Role::Primary;
        self.replicas = self.siblings.clone();
        if self.counts_acks() {
            // The siblings come online here when their first ack arrives.
            ctx.set_timer(REPL_CRON, SECOND_NS);
        }
        ctx.record(LockObs::RoleChanged {
            authoritative: true,
            role: "promoted to primary".into(),
        });
        self.note_refusal(ctx);
        self.sentinel.announce_promotion(ctx, primary, &self.siblings);
    }

    /// A primary refusing writes for want of good replicas (`min-replicas-to-write`) can
    /// grant, extend or release nothing, so it serves the lock no more than a replica does;
    /// it says so whenever that changes, for the checkers that ask who could grant the lock.
    /// A replica or a demoted primary says what it is by its own role changes.
    fn note_refusal(&mut self, ctx: &mut RedisCtx<'_>) {
        let refusing = self.good.refusing();
        if self.role != Role::Primary || refusing == self.refusing_noted {
            return;
        }
        self.refusing_noted = refusing;
        ctx.record(LockObs::RoleChanged {
            authoritative: !refusing,
            role: if refusing {
                "refusing writes: NOREPLICAS"
            } else {
                "accepting writes again"
            }
            .into(),
        });
    }

    pub fn on_crash(&mut self, ctx: &mut RedisCtx<'_>) {
        let lock_before = self.store.get(Key::Lock).copied();
        self.store = match self.cfg.persistence {
            Persistence::None => Store::default(),
            Persistence::EverySec | Persistence::Always => self.synced.clone(),
        };
        self.armed_ns = None;
        self.backlog.clear();
        self.good.forget();
        self.crashed = true;
        self.unavailable_until_ns = None;
        self.record_lock_change(ctx, lock_before, DeleteCause::Crash);
    }

    /// A stepped wall clock: expire what is now due, re-aim the timer.
    pub fn on_clock_jump(&mut self, ctx: &mut RedisCtx<'_>) {
        self.armed_ns = None;
        self.expire(ctx);
    }
}
