//! The PostgreSQL lease row (`kind = "postgres-lease"`): seed 000's lease table in the same
//! database as the business row. A client claims the row (owner, epoch + 1, `expires_at =
//! ts + ttl`), reads the counter, works, guards (`SELECT ... WHERE epoch = :epoch AND
//! expires_at > ts FOR UPDATE`) and writes the counter. The variants the seed and the
//! PostgreSQL manual tell apart: the guard inside the write's transaction (the row stays
//! locked until `COMMIT`: a paused holder's late write is serialised before any new claim) or
//! in a transaction of its own (stale); `ts` from the database's `clock_timestamp()`, from
//! `now()` (the start of the transaction, which under `begin = "before-read"` opens before the
//! work: the guard passes on a lease that has expired in truth, and the row lock and the epoch
//! still keep the late write before any new holder's), or from the client's clock (a client
//! whose clock runs ahead steals a live lease); and
//! `idle_in_transaction_session_timeout`, which ends a transaction left open by a holder that
//! stopped or vanished (without it the row stays locked for good). With `lock = "advisory"` the
//! clients take a session-level advisory lock instead, which ends with its session (for a
//! host that crashed or was cut off, when TCP keepalive gives up on its connection: 2 h 11 min
//! with Linux's defaults), and which a transaction-mode pooler (`pooler = "transaction"`)
//! hands to every client of the pool.
//!
//! Sources: seed 000 ("同库事务可以直接保护写入"); PostgreSQL 15 manual, 9.9.5 "Current Date/Time",
//! 13.3.2 "Row-Level Locks", `SELECT` "The Locking Clause" (`NOWAIT`), 20.11
//! `idle_in_transaction_session_timeout`, 20.3.1 `tcp_keepalives_*`, 9.27.10 "Advisory Lock
//! Functions"; PgBouncer's
//! "Features" page (session-level advisory locks do not work in transaction pooling).

pub mod advisory;
pub mod begun;
pub mod client;
pub mod config;
pub mod keepalive;
pub mod msg;
pub mod obs;
pub mod server;

use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS, MAX_MS};
use crate::layout::{Layout, Role};
use crate::lock::check::LOCK_INVARIANTS;
use crate::lock::knobs::parse_liveness_window;
use crate::lock::{LockJudge, LockSetup, SERVER_GROUP};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use advisory::Pooler;
use client::{Begin, ClientConfig, Guard, LockKind, PgClient};
use keepalive::{KeepaliveConfig, LINUX_DEFAULTS};
use locksim_sim::time::NS_PER_MS;
use msg::PgMsg;
use obs::PgObs;
use server::{ExpiryClock, PgServer, ServerConfig};

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "postgres-lease",
    summary: "seed 000's lease row in PostgreSQL: claim with an epoch, guard with SELECT ... FOR UPDATE in the write's transaction or apart, expiry by clock_timestamp(), now() or the client's clock, idle_in_transaction_session_timeout; or a session-level advisory lock, direct or behind a transaction-mode pooler; TCP keepalive ends a vanished client's session",
    parse: PgLease::parse,
    invariants: LOCK_INVARIANTS,
    protections: &[
        "protocol.guard",
        "protocol.expiry_clock",
        "protocol.idle_in_transaction_session_timeout_ms",
        "protocol.pooler",
        "protocol.tcp_keepalives_idle_ms",
        "protocol.tcp_keepalives_interval_ms",
        "protocol.tcp_keepalives_count",
    ],
};

/// `kind = "postgres-lease"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgLease {
    pub clients: u32,
    pub client: ClientConfig,
    pub server: ServerConfig,
    pub liveness_window_ns: u64,
}

impl PgLease {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lease clients client-0..")? as u32;
        let ttl_ns = k.millis(
            "ttl_ms",
            10_000,
            1,
            HOUR_MS,
            "the lease: expires_at = ts + this; the client's deadline is its claim's send + this",
        )?;
        let lock = k.choice(
            "lock",
            &[("lease-row", LockKind::LeaseRow), ("advisory", LockKind::Advisory)],
            LockKind::LeaseRow,
            "seed 000's lease row, or a session-level advisory lock (pg_try_advisory_lock; no TTL, no guard)",
        )?;
        let client = ClientConfig {
            lock,
            ttl_ns,
            work_ns: k.millis("work_ms", 1_000, 0, HOUR_MS, "time between reading the counter and guarding")?,
            think_ns: k.millis("think_ms", 200, 0, HOUR_MS, "pause after releasing, before the next round")?,
            retry_ns: k.millis(
                "retry_ms",
                100,
                1,
                HOUR_MS,
                "base retry delay; doubles per failed claim up to 4x, plus up to half of it as jitter",
            )?,
            request_timeout_ns: k.millis(
                "request_timeout_ms",
                1_000,
                1,
                HOUR_MS,
                "how long a client waits for an answer before closing its connection",
            )?,
            start_stagger_ns: k.millis(
                "start_stagger_ms",
                10,
                0,
                HOUR_MS,
                "client-i starts its first round at i x this",
            )?,
            guard: k.choice(
                "guard",
                &[("same-tx", Guard::SameTx), ("separate-tx", Guard::SeparateTx)],
                Guard::SameTx,
                "the guard SELECT ... FOR UPDATE inside the write's transaction (seed 000), or (wrong) committed on its own before the write",
            )?,
            begin: k.choice(
                "begin",
                &[("at-guard", Begin::AtGuard), ("before-read", Begin::BeforeRead)],
                Begin::AtGuard,
                "where the guard's transaction begins: just before the guard (seed 000), or before reading the counter, open through the work (its now() is then the moment before the work)",
            )?,
        };
        let server = ServerConfig {
            ttl_ns,
            expiry_clock: k.choice(
                "expiry_clock",
                &[
                    ("database", ExpiryClock::Database),
                    ("transaction-start", ExpiryClock::TransactionStart),
                    ("client", ExpiryClock::Client),
                ],
                ExpiryClock::Database,
                "ts in the lease statements: the database's clock_timestamp(), now() (the transaction's start, fixed within it), or (wrong) a timestamp from the client's own clock",
            )?,
            idle_timeout_ns: k.millis(
                "idle_in_transaction_session_timeout_ms",
                0,
                0,
                HOUR_MS,
                "the server ends a session idle this long inside a transaction, rolling it back (0 = off, PostgreSQL's default)",
            )?,
            pooler: k.choice(
                "pooler",
                &[("none", Pooler::None), ("transaction", Pooler::Transaction)],
                Pooler::None,
                "between clients and server: nothing, or (wrong for advisory locks) PgBouncer in transaction mode with a pool of one server connection",
            )?,
            keepalive: KeepaliveConfig {
                idle_ns: k.millis(
                    "tcp_keepalives_idle_ms",
                    LINUX_DEFAULTS.idle_ns / NS_PER_MS,
                    1,
                    MAX_MS,
                    "tcp_keepalives_idle: quiet time before the server probes a holder's connection (PostgreSQL's 0 = the OS's; Linux 7200 s)",
                )?,
                interval_ns: k.millis(
                    "tcp_keepalives_interval_ms",
                    LINUX_DEFAULTS.interval_ns / NS_PER_MS,
                    1,
                    MAX_MS,
                    "tcp_keepalives_interval: between unanswered probes (Linux 75 s)",
                )?,
                count: k.uint(
                    "tcp_keepalives_count",
                    u64::from(LINUX_DEFAULTS.count),
                    1,
                    1_000,
                    "tcp_keepalives_count: unanswered probes before the server drops the connection, ending its session (Linux 9)",
                )? as u32,
            },
        };
        if client.begin == Begin::BeforeRead && server.idle_timeout_ns > 0 {
            // The server times one idle transaction, the guard's that holds the row; one open
            // through the work on every client at once is not modelled.
            return Err(k.error(
                "begin",
                "\"before-read\" cannot be combined with idle_in_transaction_session_timeout_ms > 0 (not modelled: the timeout would also run through the work of every client's open transaction)",
            ));
        }
        if client.begin == Begin::BeforeRead && lock == LockKind::Advisory {
            return Err(k.error(
                "begin",
                "\"before-read\" applies to the lease row's guard; lock = \"advisory\" has no guard",
            ));
        }
        let liveness_window_ns = parse_liveness_window(k, ttl_ns)?;
        Ok(Box::new(PgLease {
            clients,
            client,
            server,
            liveness_window_ns,
        }))
    }

    /// The nodes: the clients, then the database server.
    fn declare(&self) -> (Layout, Vec<NodeId>, NodeId) {
        let mut layout = Layout::default();
        let clients = layout.group("client", self.clients, Role::Client, obs::CLIENT_EVENTS);
        let server = layout.group(SERVER_GROUP, 1, Role::Server, obs::SERVER_EVENTS)[0];
        (layout, clients, server)
    }

    pub fn build(&self, setting: Setting<'_>) -> (Vec<NodeSetup<PgNode>>, LockSetup) {
        let (layout, clients, server) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &c) in clients.iter().enumerate() {
            nodes.add(c, PgNode::Client(PgClient::new(self.client, i as u64, server)));
        }
        nodes.add(server, PgNode::Server(PgServer::new(self.server)));
        let setup = LockSetup {
            clients,
            servers: vec![server],
            quorum: 1,
            newest_serves_alone: false,
            liveness_window_ns: self.liveness_window_ns,
        };
        (nodes.finish(), setup)
    }
}

impl Protocol for PgLease {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    /// The lease row's epoch is a fencing token; an advisory lock has none.
    fn issues_tokens(&self) -> bool {
        self.client.lock == LockKind::LeaseRow
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (nodes, setup) = self.build(setting);
        run_world(nodes, setting, seed, recording, LockJudge::new(setup))
    }
}

/// Every role of the PostgreSQL lease world.
pub enum PgNode {
    Client(PgClient),
    Server(PgServer),
}

type PgCtx<'a> = Ctx<'a, PgMsg, PgObs>;

impl Node for PgNode {
    type Msg = PgMsg;
    type Obs = PgObs;

    fn on_start(&mut self, ctx: &mut PgCtx<'_>) {
        if let PgNode::Client(n) = self {
            n.on_start(ctx);
        }
    }

    fn on_msg(&mut self, ctx: &mut PgCtx<'_>, from: NodeId, msg: PgMsg) {
        match self {
            PgNode::Client(n) => n.on_msg(ctx, msg),
            PgNode::Server(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut PgCtx<'_>, tag: TimerTag) {
        match self {
            PgNode::Client(n) => n.on_timer(ctx, tag),
            PgNode::Server(n) => n.on_timer(ctx, tag),
        }
    }

    fn on_crash(&mut self, ctx: &mut PgCtx<'_>) {
        match self {
            PgNode::Client(n) => n.on_crash(),
            PgNode::Server(n) => n.on_crash(ctx),
        }
    }
}
