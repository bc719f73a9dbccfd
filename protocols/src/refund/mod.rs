//! The refund that runs twice (`kind = "refund"`, seed 004 9.10): workers take a refund's TTL
//! lock (`server-0`), look in the ledger (`ledger`), call the payment provider (`psp`, which
//! pays on acceptance and answers `psp_latency_ms` later), then write the ledger row with the
//! lock's token. A provider call slower than the TTL lets a second worker in; retries after a
//! timeout make more calls and more rows. Three protections, layered and not substitutes: a
//! strict fence on the ledger, the provider's idempotency key, a unique index on the intent
//! id. Its own model, not a workload on the lock models: its invariants are about the
//! provider's payouts and the ledger's rows, which no lock checker reads, and its lock is the
//! plain TTL lock every seed story starts from.
//!
//! Sources: seed 004, 9.10 (the failure chain, "锁 + 唯一索引还不够", the refund state machine)
//! and 9.6.2-9.6.4 (a strict fence refuses the holder's own retry with the same token; a new
//! token passes it); Stripe API reference, "Idempotent requests".

pub mod check;
pub mod ledger;
pub mod lock;
pub mod msg;
pub mod obs;
pub mod psp;
pub mod worker;

use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use ledger::{Ledger, LedgerConfig, LedgerFence};
use lock::LockServer;
use msg::RefundMsg;
use obs::{LEDGER_EVENTS, LOCK_EVENTS, PSP_EVENTS, RefundObs, WORKER_EVENTS};
use psp::Psp;
use worker::{Peers, Reuse, Worker, WorkerConfig};

/// Each refund is one lock, one provider call and one ledger row per worker that gets to it.
const MAX_REFUNDS: u64 = 100_000;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "refund",
    summary: "seed 004 9.10's refund: a TTL lock, a slow payment provider, a ledger; a strict ledger fence, the provider's idempotency key and a unique index on the intent, layered; retries with the same or a new intent and token",
    parse: Refund::parse,
    invariants: check::REFUND_INVARIANTS,
    protections: &[
        "protocol.ledger_fence",
        "protocol.idempotency_key",
        "protocol.unique_index",
        "protocol.retry_intent",
        "protocol.retry_token",
    ],
};

/// `kind = "refund"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refund {
    pub workers: u32,
    pub ttl_ns: u64,
    pub psp_latency_ns: u64,
    pub worker: WorkerConfig,
    pub ledger: LedgerConfig,
}

impl Refund {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let workers = k.uint("clients", 2, 1, MAX_CLIENTS, "refund workers client-0..")? as u32;
        let refunds = k.uint(
            "refunds",
            1,
            1,
            MAX_REFUNDS,
            "refunds 1..=this, each worker takes them in turn",
        )?;
        let ttl_ns = k.millis(
            "ttl_ms",
            30_000,
            1,
            HOUR_MS,
            "the refund lock's TTL (seed 004 9.10: 30 s)",
        )?;
        let psp_latency_ns = k.millis(
            "psp_latency_ms",
            5_000,
            0,
            HOUR_MS,
            "how long the provider takes to answer a call it has already paid out",
        )?;
        let reuse = [("same", Reuse::Same), ("new", Reuse::New)];
        let worker = WorkerConfig {
            refunds,
            idempotency_key: k.bool(
                "idempotency_key",
                true,
                "the provider call carries the intent id as its Idempotency-Key",
            )?,
            retry_intent: k.choice(
                "retry_intent",
                &reuse,
                Reuse::Same,
                "a provider call that timed out is retried with the same intent, or (wrong) a new intent id (seed 004 9.10.1's R2)",
            )?,
            retry_token: k.choice(
                "retry_token",
                &reuse,
                Reuse::Same,
                "a ledger write that timed out is retried with the same token, or by locking again for a new one",
            )?,
            max_retries: k.uint("max_retries", 1, 0, 100, "retries of a timed-out provider call or ledger write")? as u32,
            retry_ns: k.millis("retry_ms", 1_000, 1, HOUR_MS, "how often a worker tries a taken lock again")?,
            psp_timeout_ns: k.millis(
                "psp_timeout_ms",
                60_000,
                1,
                HOUR_MS,
                "how long a worker waits for the provider before retrying",
            )?,
            request_timeout_ns: k.millis(
                "request_timeout_ms",
                1_000,
                1,
                HOUR_MS,
                "how long a worker waits for the lock service or the ledger",
            )?,
            start_stagger_ns: k.millis("start_stagger_ms", 10, 0, HOUR_MS, "client-i starts at i x this")?,
        };
        let ledger = LedgerConfig {
            fence: k.choice(
                "ledger_fence",
                &[("none", LedgerFence::None), ("strict", LedgerFence::Strict)],
                LedgerFence::Strict,
                "the ledger accepts a row only with a token above the refund's max fence (strict), or checks none",
            )?,
            unique_index: k.bool("unique_index", true, "UNIQUE(intent_id) on the ledger")?,
        };
        Ok(Box::new(Refund {
            workers,
            ttl_ns,
            psp_latency_ns,
            worker,
            ledger,
        }))
    }

    /// The nodes: the workers, the lock service, the provider, the ledger.
    fn declare(&self) -> (Layout, Vec<NodeId>, Peers) {
        let mut layout = Layout::default();
        let workers = layout.group("client", self.workers, Role::Client, WORKER_EVENTS);
        let lock = layout.group("server", 1, Role::Server, LOCK_EVENTS)[0];
        let psp = layout.one("psp", Role::Server, PSP_EVENTS);
        let ledger = layout.one("ledger", Role::Resource, LEDGER_EVENTS);
        (layout, workers, Peers { lock, psp, ledger })
    }

    pub fn build(&self, setting: Setting<'_>) -> Vec<NodeSetup<RefundNode>> {
        let (layout, workers, peers) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &w) in workers.iter().enumerate() {
            nodes.add(w, RefundNode::Worker(Worker::new(self.worker, i as u64, peers)));
        }
        nodes.add(peers.lock, RefundNode::Lock(LockServer::new(self.ttl_ns)));
        nodes.add(peers.psp, RefundNode::Psp(Psp::new(self.psp_latency_ns)));
        nodes.add(peers.ledger, RefundNode::Ledger(Ledger::new(self.ledger)));
        nodes.finish()
    }
}

impl Protocol for Refund {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        run_world(
            self.build(setting),
            setting,
            seed,
            recording,
            check::RefundJudge::default(),
        )
    }
}

/// Every role of the refund world.
pub enum RefundNode {
    Worker(Worker),
    Lock(LockServer),
    Psp(Psp),
    Ledger(Ledger),
}

type RefundCtx<'a> = Ctx<'a, RefundMsg, RefundObs>;

impl Node for RefundNode {
    type Msg = RefundMsg;
    type Obs = RefundObs;

    fn on_start(&mut self, ctx: &mut RefundCtx<'_>) {
        if let RefundNode::Worker(n) = self {
            n.on_start(ctx);
        }
    }

    fn on_msg(&mut self, ctx: &mut RefundCtx<'_>, from: NodeId, msg: RefundMsg) {
        match self {
            RefundNode::Worker(n) => n.on_msg(ctx, msg),
            RefundNode::Lock(n) => n.on_msg(ctx, from, msg),
            RefundNode::Psp(n) => n.on_msg(ctx, from, msg),
            RefundNode::Ledger(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut RefundCtx<'_>, tag: TimerTag) {
        match self {
            RefundNode::Worker(n) => n.on_timer(ctx, tag),
            RefundNode::Psp(n) => n.on_timer(ctx),
            RefundNode::Lock(_) | RefundNode::Ledger(_) => {}
        }
    }

    /// The lock service, the provider and the ledger keep what they committed; a worker and
    /// the provider's unsent answers are lost.
    fn on_crash(&mut self, _ctx: &mut RefundCtx<'_>) {
        match self {
            RefundNode::Worker(n) => n.on_crash(),
            RefundNode::Psp(n) => n.on_crash(),
            RefundNode::Lock(_) | RefundNode::Ledger(_) => {}
        }
    }
}
