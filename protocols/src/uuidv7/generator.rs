//! A UUIDv7 generator `client-<i>`: it takes requests and answers each with a UUID of its own
//! wall clock's Unix millisecond, its counter and random data drawn from its seeded stream.
//!
//! Requests: every millisecond of its monotonic clock a tick brings `rate_per_ms` of them.
//! Ticks 1 ms apart fall in consecutive wall-clock milliseconds, so a clock stepped back
//! always re-enters a millisecond already used. Requests that cannot be answered yet wait; a
//! wall clock before 1970 refuses them. The last millisecond and counter live in memory: a
//! crash forgets them.

use std::fmt;

use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, Node, NodeId, TimerTag};

use super::counter::{Counter, Made, Next, Policy};
use super::obs::{Blocked, IssueNote, UuidObs};

/// UUIDv7 generators send nothing: each works from its own clock and random stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoMsg {}

impl fmt::Display for NoMsg {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

type UuidCtx<'a> = Ctx<'a, NoMsg, UuidObs>;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GeneratorConfig {
    pub rate_per_ms: u64,
    pub policy: Policy,
    /// client-i starts at i x this, so that stories start in a known order.
    pub start_stagger_ns: u64,
}

const NS_PER_MS: u64 = 1_000_000;
/// The request tick, every millisecond.
const TICK: TimerTag = 0;
/// The end of a wait.
const WAIT: TimerTag = 1;
/// The start, after the stagger (a restart starts at once).
const START: TimerTag = 2;

pub struct Generator {
    cfg: GeneratorConfig,
    index: u32,
    /// Whether the process ran before (so a start is a restart): outlives a crash.
    started_before: bool,
    // ---- volatile: a crash resets it ----
    counter: Counter,
    backlog: u64,
    ticking: bool,
    waiting: bool,
    /// What to say about the next UUID issued, if it is otherwise plain.
    note: IssueNote,
}

impl Generator {
    pub fn new(cfg: GeneratorConfig, index: u32) -> Self {
        Generator {
            cfg,
            index,
            started_before: false,
            counter: Counter::default(),
            backlog: 0,
            ticking: false,
            waiting: false,
            note: IssueNote::First,
        }
    }

    /// A millisecond's requests arrive; the generator answers what it can.
    fn tick(&mut self, ctx: &mut UuidCtx<'_>) {
        self.backlog += self.cfg.rate_per_ms;
        ctx.set_timer(TICK, NS_PER_MS);
        self.serve(ctx);
    }

    /// Answers queued requests until none is left or one cannot be answered now.
    fn serve(&mut self, ctx: &mut UuidCtx<'_>) {
        if self.backlog == 0 || self.waiting {
            return;
        }
        let wall_ns = ctx.wall_ns();
        if wall_ns < 0 {
            let wall_ms = wall_ns.div_euclid(NS_PER_MS as i64);
            ctx.record(UuidObs::IdRefused {
                why: Blocked::BeforeUnixEpoch { wall_ms },
                requests: self.backlog,
            });
            self.backlog = 0;
            return;
        }
        let now_ms = wall_ns as u64 / NS_PER_MS;
        let counting = self.cfg.policy.counter_bits > 0;
        while self.backlog > 0 {
            let next = self
                .counter
                .next(&self.cfg.policy, now_ms, &mut || uniform(ctx.rng(), 0, u64::MAX));
            let (uuid, counter, made) = match next {
                Next::Issue { uuid, counter, made } => (uuid, counter, made),
                Next::Behind { last_ms } => return self.wait(ctx, Blocked::ClockBehind { now_ms, last_ms }, last_ms),
                Next::Exhausted { ms } => return self.wait(ctx, Blocked::CounterExhausted { ms }, ms + 1),
            };
            let note = match made {
                Made::Plain => std::mem::replace(&mut self.note, IssueNote::Plain),
                Made::KeptTimestamp { clock_ms } => IssueNote::KeptTimestamp { clock_ms },
                Made::Advanced { clock_ms } => IssueNote::Advanced { clock_ms },
                Made::Wrapped => IssueNote::Wrapped,
                Made::Behind { last_ms } => IssueNote::Behind { last_ms },
            };
            ctx.record(UuidObs::IdIssued {
                uuid,
                ms: uuid.ms(),
                counter: counting.then_some(counter),
                note,
            });
            self.backlog -= 1;
        }
    }

    /// Holds the queued requests until the wall clock reaches Unix millisecond `until_ms`.
    fn wait(&mut self, ctx: &mut UuidCtx<'_>, why: Blocked, until_ms: u64) {
        // Both clocks run at the same rate, so a monotonic timer of the wall-clock gap gets
        // there unless the wall clock is stepped meanwhile (then it finds itself behind again).
        let wait_ns = ((until_ms * NS_PER_MS) as i64 - ctx.wall_ns()).max(1) as u64;
        ctx.record(UuidObs::IdWaiting {
            why,
            wait_ns,
            requests: self.backlog,
        });
        self.waiting = true;
        self.note = IssueNote::AfterWait;
        ctx.set_timer(WAIT, wait_ns);
    }
}

impl Node for Generator {
    type Msg = NoMsg;
    type Obs = UuidObs;

    fn on_start(&mut self, ctx: &mut UuidCtx<'_>) {
        let delay_ns = if self.started_before {
            ctx.record(UuidObs::GeneratorRestarted);
            0
        } else {
            u64::from(self.index) * self.cfg.start_stagger_ns
        };
        self.started_before = true;
        ctx.set_timer(START, delay_ns);
    }

    fn on_msg(&mut self, _ctx: &mut UuidCtx<'_>, _from: NodeId, msg: NoMsg) {
        match msg {}
    }

    fn on_timer(&mut self, ctx: &mut UuidCtx<'_>, tag: TimerTag) {
        match tag {
            START if !self.ticking => {
                self.ticking = true;
                self.tick(ctx);
            }
            TICK if self.ticking => self.tick(ctx),
            WAIT => {
                self.waiting = false;
                self.serve(ctx);
            }
            _ => {}
        }
    }

    /// The process dies: its last millisecond, counter and queued requests are gone.
    fn on_crash(&mut self, _ctx: &mut UuidCtx<'_>) {
        *self = Generator {
            started_before: true,
            ..Generator::new(self.cfg, self.index)
        };
    }
}
