//! Scheduler slot dedup (DESIGN section 4; seed 000's `(job, slot)` key in the effect's
//! transaction, seed 001's "three ledgers" of scheduling, execution and effect): `schedulers`
//! instances `server-<i>` each fire the job for every period of their own clock, `clients`
//! workers `client-<i>` run its effect against the job store `resource`, and `dedup` decides
//! whether the store can tell that a slot already ran.

pub mod check;
pub mod database;
pub mod instance;
pub mod obs;
pub mod store;
pub mod worker;

use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS, MAX_MS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use database::Database;
use instance::{Instance, InstanceConfig};
use obs::{SCHEDULER_EVENTS, STORE_EVENTS, SchedMsg, SchedObs, WORKER_EVENTS};
use store::Dedup;
use worker::Worker;

/// Every instance fires every slot, so each one more multiplies a slot's messages: 16 is more
/// than any real deployment runs, and stays cheap.
const MAX_SCHEDULERS: u64 = 16;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "scheduler",
    summary: "scheduler instances firing (job, slot) by their own clocks, workers running the effect against a job store; dedup by the (job, slot) key in the effect's transaction, a done-mark written after it, or none",
    parse: Scheduler::parse,
    invariants: check::SCHEDULER_INVARIANTS,
    // The (job, slot) key in the effect's transaction, a done-mark, or nothing.
    protections: &["protocol.dedup"],
};

/// `kind = "scheduler"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scheduler {
    pub schedulers: u32,
    pub clients: u32,
    pub period_ns: u64,
    pub dedup: Dedup,
    pub retry_ns: u64,
    pub max_attempts: u32,
    pub request_timeout_ns: u64,
}

impl Scheduler {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let schedulers = k.uint(
            "schedulers",
            3,
            1,
            MAX_SCHEDULERS,
            "scheduler instances server-0.., each firing every slot by its own clock",
        )? as u32;
        let clients = k.uint(
            "clients",
            2,
            1,
            MAX_CLIENTS,
            "workers client-0..; slot s goes to client-(s mod clients)",
        )? as u32;
        let period_ns = k.millis(
            "period_ms",
            10_000,
            1,
            MAX_MS,
            "the job's period: slot s starts at wall time s x this",
        )?;
        let dedup = k.choice(
            "dedup",
            &[
                ("same-tx", Dedup::SameTx),
                ("mark-after", Dedup::MarkAfter),
                ("none", Dedup::None),
            ],
            Dedup::SameTx,
            "the (job, slot) key committed in the effect's transaction, or (wrong) a done-mark written after the effect, or (wrong) nothing",
        )?;
        let retry_ns = k.millis(
            "retry_ms",
            3_000,
            1,
            HOUR_MS,
            "an instance re-sends a slot its worker has not reported done this often",
        )?;
        let max_attempts = k.uint(
            "max_attempts",
            5,
            1,
            1_000,
            "sends of one slot by one instance before it gives up",
        )? as u32;
        let request_timeout_ns = k.millis(
            "request_timeout_ms",
            1_000,
            1,
            HOUR_MS,
            "how long a worker waits for the store before dropping the job",
        )?;
        Ok(Box::new(Scheduler {
            schedulers,
            clients,
            period_ns,
            dedup,
            retry_ns,
            max_attempts,
            request_timeout_ns,
        }))
    }

    /// The nodes: the workers, the scheduler instances, the job store.
    fn declare(&self) -> (Layout, SchedNodes) {
        let mut layout = Layout::default();
        let workers = layout.group("client", self.clients, Role::Client, WORKER_EVENTS);
        let instances = layout.group("server", self.schedulers, Role::Server, SCHEDULER_EVENTS);
        let store = layout.one("resource", Role::Resource, STORE_EVENTS);
        let nodes = SchedNodes {
            workers,
            instances,
            store,
        };
        (layout, nodes)
    }

    /// How long after firing a slot may still be unrun: its instances' whole retry window.
    pub fn settle_ns(&self) -> u64 {
        self.retry_ns.saturating_mul(u64::from(self.max_attempts))
    }

    pub fn build(&self, setting: Setting<'_>) -> Vec<NodeSetup<SchedNode>> {
        let (
            layout,
            SchedNodes {
                workers,
                instances,
                store,
            },
        ) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for &w in &workers {
            nodes.add(
                w,
                SchedNode::Worker(Worker::new(self.dedup, store, self.request_timeout_ns)),
            );
        }
        let cfg = InstanceConfig {
            period_ns: self.period_ns,
            retry_ns: self.retry_ns,
            max_attempts: self.max_attempts,
            workers,
        };
        for &i in &instances {
            nodes.add(i, SchedNode::Instance(Instance::new(cfg.clone())));
        }
        nodes.add(store, SchedNode::Database(Database::default()));
        nodes.finish()
    }
}

/// The scheduler world's nodes, by what they are.
struct SchedNodes {
    workers: Vec<NodeId>,
    instances: Vec<NodeId>,
    store: NodeId,
}

impl Protocol for Scheduler {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let settle_ns = self.settle_ns();
        run_world(
            self.build(setting),
            setting,
            seed,
            recording,
            check::ExactlyOnceJudge::new(settle_ns),
        )
    }
}

/// Every role of a scheduler world.
pub enum SchedNode {
    Worker(Worker),
    Instance(Instance),
    Database(Database),
}

type SchedCtx<'a> = Ctx<'a, SchedMsg, SchedObs>;

impl Node for SchedNode {
    type Msg = SchedMsg;
    type Obs = SchedObs;

    fn on_start(&mut self, ctx: &mut SchedCtx<'_>) {
        if let SchedNode::Instance(n) = self {
            n.on_start(ctx);
        }
    }

    fn on_msg(&mut self, ctx: &mut SchedCtx<'_>, from: NodeId, msg: SchedMsg) {
        match self {
            SchedNode::Worker(n) => n.on_msg(ctx, from, msg),
            SchedNode::Instance(n) => n.on_msg(ctx, from, msg),
            SchedNode::Database(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut SchedCtx<'_>, tag: TimerTag) {
        match self {
            SchedNode::Worker(n) => n.on_timer(ctx, tag),
            SchedNode::Instance(n) => n.on_timer(ctx, tag),
            SchedNode::Database(_) => {}
        }
    }

    /// The store is a database and loses nothing; workers and instances forget what they held.
    fn on_crash(&mut self, _ctx: &mut SchedCtx<'_>) {
        match self {
            SchedNode::Worker(n) => n.on_crash(),
            SchedNode::Instance(n) => n.on_crash(),
            SchedNode::Database(_) => {}
        }
    }

    fn on_clock_jump(&mut self, ctx: &mut SchedCtx<'_>) {
        if let SchedNode::Instance(n) = self {
            n.on_clock_jump(ctx);
        }
    }
}
