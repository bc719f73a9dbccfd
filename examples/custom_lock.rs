//! A lock protocol defined outside locksim's crates, built only on their public APIs, and
//! explored with the same plan strategy and checkers as the built-in models.
//!
//! ```text
//! cargo run --example custom_lock
//! ```
//!
//! The protocol: a lease lock whose fencing tokens come from a separate counter service.
//! Each client takes the lock on a Redis (`SET lock <lease> NX PX ttl`), *then* asks the
//! counter for the next token, reads the protected counter, works, checks its lease deadline
//! and writes with its token; it releases by compare-and-delete.
//!
//! - `client-0`, `client-1`: this file's own client ([`TokenLeaseClient`]).
//! - `server-0`: locksim's Redis server model (`locksim::protocols::redis::server::RedisServer`).
//! - `counter`: this file's own node type ([`CounterService`]): `NEXT` answers the next token. Its
//!   knob: whether the count survives a crash (written to disk before answering) or not.
//! - `resource`: locksim's fenced resource (`locksim::protocols::resource::Resource`), strict.
//!
//! The world's message type is this file's own ([`Wire`]). locksim's Redis server speaks the
//! lock world's messages (`locksim::protocols::redis::msg::Msg`), so it runs here through a
//! small adapter ([`lock_world_step`]): a step of it runs against a context of its own message
//! type, and its effects are replayed, in order, as this world's. The resource's logic is a
//! plain function (`Resource::handle`), wrapped the same way the built-in worlds wrap it.
//!
//! The run is a `World` of these nodes, judged by `check_lock` (mutual exclusion, fencing
//! order, stale writes, lost updates, token monotonicity, liveness). Plans come from
//! `locksim::plans` over a `PlanShape` built by hand, with the default fault space for it.
//! What the fencing design promises — the resource accepts tokens in order, and the counter
//! hands them out in order — must hold in every plan with the durable counter; with the
//! volatile counter proptest must falsify token monotonicity, and shrinks the plan.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;

use locksim::proptest::test_runner::{Config, RngSeed, TestCaseError, TestError, TestRunner};
use locksim::protocols::lock::check::{FENCING_ORDER, LOCK_INVARIANTS, TOKEN_MONOTONIC};
use locksim::protocols::lock::obs::{Deadline, RESOURCE_EVENTS};
use locksim::protocols::lock::resource::{Fencing, Resource, ResourceConfig, ResourceKind, ResourceOp, ResourceReply};
use locksim::protocols::lock::{LockObs, LockSetup, check_lock};
use locksim::protocols::redis::cmd::{Cmd, Key, Reply, Value};
use locksim::protocols::redis::min_replicas::MinReplicasConfig;
use locksim::protocols::redis::msg::Msg;
use locksim::protocols::redis::server::{Persistence, RedisConfig, RedisServer, Role as RedisRole, ServerClock};
use locksim::sim::rng::uniform;
use locksim::sim::time::NS_PER_MS;
use locksim::sim::{
    ClockSpec, Ctx, Effect, Level, NetworkConfig, Node, NodeId, NodeSetup, TimerTag, World, WorldConfig,
};
use locksim::{FaultSpace, Invariant, Plan, PlanShape, Role, Status, Verdict};

const DURATION_MS: u64 = 30_000;
const TTL_MS: u64 = 5_000;

// ---- the wire --------------------------------------------------------------------------

/// This world's messages: the lock world's (Redis commands and replies, resource requests
/// and replies), plus the counter service's.
#[derive(Clone, Debug)]
enum Wire {
    Lock(Msg),
    Next { req: u64 },
    Token { req: u64, token: u64 },
}

impl fmt::Display for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wire::Lock(m) => write!(f, "{m}"),
            Wire::Next { .. } => f.write_str("NEXT token"),
            Wire::Token { token, .. } => write!(f, "token {token}"),
        }
    }
}

type WireCtx<'a> = Ctx<'a, Wire, LockObs>;

/// Runs one step of a node written for the lock world's messages (`Msg`) inside this world:
/// against a context of its own, whose effects are then replayed here in order — so a fault
/// triggered after one of its records still holds back (or loses) what it did next.
fn lock_world_step(ctx: &mut WireCtx<'_>, step: impl FnOnce(&mut Ctx<'_, Msg, LockObs>)) {
    let mut effects = Vec::new();
    let (me, wall_ns, mono_ns) = (ctx.me(), ctx.wall_ns(), ctx.mono_ns());
    step(&mut Ctx::new(me, wall_ns, mono_ns, ctx.rng(), &mut effects));
    for effect in effects {
        match effect {
            Effect::Send { to, msg } => ctx.send(to, Wire::Lock(msg)),
            Effect::SetTimer { tag, after_ns } => ctx.set_timer(tag, after_ns),
            Effect::CancelTimer { tag } => ctx.cancel_timer(tag),
            Effect::Record(obs) => ctx.record(obs),
        }
    }
}

// ---- the counter service ---------------------------------------------------------------

/// Hands out tokens 1, 2, 3... `durable`: each new count is on disk before it is answered, so
/// a crash loses nothing; otherwise the count lives in memory and a restart begins at 1 again.
struct CounterService {
    durable: bool,
    count: u64,
}

impl CounterService {
    fn on_msg(&mut self, ctx: &mut WireCtx<'_>, from: NodeId, msg: Wire) {
        if let Wire::Next { req } = msg {
            self.count += 1;
            ctx.record(LockObs::TokenIssued {
                token: self.count,
                lease: None,
            });
            ctx.send(from, Wire::Token { req, token: self.count });
        }
    }

    fn on_crash(&mut self) {
        if !self.durable {
            self.count = 0;
        }
    }
}

// ---- the client ------------------------------------------------------------------------

/// The events the client records: what a fault's `after` on it may name.
const CLIENT_EVENTS: &[&str] = &[
    "acquire_started",
    "acquire_failed",
    "acquired",
    "read_done",
    "deadline_checked",
    "write_sent",
    "write_accepted",
    "write_rejected",
    "write_timed_out",
    "released",
    "lock_lost",
];

/// The one step timer (start, backoff, work, think) and the request timeout.
const STEP: TimerTag = 0;
const TIMEOUT: TimerTag = 1;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Thinking,
    Backoff,
    Acquiring,
    Fetching,
    Reading,
    Working,
    Writing,
    Releasing,
}

/// Where the client's peers are.
#[derive(Copy, Clone)]
struct Peers {
    redis: NodeId,
    counter: NodeId,
    resource: NodeId,
}

/// acquire (`SET NX PX`, retry with backoff) -> token from the counter -> read -> work ->
/// check the deadline -> write with the token -> release (compare-and-delete) -> think.
struct TokenLeaseClient {
    index: u64,
    peers: Peers,
    // Volatile: a crash forgets all of it.
    phase: Phase,
    next_req: u64,
    req: u64,
    lease: u64,
    attempt: u32,
    sent_mono_ns: u64,
    deadline_mono_ns: u64,
    token: Option<u64>,
    read_value: u64,
}

impl TokenLeaseClient {
    fn new(index: u64, peers: Peers) -> Self {
        TokenLeaseClient {
            index,
            peers,
            phase: Phase::Thinking,
            next_req: 0,
            req: 0,
            lease: 0,
            attempt: 0,
            sent_mono_ns: 0,
            deadline_mono_ns: 0,
            token: None,
            read_value: 0,
        }
    }

    fn on_start(&mut self, ctx: &mut WireCtx<'_>) {
        *self = TokenLeaseClient::new(self.index, self.peers);
        ctx.set_timer(STEP, self.index * 3 * NS_PER_MS);
    }

    fn request(&mut self, ctx: &mut WireCtx<'_>, to: NodeId, msg: impl FnOnce(u64) -> Wire) {
        self.next_req += 1;
        self.req = self.next_req;
        ctx.send(to, msg(self.req));
        ctx.set_timer(TIMEOUT, 500 * NS_PER_MS);
    }

    fn redis(&mut self, ctx: &mut WireCtx<'_>, cmd: Cmd) {
        let redis = self.peers.redis;
        self.request(ctx, redis, |req| Wire::Lock(Msg::Redis { req, cmd }));
    }

    fn resource(&mut self, ctx: &mut WireCtx<'_>, op: ResourceOp) {
        let resource = self.peers.resource;
        self.request(ctx, resource, |req| Wire::Lock(Msg::Resource { req, op }));
    }

    fn on_timer(&mut self, ctx: &mut WireCtx<'_>, tag: TimerTag) {
        match (tag, self.phase) {
            (STEP, Phase::Thinking) => {
                self.lease = uniform(ctx.rng(), 0, u64::MAX) | 1;
                self.attempt = 0;
                self.acquire(ctx);
            }
            (STEP, Phase::Backoff) => self.acquire(ctx),
            (STEP, Phase::Working) => self.write(ctx),
            (TIMEOUT, _) => {
                self.req = 0;
                match self.phase {
                    Phase::Acquiring => self.backoff(ctx),
                    Phase::Fetching | Phase::Reading => self.release(ctx),
                    Phase::Writing => {
                        ctx.record(LockObs::WriteTimedOut);
                        self.release(ctx);
                    }
                    Phase::Releasing => self.think(ctx),
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut WireCtx<'_>, msg: Wire) {
        let req = match &msg {
            Wire::Lock(Msg::RedisReply { req, .. } | Msg::ResourceReply { req, .. }) | Wire::Token { req, .. } => *req,
            _ => return,
        };
        if req != self.req || req == 0 {
            return; // a late answer to an abandoned request
        }
        self.req = 0;
        ctx.cancel_timer(TIMEOUT);
        match (self.phase, msg) {
            (Phase::Acquiring, Wire::Lock(Msg::RedisReply { reply: Reply::Ok, .. })) => {
                self.deadline_mono_ns = self.sent_mono_ns + TTL_MS * NS_PER_MS;
                self.phase = Phase::Fetching;
                let counter = self.peers.counter;
                self.request(ctx, counter, |req| Wire::Next { req });
            }
            (Phase::Acquiring, _) => {
                ctx.record(LockObs::AcquireFailed {
                    lease: self.lease,
                    why: "the key is held".into(),
                    validity_ns: 0,
                });
                self.backoff(ctx);
            }
            (Phase::Fetching, Wire::Token { token, .. }) => {
                self.token = Some(token);
                ctx.record(LockObs::Acquired {
                    lease: self.lease,
                    token: self.token,
                    validity_ns: self.remaining_ns(ctx),
                    deadline_mono_ns: Deadline::Mono(self.deadline_mono_ns),
                    servers: 1,
                });
                self.phase = Phase::Reading;
                self.resource(ctx, ResourceOp::Read);
            }
            (
                Phase::Reading,
                Wire::Lock(Msg::ResourceReply {
                    reply: ResourceReply::Value(v),
                    ..
                }),
            ) => {
                self.read_value = v;
                ctx.record(LockObs::ReadDone { value: v });
                self.phase = Phase::Working;
                ctx.set_timer(STEP, 500 * NS_PER_MS);
            }
            (Phase::Writing, Wire::Lock(Msg::ResourceReply { reply, .. })) => {
                match reply {
                    ResourceReply::Rejected { max } => ctx.record(LockObs::WriteRejected { token: self.token, max }),
                    _ => ctx.record(LockObs::WriteAccepted {
                        value: self.read_value + 1,
                    }),
                }
                self.release(ctx);
            }
            (Phase::Releasing, _) => self.think(ctx),
            _ => {}
        }
    }

    fn acquire(&mut self, ctx: &mut WireCtx<'_>) {
        self.attempt += 1;
        self.token = None;
        ctx.record(LockObs::AcquireStarted {
            lease: self.lease,
            attempt: self.attempt,
        });
        self.phase = Phase::Acquiring;
        // The lease's validity counts from the moment the acquire is sent.
        self.sent_mono_ns = ctx.mono_ns();
        let cmd = Cmd::SetNxPx {
            key: Key::Lock,
            value: Value::Lease(self.lease),
            px_ms: TTL_MS,
        };
        self.redis(ctx, cmd);
    }

    fn remaining_ns(&self, ctx: &WireCtx<'_>) -> i64 {
        self.deadline_mono_ns as i64 - ctx.mono_ns() as i64
    }

    fn write(&mut self, ctx: &mut WireCtx<'_>) {
        let remaining_ns = self.remaining_ns(ctx);
        ctx.record(LockObs::DeadlineChecked {
            remaining_ns,
            ok: remaining_ns > 0,
        });
        if remaining_ns <= 0 {
            ctx.record(LockObs::LockLost {
                why: "its lease deadline passed before the write".into(),
            });
            return self.release(ctx);
        }
        let value = self.read_value + 1;
        ctx.record(LockObs::WriteSent {
            token: self.token,
            value,
        });
        self.phase = Phase::Writing;
        let op = ResourceOp::Write {
            token: self.token,
            value,
            based_on: self.read_value,
            lease: self.lease,
        };
        self.resource(ctx, op);
    }

    fn release(&mut self, ctx: &mut WireCtx<'_>) {
        ctx.cancel_timer(STEP);
        ctx.record(LockObs::Released { lease: self.lease });
        self.phase = Phase::Releasing;
        let cmd = Cmd::DelIfEq {
            key: Key::Lock,
            value: Value::Lease(self.lease),
        };
        self.redis(ctx, cmd);
    }

    fn think(&mut self, ctx: &mut WireCtx<'_>) {
        self.phase = Phase::Thinking;
        ctx.set_timer(STEP, 200 * NS_PER_MS);
    }

    fn backoff(&mut self, ctx: &mut WireCtx<'_>) {
        self.phase = Phase::Backoff;
        let jitter = uniform(ctx.rng(), 0, 50);
        ctx.set_timer(STEP, (100 + jitter) * NS_PER_MS);
    }
}

// ---- the world -------------------------------------------------------------------------

/// Every node of this world.
enum CustomNode {
    Client(TokenLeaseClient),
    /// Boxed: a Redis server is by far the largest node.
    Redis(Box<RedisServer>),
    Counter(CounterService),
    Resource(Resource),
}

impl Node for CustomNode {
    type Msg = Wire;
    type Obs = LockObs;

    fn on_start(&mut self, ctx: &mut WireCtx<'_>) {
        match self {
            CustomNode::Client(c) => c.on_start(ctx),
            CustomNode::Redis(r) => lock_world_step(ctx, |c| r.on_start(c)),
            CustomNode::Counter(_) | CustomNode::Resource(_) => {}
        }
    }

    fn on_msg(&mut self, ctx: &mut WireCtx<'_>, from: NodeId, msg: Wire) {
        match (self, msg) {
            (CustomNode::Client(c), msg) => c.on_msg(ctx, msg),
            (CustomNode::Redis(r), Wire::Lock(msg)) => lock_world_step(ctx, |c| r.on_msg(c, from, msg)),
            (CustomNode::Counter(n), msg) => n.on_msg(ctx, from, msg),
            (CustomNode::Resource(r), Wire::Lock(Msg::Resource { req, op })) => {
                let (reply, obs) = r.handle(from, op);
                if let Some(obs) = obs {
                    ctx.record(obs);
                }
                ctx.send(from, Wire::Lock(Msg::ResourceReply { req, reply }));
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, ctx: &mut WireCtx<'_>, tag: TimerTag) {
        match self {
            CustomNode::Client(c) => c.on_timer(ctx, tag),
            CustomNode::Redis(r) => lock_world_step(ctx, |c| r.on_timer(c, tag)),
            CustomNode::Counter(_) | CustomNode::Resource(_) => {}
        }
    }

    fn on_crash(&mut self, ctx: &mut WireCtx<'_>) {
        match self {
            CustomNode::Client(_) => {} // on_start begins afresh
            CustomNode::Redis(r) => lock_world_step(ctx, |c| r.on_crash(c)),
            CustomNode::Counter(n) => n.on_crash(),
            CustomNode::Resource(r) => {
                if let Some(obs) = r.crash() {
                    ctx.record(obs);
                }
            }
        }
    }

    fn on_clock_jump(&mut self, ctx: &mut WireCtx<'_>) {
        if let CustomNode::Redis(r) = self {
            lock_world_step(ctx, |c| r.on_clock_jump(c));
        }
    }
}

/// The world's nodes, in `NodeId` order, and the events each records — the shape plans are
/// drawn over.
fn shape() -> PlanShape {
    PlanShape::new(DURATION_MS)
        .node("client-0", Role::Client, CLIENT_EVENTS)
        .node("client-1", Role::Client, CLIENT_EVENTS)
        .node("server-0", Role::Server, &["key_set", "key_deleted", "key_expired"])
        .node("counter", Role::Server, &["token_issued"])
        .node("resource", Role::Resource, RESOURCE_EVENTS)
}

/// Runs the protocol under `plan` with `seed` and judges the history.
fn check(durable_counter: bool, plan: &Plan, seed: u64) -> Vec<Verdict> {
    let shape = shape();
    let id = |name: &str| shape.find(name).expect("a node of the shape");
    let (clients, redis) = (vec![id("client-0"), id("client-1")], id("server-0"));
    let peers = Peers {
        redis,
        counter: id("counter"),
        resource: id("resource"),
    };
    let redis_cfg = RedisConfig {
        persistence: Persistence::Always,
        clock: ServerClock::Wall,
        delayed_restart_ns: 0,
        min_replicas: MinReplicasConfig::OFF,
    };
    let resource_cfg = ResourceConfig {
        kind: ResourceKind::Counter,
        fencing: Fencing::Strict,
        persist_max_fence: true,
    };
    let nodes = shape
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| {
            let model = match node.name.as_str() {
                "client-0" | "client-1" => CustomNode::Client(TokenLeaseClient::new(i as u64, peers)),
                "server-0" => CustomNode::Redis(Box::new(RedisServer::new(
                    redis_cfg,
                    RedisRole::Primary,
                    clients.clone(),
                ))),
                "counter" => CustomNode::Counter(CounterService {
                    durable: durable_counter,
                    count: 0,
                }),
                _ => CustomNode::Resource(Resource::new(resource_cfg)),
            };
            NodeSetup {
                name: node.name.clone(),
                clock: plan.clock(NodeId(i as u32), ClockSpec::default()),
                model,
            }
        })
        .collect();
    let cfg = WorldConfig {
        seed,
        end_ns: DURATION_MS * NS_PER_MS,
        network: NetworkConfig::default(),
        faults: plan.fault_plan(),
        level: Level::Facts,
    };
    let history = World::new(nodes, cfg).run();
    let setup = LockSetup {
        clients,
        servers: vec![redis],
        quorum: 1,
        newest_serves_alone: false,
        liveness_window_ns: 3 * TTL_MS * NS_PER_MS,
    };
    check_lock(&history, &setup)
}

// ---- exploring it ----------------------------------------------------------------------

/// What the fencing design promises.
const PROMISED: [Invariant; 2] = [FENCING_ORDER, TOKEN_MONOTONIC];

fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(2016),
        ..Config::default()
    })
}

/// The property: no promised invariant is violated.
fn promised_hold(verdicts: &[Verdict]) -> Result<(), TestCaseError> {
    for invariant in PROMISED {
        if let Some(v) = locksim::violation(verdicts, invariant) {
            return Err(TestCaseError::fail(format!("{invariant} violated: {}", v.why)));
        }
    }
    Ok(())
}

fn main() {
    let shape = shape();
    let space = FaultSpace::defaults_for(&shape);
    let plans = locksim::plans(&shape, &space);
    let kinds: Vec<&str> = space.kinds.keys().map(|k| k.name()).collect();
    println!("custom lock: SET NX PX on locksim's Redis, tokens from a counter service of its own,");
    println!(
        "locksim's strictly fenced resource; plans of up to {} faults",
        space.max_faults
    );
    println!("from {}\n", kinds.join(", "));

    // The durable counter: the promises hold in every plan; tally the rest.
    let cases = 256;
    let tally: RefCell<BTreeMap<Invariant, (u32, u32)>> = RefCell::default();
    let outcome = runner(cases).run(&plans, |plan| {
        let verdicts = check(true, &plan, 1);
        for v in &verdicts {
            let mut tally = tally.borrow_mut();
            let (held, violated) = tally.entry(v.invariant).or_default();
            match v.status {
                Status::Held(_) => *held += 1,
                Status::Violated(_) => *violated += 1,
                Status::NotApplicable(_) => {}
            }
        }
        promised_hold(&verdicts)
    });
    println!("durable counter: explored {cases} plans");
    // In the order `check_lock` judges them (a map's order is the ids' alphabetical one).
    let tally = tally.into_inner();
    for &invariant in LOCK_INVARIANTS {
        let Some((held, violated)) = tally.get(&invariant) else {
            continue;
        };
        let promise = if PROMISED.contains(&invariant) {
            "  (promised)"
        } else {
            ""
        };
        println!(
            "  {:<17} held in {held:>3}, violated in {violated:>3}{promise}",
            invariant.id()
        );
    }
    if let Err(e) = outcome {
        println!("UNEXPECTED: a promise broke: {e}");
        std::process::exit(1);
    }
    println!("  invariants held: fencing_order and token_monotonic, violated by no plan");
    println!("  (the others are not the tokens' to keep: a server clock that jumps or runs fast, or a");
    println!("  VM suspend, breaks mutual exclusion; fencing does not stop a paused holder's write");
    println!("  landing before the next holder's)\n");

    // The volatile counter: proptest falsifies token monotonicity and shrinks the plan.
    let first = RefCell::new(None);
    let outcome = runner(cases).run(&plans, |plan| {
        let verdicts = check(false, &plan, 1);
        let failed = promised_hold(&verdicts);
        if failed.is_err() && first.borrow().is_none() {
            *first.borrow_mut() = Some(plan.size());
        }
        failed
    });
    match outcome {
        Err(TestError::Fail(why, minimal)) => {
            println!("volatile counter (forgets its count in a crash): counterexample found");
            println!("  {why}");
            let entries = |n: usize| {
                if n == 1 {
                    "1 entry".to_string()
                } else {
                    format!("{n} entries")
                }
            };
            println!(
                "  minimal plan ({}; the first failing plan had {}):",
                entries(minimal.size()),
                entries(first.into_inner().unwrap_or(0))
            );
            for line in minimal.to_toml(&shape.names()).lines() {
                println!("    {line}");
            }
        }
        Err(e) => println!("UNEXPECTED: {e}"),
        Ok(()) => println!("UNEXPECTED: the volatile counter survived {cases} plans"),
    }
}
