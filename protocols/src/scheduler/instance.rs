//! A scheduler instance (`server-<i>`): a cron-like process that fires the job at the start of
//! every period by its *own* wall clock. Several instances run the same schedule with no
//! election between them — seed 001's "several schedulers all know it runs at 09:00" — so each
//! slot fires once per instance.
//!
//! **Fired.** Slot `s` is the period `[s * period, (s + 1) * period)` of the instance's wall
//! clock; the instance fires it when its clock reaches the start (a timer set for the next
//! boundary, re-aimed after a clock jump), records `slot_fired`, and never fires a slot at or
//! below the last it fired. A slot has fired when any instance recorded `slot_fired` for it.
//!
//! **Dispatch.** Every instance hands slot `s` to worker `client-(s mod clients)`, as a job
//! router hashing the job's identity would, so one slot's copies meet at one worker and are run
//! one after another. Delivery is at least once: the instance keeps the slot outstanding until
//! the worker reports it done, re-sends it every `retry_ms`, and gives up after `max_attempts`.
//! That re-send is the retry a worker runs after a crash: it remembers nothing of the first
//! attempt, so only the store can tell it the slot already ran.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::obs::{JOB, SchedMsg, SchedObs};

const FIRE: TimerTag = 0;
const RETRY: TimerTag = 1;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceConfig {
    pub period_ns: u64,
    pub retry_ns: u64,
    pub max_attempts: u32,
    pub workers: Vec<NodeId>,
}

#[derive(Copy, Clone, Debug)]
struct Pending {
    worker: NodeId,
    attempts: u32,
    sent_mono_ns: u64,
}

pub struct Instance {
    cfg: InstanceConfig,
    // Volatile: a restarted instance starts from the next boundary.
    last_fired: Option<i64>,
    outstanding: BTreeMap<i64, Pending>,
    /// The outstanding slots by when they were last sent, `(sent_mono_ns, slot)`: the retry
    /// timer aims at the first, and a retry finds the due ones without a scan of every slot
    /// (an overloaded schedule — a 1 ms period — keeps thousands outstanding, and scanning them
    /// on every fire made a run's cost grow with the square of its length).
    by_sent: BTreeSet<(u64, i64)>,
}

type InstanceCtx<'a> = Ctx<'a, SchedMsg, SchedObs>;

impl Instance {
    pub fn new(cfg: InstanceConfig) -> Self {
        Instance {
            cfg,
            last_fired: None,
            outstanding: BTreeMap::new(),
            by_sent: BTreeSet::new(),
        }
    }

    /// The worker every instance hands slot `slot` to.
    pub fn worker_of(workers: &[NodeId], slot: i64) -> NodeId {
        workers[slot.rem_euclid(workers.len() as i64) as usize]
    }

    fn period(&self) -> i64 {
        self.cfg.period_ns as i64
    }

    /// Aims the fire timer at the next period boundary of the wall clock.
    fn arm_fire(&mut self, ctx: &mut InstanceCtx<'_>) {
        let wall = ctx.wall_ns();
        let next = (wall.div_euclid(self.period()) + 1) * self.period();
        ctx.set_timer(FIRE, (next - wall) as u64);
    }

    pub fn on_start(&mut self, ctx: &mut InstanceCtx<'_>) {
        self.arm_fire(ctx);
    }

    pub fn on_crash(&mut self) {
        self.last_fired = None;
        self.outstanding.clear();
        self.by_sent.clear();
    }

    /// A stepped wall clock moves the next boundary.
    pub fn on_clock_jump(&mut self, ctx: &mut InstanceCtx<'_>) {
        self.arm_fire(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut InstanceCtx<'_>, tag: TimerTag) {
        match tag {
            FIRE => {
                let slot = ctx.wall_ns().div_euclid(self.period());
                if self.last_fired.is_none_or(|last| slot > last) {
                    self.fire(ctx, slot);
                }
                self.arm_fire(ctx);
            }
            RETRY => self.retry(ctx),
            _ => {}
        }
    }

    fn fire(&mut self, ctx: &mut InstanceCtx<'_>, slot: i64) {
        self.last_fired = Some(slot);
        let worker = Self::worker_of(&self.cfg.workers, slot);
        ctx.record(SchedObs::SlotFired { job: JOB, slot, worker });
        ctx.send(worker, SchedMsg::Run { slot });
        self.keep(
            slot,
            Pending {
                worker,
                attempts: 1,
                sent_mono_ns: ctx.mono_ns(),
            },
        );
        self.arm_retry(ctx);
    }

    /// Keeps `slot` outstanding as `p` (replacing what it was).
    fn keep(&mut self, slot: i64, p: Pending) {
        if let Some(old) = self.outstanding.insert(slot, p) {
            self.by_sent.remove(&(old.sent_mono_ns, slot));
        }
        self.by_sent.insert((p.sent_mono_ns, slot));
    }

    /// Forgets `slot`; what it was, if it was outstanding.
    fn forget(&mut self, slot: i64) -> Option<Pending> {
        let p = self.outstanding.remove(&slot)?;
        self.by_sent.remove(&(p.sent_mono_ns, slot));
        Some(p)
    }

    fn retry(&mut self, ctx: &mut InstanceCtx<'_>) {
        let now = ctx.mono_ns();
        // Due: sent at least `retry_ns` ago. Handled in slot order, as they always were.
        let mut due: Vec<i64> = self
            .by_sent
            .iter()
            .take_while(|(sent_mono_ns, _)| now - sent_mono_ns >= self.cfg.retry_ns)
            .map(|&(_, slot)| slot)
            .collect();
        due.sort_unstable();
        for slot in due {
            let p = self.outstanding[&slot];
            if p.attempts >= self.cfg.max_attempts {
                self.forget(slot);
                ctx.record(SchedObs::GaveUp {
                    slot,
                    attempts: p.attempts,
                });
                continue;
            }
            let attempt = p.attempts + 1;
            ctx.record(SchedObs::JobResent {
                slot,
                worker: p.worker,
                attempt,
            });
            ctx.send(p.worker, SchedMsg::Run { slot });
            self.keep(
                slot,
                Pending {
                    attempts: attempt,
                    sent_mono_ns: now,
                    ..p
                },
            );
        }
        self.arm_retry(ctx);
    }

    /// Aims the retry timer at the earliest outstanding slot's re-send.
    fn arm_retry(&mut self, ctx: &mut InstanceCtx<'_>) {
        let now = ctx.mono_ns();
        match self
            .by_sent
            .first()
            .map(|(sent_mono_ns, _)| sent_mono_ns + self.cfg.retry_ns)
        {
            Some(due) => ctx.set_timer(RETRY, due.saturating_sub(now)),
            None => ctx.cancel_timer(RETRY),
        }
    }

    pub fn on_msg(&mut self, ctx: &mut InstanceCtx<'_>, from: NodeId, msg: SchedMsg) {
        if let SchedMsg::Done { slot } = msg
            && self.forget(slot).is_some()
        {
            ctx.record(SchedObs::JobDone { slot, worker: from });
            self.arm_retry(ctx);
        }
    }
}
