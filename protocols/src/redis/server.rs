//! A Redis server node: the [`Store`]'s semantics plus what a process adds — active expiry by
//! its own clock (a forward wall-clock jump expires keys at once), persistence across crashes,
//! asynchronous replication to a replica with a lag, failover and demotion, a delayed restart,
//! and the lock-key facts the checkers read.

use std::collections::VecDeque;

use locksim_sim::{Ctx, NodeId, TimerTag};
use serde::Serialize;

use super::cmd::{Cmd, Key, Reply, Value};
use super::min_replicas::{GoodReplicas, MinReplicasConfig, unix_s};
use super::store::{Entry, Store};
use crate::lock::LockObs;
use crate::lock::obs::{ClockKind, DeleteCause, Expiry};
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

/// The clock key expiry follows. Real Redis uses the wall clock (redis/redis#217, #416).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerClock {
    Wall,
    Monotonic,
}

/// How a server is run.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RedisConfig {
    pub persistence: Persistence,
    pub clock: ServerClock,
    /// After a crash, stay unavailable this long after restarting (Redlock's advice: longer
    /// than the TTL, so that no lock the crash forgot can be granted again while still valid).
    pub delayed_restart_ns: u64,
    /// `min-replicas-to-write` / `min-replicas-max-lag`, for a primary with replicas.
    pub min_replicas: MinReplicasConfig,
}

/// Where a server stands in its replication group.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// Serves clients; streams its writes to its replicas (with the lag).
    Primary,
    /// Applies `primary`'s stream; the heir among them takes over on failover.
    Replica { primary: NodeId },
    /// A primary that learned it was replaced: answers clients with `READONLY`.
    /// `primary` replaced it: a client that gets `READONLY` here is told of it (a
    /// Sentinel-aware client asks Sentinel for the master after `READONLY`).
    Demoted { primary: NodeId },
}

/// What a replica, or a primary Sentinel demoted, answers a write.
const READONLY: Reply = Reply::Error("READONLY You can't write against a read only replica.");

const EXPIRE: TimerTag = 0;
const FSYNC: TimerTag = 1;
const REPLICATE: TimerTag = 2;
const AVAILABLE: TimerTag = 3;
const RECONFIGURE: TimerTag = 4;
/// A replica's `REPLCONF ACK`, once a second.
const REPL_ACK: TimerTag = 5;
/// A primary's replication cron, once a second: refreshes the count of good replicas.
const REPL_CRON: TimerTag = 6;
const SECOND_NS: u64 = 1_000_000_000;
/// How often Sentinel asks every instance it monitors for its `INFO` (`SENTINEL_INFO_PERIOD`,
/// 10 s in sentinel.c). An old primary that still reports `role:master` after a failover is
/// sent `REPLICAOF` again at that pace, for as long as it does: the model re-sends the
/// demotion at this period until the old primary acknowledges it.
const SENTINEL_INFO_PERIOD_NS: u64 = 10 * SECOND_NS;

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
    /// Who hears a promotion (Sentinel's `+switch-master` reaches clients through the network).
    clients: Vec<NodeId>,
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
    /// After this server was promoted: the old primary, until it acknowledges its demotion.
    /// Sentinel's state rather than the server's (the model lets the promoted replica speak
    /// for Sentinel), so a crash of this server does not forget it.
    demoting: Option<NodeId>,
}

type RedisCtx<'a> = Ctx<'a, Msg, LockObs>;

fn lease_of(e: &Entry) -> u64 {
    match e.value {
        Value::Lease(l) => l,
        Value::Int(_) => 0,
    }
}

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
            clients,
            store: Store::default(),
            synced: Store::default(),
            armed_ns: None,
            backlog: VecDeque::new(),
            crashed: false,
            unavailable_until_ns: None,
            demoting: None,
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

    /// The server's clock for expiry.
    fn now_ns(&self, ctx: &RedisCtx<'_>) -> i64 {
        match self.cfg.clock {
            ServerClock::Wall => ctx.wall_ns(),
            ServerClock::Monotonic => ctx.mono_ns() as i64,
        }
    }

    fn expiry_of(&self, e: &Entry) -> Option<Expiry> {
        let clock = match self.cfg.clock {
            ServerClock::Wall => ClockKind::Wall,
            ServerClock::Monotonic => ClockKind::Mono,
        };
        e.expires_at_ns.map(|at_ns| Expiry { clock, at_ns })
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
        if self.demoting.is_some() {
            // The crash cancelled the timer; Sentinel kept its view and goes on reconfiguring.
            ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
        }
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
            Msg::DemotionAck if self.demoting == Some(from) => {
                self.demoting = None;
                ctx.cancel_timer(RECONFIGURE);
            }
            _ => {}
        }
    }

    /// Sentinel's `REPLICAOF` reaches the old primary: it stops serving (once) and reports its
    /// new role. It answers every copy, since the answer to an earlier one may have been lost.
    /// A server still unavailable after a delayed restart accepts no connection, Sentinel's
    /// included: it stays silent and is asked again.
    fn on_demotion(&mut self, ctx: &mut RedisCtx<'_>, from: NodeId) {
        if self.unavailable_until_ns.is_some() {
            return;
        }
        if self.role == Role::Primary {
            self.role = Role::Demoted { primary: from };
            self.backlog.clear();
            ctx.record(LockObs::RoleChanged {
                authoritative: false,
                role: "demoted: a replica was promoted".into(),
            });
        }
        if matches!(self.role, Role::Demoted { .. }) {
            ctx.send(from, Msg::DemotionAck);
        }
    }

    /// Sentinel's `REPLICAOF` to another replica of the failed primary: it follows the
    /// promoted one, and acks at once (its sync handshake), which puts it online there. It
    /// keeps its keyspace, as a partial resync would; what the two replicas had received of
    /// the old primary's stream is not reconciled — it matters only to a second failover,
    /// which the model does not make (only replica-0 is ever promoted).
    fn follow(&mut self, ctx: &mut RedisCtx<'_>, primary: NodeId) {
        if self.unavailable_until_ns.is_some() {
            return;
        }
        self.role = Role::Replica { primary };
        if self.counts_acks() {
            ctx.send(primary, Msg::ReplAck);
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

    /// Queues a write for the replicas, to leave after the replication lag.
    fn replicate(&mut self, ctx: &mut RedisCtx<'_>, key: Key, entry: Option<Entry>) {
        if self.role == Role::Primary && !self.replicas.is_empty() {
            let lag_ns = self.replication_lag_ns;
            if self.backlog.is_empty() {
                ctx.set_timer(REPLICATE, lag_ns);
            }
            self.backlog.push_back((ctx.mono_ns() + lag_ns, key, entry));
        }
    }

    /// Sends what has waited out the lag, and waits for the next.
    fn flush_backlog(&mut self, ctx: &mut RedisCtx<'_>) {
        if self.role != Role::Primary {
            return;
        }
        while let Some(&(due_ns, key, entry)) = self.backlog.front() {
            if due_ns > ctx.mono_ns() {
                ctx.set_timer(REPLICATE, due_ns - ctx.mono_ns());
                return;
            }
            self.backlog.pop_front();
            for &replica in &self.replicas {
                ctx.send(replica, Msg::Replicate { key, entry });
            }
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
            RECONFIGURE => {
                if let Some(old) = self.demoting {
                    ctx.send(old, Msg::SwitchMaster { primary: ctx.me() });
                    ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
                }
            }
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

    /// Sentinel promotes the replica of `primary`, which tells the clients and the old primary.
    ///
    /// The clients hear `+switch-master` once, as Sentinel publishes it once. The old primary
    /// is told again every `SENTINEL_INFO_PERIOD_NS` (10 s) until it acknowledges: a partition or a
    /// crash may swallow the first demotion, and real Sentinel does not give up on it either —
    /// it keeps polling the old master and reconfigures it as a replica as soon as it can
    /// reach it again (the Sentinel documentation: "when the partition will heal, the master
    /// will be reconfigured as a replica of the new master"). Sent only once, a lost demotion
    /// would leave two primaries for ever. Retrying on Sentinel's own polling period, rather
    /// than delivering the demotion the instant a partition heals, keeps the model's split
    /// brain about as long as a real one lasts (sentinel.c also waits 8 s, four publish
    /// periods, after the role report before its `+convert-to-slave`; that is not modelled).
    ///
    /// Only the heir promotes itself; the primary's other replicas are reconfigured to follow
    /// it by the same `+switch-master` (Sentinel's `REPLICAOF` to each), through the network.
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
        for &node in self.clients.iter().chain(&self.siblings) {
            ctx.send(node, Msg::SwitchMaster { primary: ctx.me() });
        }
        ctx.send(primary, Msg::SwitchMaster { primary: ctx.me() });
        self.demoting = Some(primary);
        ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
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

    /// Active expiry: removes every key due by the server's clock and re-arms the timer.
    fn expire(&mut self, ctx: &mut RedisCtx<'_>) {
        let now_ns = self.now_ns(ctx);
        let mut gone = [None; 2];
        self.store.purge_expired(now_ns, |key, entry| {
            gone[key as usize] = Some(entry);
        });
        for (key, entry) in [Key::Lock, Key::Fence].into_iter().zip(gone) {
            if let Some(entry) = entry {
                if key == Key::Lock {
                    ctx.record(LockObs::KeyExpired {
                        lease: lease_of(&entry),
                    });
                }
                self.replicate(ctx, key, None);
            }
        }
        self.arm(ctx);
    }

    /// Sets the expiry timer for the earliest key, unless it is already set for that or an
    /// earlier instant (an early firing just re-arms). Both clocks run at the same rate, so a
    /// distance on the expiry clock is a valid timer duration until a jump, and a jump re-arms.
    fn arm(&mut self, ctx: &mut RedisCtx<'_>) {
        let Some(at_ns) = self.store.earliest_expiry() else {
            return;
        };
        if self.armed_ns.is_some_and(|armed| armed <= at_ns) {
            return;
        }
        self.armed_ns = Some(at_ns);
        // A key expires just after its instant (Redis's rule), so the timer aims 1 ns past it.
        ctx.set_timer(EXPIRE, (at_ns - self.now_ns(ctx) + 1).max(0) as u64);
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
                expiry: self.expiry_of(&a),
            }),
            (Some(b), Some(a)) if b.expires_at_ns != a.expires_at_ns => ctx.record(LockObs::KeyExtended {
                lease: lease_of(&a),
                expiry: self.expiry_of(&a),
            }),
            _ => {}
        }
    }
}
