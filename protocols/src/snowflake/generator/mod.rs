//! A Snowflake generator `client-<i>`: it takes ID requests and answers each with an ID built
//! from its own wall clock (milliseconds since the epoch), its node ID and a sequence number.
//!
//! Requests: every millisecond of its monotonic clock a tick brings `rate_per_ms` new
//! requests, and once, at `burst_at_ms`, `burst` more at once (a burst of 5000 in one
//! millisecond is `burst = 5000`). Requests that cannot be answered yet stay queued; refused
//! ones are gone. Ticks 1 ms apart fall in consecutive wall-clock milliseconds, so at
//! `rate_per_ms = 1` every millisecond has an ID: a clock that goes back always re-enters a
//! used millisecond.
//!
//! What it does when it cannot issue is the model's knobs: a clock rollback is refused,
//! waited out or ignored (`rollback`); an exhausted sequence waits for the next millisecond
//! or wraps (`sequence_overflow`); its last millisecond survives a crash or not
//! (`persist_last_ms`). With leased node IDs it takes requests only while it holds a node ID,
//! and re-checks the lease deadline on its monotonic clock before each batch it issues — which
//! catches a GC pause, and not a VM suspend, since the monotonic clock stands still then.

use locksim_sim::{NodeId, TimerTag};

use crate::snowflake::id::{MAX_MS, SEQUENCES_PER_MS, SnowflakeId};
use crate::snowflake::msg::IdCtx;
use crate::snowflake::obs::{Blocked, IdObs, IssueNote, LostWhy};
use crate::snowflake::sequencer::{Next, Overflow, Sequencer};

mod lease;
#[cfg(test)]
mod tests;

/// What a generator does when its clock reads a millisecond before its last ID's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rollback {
    /// Refuse every request until the clock is back (Twitter's IdWorker throws).
    Reject,
    /// Hold the requests and wait until the clock is back.
    Wait,
    /// Wrong: issue anyway; that millisecond's IDs are issued again.
    Ignore,
}

/// Where a generator's node ID comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NodeIds {
    /// Configured: client-i is node i.
    Static,
    /// Leased from `server` for `ttl_ns`.
    Leased { server: NodeId, ttl_ns: u64 },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GeneratorConfig {
    pub rate_per_ms: u64,
    pub burst: u64,
    pub burst_at_ns: u64,
    /// The wall-clock reading (ns) that is millisecond 0 of the IDs.
    pub epoch_ns: i64,
    pub rollback: Rollback,
    pub overflow: Overflow,
    pub persist_last_ms: bool,
    /// client-i starts at i x this, so that stories start in a known order.
    pub start_stagger_ns: u64,
}

const NS_PER_MS: u64 = 1_000_000;

/// The request tick, every millisecond.
const TICK: TimerTag = 0;
/// The end of a wait (rollback or exhausted sequence).
const WAIT: TimerTag = 1;
/// The start, after the stagger (a restart starts at once).
const START: TimerTag = 2;
/// Asking the lease server again: the poll while none is free, and the retry of a lost answer.
const LEASE_RETRY: TimerTag = 3;
/// The next lease renewal, every third of the TTL.
const RENEW: TimerTag = 4;

pub struct Generator {
    cfg: GeneratorConfig,
    index: u16,
    node_ids: NodeIds,
    // ---- outlives a crash ----
    /// The last ID's millisecond as written to disk (only with `persist_last_ms`).
    disk_last_ms: Option<u64>,
    /// Whether the process ran before (so a start is a restart).
    started_before: bool,
    /// The burst is the workload's, not the process's: it comes once per run.
    burst_done: bool,
    // ---- volatile: a crash resets it ----
    seq: Sequencer,
    node_id: Option<u16>,
    deadline_mono_ns: u64,
    /// Requests taken and not yet answered.
    backlog: u64,
    ticking: bool,
    /// Set while a WAIT timer is pending.
    waiting: Option<Blocked>,
    /// What to say about the next ID issued.
    note: IssueNote,
    next_req: u64,
    lease_req: u64,
    lease_sent_mono_ns: u64,
    told_to_wait: bool,
    renew_req: u64,
    renew_sent_mono_ns: u64,
}

impl Generator {
    pub fn new(cfg: GeneratorConfig, index: u16, node_ids: NodeIds) -> Self {
        Generator {
            cfg,
            index,
            node_ids,
            disk_last_ms: None,
            started_before: false,
            burst_done: false,
            seq: Sequencer::new(),
            node_id: None,
            deadline_mono_ns: 0,
            backlog: 0,
            ticking: false,
            waiting: None,
            note: IssueNote::First,
            next_req: 0,
            lease_req: 0,
            lease_sent_mono_ns: 0,
            told_to_wait: false,
            renew_req: 0,
            renew_sent_mono_ns: 0,
        }
    }

    pub fn on_start(&mut self, ctx: &mut IdCtx<'_>) {
        let delay_ns = if self.started_before {
            let persisted = self.cfg.persist_last_ms;
            let last_ms = if persisted { self.disk_last_ms } else { None };
            ctx.record(IdObs::GeneratorRestarted { last_ms, persisted });
            if let Some(ms) = last_ms {
                self.seq = Sequencer::restored(ms);
            }
            0
        } else {
            u64::from(self.index) * self.cfg.start_stagger_ns
        };
        self.started_before = true;
        ctx.set_timer(START, delay_ns);
    }

    /// The process dies: everything but its disk is gone.
    pub fn on_crash(&mut self) {
        let fresh = Generator::new(self.cfg, self.index, self.node_ids);
        *self = Generator {
            disk_last_ms: self.disk_last_ms,
            started_before: self.started_before,
            burst_done: self.burst_done,
            ..fresh
        };
    }

    /// The tick, nearly every firing, is told apart here and the other timers go to a function
    /// of their own, out of line, so that this one, with `tick` and `serve`, is inlined into the
    /// engine's step: a tick runs in the step's frame. An `on_timer` holding every arm set up a
    /// frame for them all at each tick and then called `tick` (~16 instructions), and calling
    /// `on_timer` itself cost ~10 more.
    #[inline(always)]
    pub fn on_timer(&mut self, ctx: &mut IdCtx<'_>, tag: TimerTag) {
        match tag {
            TICK if self.ticking => self.tick(ctx),
            TICK => {}
            _ => self.on_other_timer(ctx, tag),
        }
    }

    #[inline(never)]
    fn on_other_timer(&mut self, ctx: &mut IdCtx<'_>, tag: TimerTag) {
        match tag {
            START => match self.node_ids {
                NodeIds::Static => {
                    self.node_id = Some(self.index);
                    self.start_ticking(ctx);
                }
                NodeIds::Leased { .. } => self.request_lease(ctx),
            },
            WAIT => {
                self.waiting = None;
                self.serve(ctx);
            }
            LEASE_RETRY if self.node_id.is_none() => self.request_lease(ctx),
            RENEW if self.node_id.is_some() => self.renew(ctx),
            _ => {}
        }
    }

    fn start_ticking(&mut self, ctx: &mut IdCtx<'_>) {
        if !self.ticking {
            self.ticking = true;
            self.tick(ctx);
        }
    }

    /// A millisecond's requests arrive; the generator answers what it can. Inlined into
    /// `on_timer`: the call cost ~14 instructions a tick.
    #[inline(always)]
    fn tick(&mut self, ctx: &mut IdCtx<'_>) {
        self.backlog += self.cfg.rate_per_ms;
        if !self.burst_done && ctx.mono_ns() >= self.cfg.burst_at_ns {
            self.burst_done = true;
            self.backlog += self.cfg.burst;
        }
        ctx.set_timer(TICK, NS_PER_MS);
        self.serve(ctx);
    }

    /// Answers queued requests until none is left or one cannot be answered now. Inlined into
    /// `tick`, its caller at nearly every step: the call cost ~5 instructions a tick.
    #[inline(always)]
    fn serve(&mut self, ctx: &mut IdCtx<'_>) {
        if self.backlog == 0 || self.waiting.is_some() {
            return;
        }
        let Some(node_id) = self.node_id else { return };
        if self.lease_ttl_ns().is_some() && ctx.mono_ns() >= self.deadline_mono_ns {
            let by_ns = ctx.mono_ns() - self.deadline_mono_ns;
            return self.lose(ctx, LostWhy::DeadlinePassed { by_ns });
        }
        let since_epoch_ns = ctx.wall_ns() - self.cfg.epoch_ns;
        if since_epoch_ns < 0 {
            let wall_ms = since_epoch_ns.div_euclid(NS_PER_MS as i64);
            return self.refuse(ctx, Blocked::BeforeEpoch { wall_ms });
        }
        let now_ms = since_epoch_ns as u64 / NS_PER_MS;
        if now_ms > MAX_MS {
            return self.refuse(ctx, Blocked::PastMaxMs { ms: now_ms });
        }
        while self.backlog > 0 {
            let (next, behind) = match self.seq.next(now_ms, self.cfg.overflow) {
                Next::Behind { last_ms } => match self.cfg.rollback {
                    Rollback::Reject => return self.refuse(ctx, Blocked::ClockBehind { now_ms, last_ms }),
                    Rollback::Wait => return self.wait(ctx, Blocked::ClockBehind { now_ms, last_ms }, last_ms),
                    Rollback::Ignore => (self.seq.issue_behind(now_ms), Some(last_ms)),
                },
                Next::Exhausted { ms } => return self.wait(ctx, Blocked::SequenceExhausted { ms }, ms + 1),
                Next::SequenceUnknown { ms } => return self.wait(ctx, Blocked::SequenceUnknown { ms }, ms + 1),
                issue => (issue, None),
            };
            let Next::Issue { ms, seq, wrapped } = next else {
                unreachable!("the sequencer issues after a rollback is ignored")
            };
            let note = match (wrapped, behind) {
                (true, _) => IssueNote::Wrapped,
                (_, Some(last_ms)) => IssueNote::Behind { last_ms },
                _ => match std::mem::replace(&mut self.note, IssueNote::Plain) {
                    IssueNote::Plain if seq == SEQUENCES_PER_MS - 1 => IssueNote::LastOfMs,
                    note => note,
                },
            };
            let id = SnowflakeId { ms, node: node_id, seq }.encode();
            if self.cfg.persist_last_ms {
                // Written (and synced) before the ID is handed out.
                self.disk_last_ms = self.seq.last_ms();
            }
            ctx.record(IdObs::IdIssued {
                id,
                ms,
                node_id,
                seq,
                note,
            });
            self.backlog -= 1;
        }
    }

    /// Every queued request is answered with an error.
    fn refuse(&mut self, ctx: &mut IdCtx<'_>, why: Blocked) {
        ctx.record(IdObs::IdRefused {
            why,
            requests: self.backlog,
        });
        self.backlog = 0;
        self.note = IssueNote::AfterRefusing;
    }

    /// Holds the queued requests until the wall clock reaches millisecond `until_ms`.
    fn wait(&mut self, ctx: &mut IdCtx<'_>, why: Blocked, until_ms: u64) {
        let target_ns = self.cfg.epoch_ns + (until_ms * NS_PER_MS) as i64;
        // Both clocks run at the same rate, so a monotonic timer of the wall-clock gap gets
        // there — unless the wall clock is stepped meanwhile: stepped back, it finds itself
        // behind again and waits again; stepped forward, it has waited longer than it needed.
        let wait_ns = (target_ns - ctx.wall_ns()).max(1) as u64;
        ctx.record(IdObs::IdWaiting {
            why,
            wait_ns,
            requests: self.backlog,
        });
        self.waiting = Some(why);
        self.note = IssueNote::AfterWait;
        ctx.set_timer(WAIT, wait_ns);
    }
}
