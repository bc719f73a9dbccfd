//! A process `client-<i>` issuing IDs from segments (Meituan's Leaf): it takes requests, one
//! tick per millisecond of its monotonic clock bringing `rate_per_ms` of them, and answers
//! each with the next ID of its current segment. Once `prefetch_at_percent` of the segment is
//! used it asks the allocator for the next one (the double buffer), so that the allocator's
//! round trip is hidden; when both run out, requests wait.
//!
//! A crash loses both segments: their unused IDs are never issued, a gap seed 001 says to
//! accept. The wrong variant (`after_crash = "resume_segment"`) wrote each segment to disk as
//! it started using it and, to leave no gap, resumes it from the start after a restart —
//! issuing again the IDs it had issued before the crash.

use locksim_sim::{NodeId, TimerTag};

use super::buffer::{Buffer, Segment, Take};
use super::msg::{Msg, SegCtx};
use super::obs::SegObs;

/// How a process takes a segment from the allocator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// One transaction moves the max and returns the new one (Leaf).
    Atomic,
    /// Wrong: read the max, then write `max + step` back, in two round trips.
    ReadThenWrite,
}

/// What a restarted process does about the segment it was using.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AfterCrash {
    /// Ask for a new segment; the rest of the old one is a gap.
    NewSegment,
    /// Wrong: resume the segment it was using from its start, to leave no gap.
    ResumeSegment,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ProcessConfig {
    pub rate_per_ms: u64,
    pub step: u64,
    pub prefetch_at_percent: u64,
    pub allocation: Allocation,
    pub after_crash: AfterCrash,
    /// How long to wait for the allocator before asking again.
    pub retry_ns: u64,
    /// client-i starts at i x this, so that stories start in a known order.
    pub start_stagger_ns: u64,
}

/// The request in flight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Pending {
    Allocating { req: u64 },
    Reading { req: u64 },
    Writing { req: u64, from: u64 },
}

const NS_PER_MS: u64 = 1_000_000;
/// The request tick, every millisecond.
const TICK: TimerTag = 0;
/// The start, after the stagger (a restart starts at once).
const START: TimerTag = 1;
/// Asking the allocator again.
const RETRY: TimerTag = 2;

pub struct Process {
    cfg: ProcessConfig,
    index: u32,
    // ---- outlives a crash ----
    started_before: bool,
    /// Where allocations go: the primary, or the replica once it announced its promotion.
    allocator: NodeId,
    /// The segment it started using last, on disk (`after_crash = "resume_segment"` only).
    disk_segment: Option<Segment>,
    // ---- volatile: a crash resets it ----
    buffer: Buffer,
    backlog: u64,
    ticking: bool,
    pending: Option<Pending>,
    next_req: u64,
    starved: bool,
    /// The segment read back from disk, until its first ID is issued.
    resumed: Option<Segment>,
}

impl Process {
    pub fn new(cfg: ProcessConfig, index: u32, allocator: NodeId) -> Self {
        Process {
            cfg,
            index,
            started_before: false,
            allocator,
            disk_segment: None,
            buffer: Buffer::default(),
            backlog: 0,
            ticking: false,
            pending: None,
            next_req: 0,
            starved: false,
            resumed: None,
        }
    }

    pub fn on_start(&mut self, ctx: &mut SegCtx<'_>) {
        let delay_ns = if self.started_before {
            let resumed = match self.cfg.after_crash {
                AfterCrash::ResumeSegment => self.disk_segment,
                AfterCrash::NewSegment => None,
            };
            ctx.record(SegObs::ProcessRestarted { resumed });
            if let Some(s) = resumed {
                self.buffer.add(s);
                self.resumed = Some(s);
            }
            0
        } else {
            u64::from(self.index) * self.cfg.start_stagger_ns
        };
        self.started_before = true;
        ctx.set_timer(START, delay_ns);
    }

    /// The process dies: both segments are gone (recorded, for the reader: the gap).
    pub fn on_crash(&mut self, ctx: &mut SegCtx<'_>) {
        let (rest, prefetched) = self.buffer.unused();
        if rest.is_some() || prefetched.is_some() {
            ctx.record(SegObs::IdsAbandoned { rest, prefetched });
        }
        *self = Process {
            started_before: true,
            allocator: self.allocator,
            disk_segment: self.disk_segment,
            ..Process::new(self.cfg, self.index, self.allocator)
        };
    }

    pub fn on_timer(&mut self, ctx: &mut SegCtx<'_>, tag: TimerTag) {
        match tag {
            START if !self.ticking => {
                self.ticking = true;
                self.tick(ctx);
            }
            TICK if self.ticking => self.tick(ctx),
            RETRY if self.pending.is_some() => self.request(ctx),
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut SegCtx<'_>, from: NodeId, msg: Msg) {
        match (self.pending, msg) {
            (_, Msg::Promoted) => {
                self.allocator = from;
                if self.pending.is_some() {
                    self.request(ctx);
                }
            }
            (
                Some(Pending::Allocating { req }),
                Msg::Granted {
                    req: r,
                    from_exclusive,
                    to,
                },
            ) if r == req => {
                self.received(ctx, Segment { from_exclusive, to });
            }
            (Some(Pending::Reading { req }), Msg::MaxIs { req: r, max }) if r == req => {
                ctx.record(SegObs::MaxRead { max });
                self.pending = Some(Pending::Writing { req, from: max });
                let to = max + self.cfg.step;
                ctx.send(self.allocator, Msg::WriteMax { req, max: to });
            }
            (Some(Pending::Writing { req, from }), Msg::MaxWritten { req: r }) if r == req => {
                let to = from + self.cfg.step;
                self.received(
                    ctx,
                    Segment {
                        from_exclusive: from,
                        to,
                    },
                );
            }
            // A refusal (not the primary) or a late answer: the retry asks again.
            _ => {}
        }
    }

    /// A millisecond's requests arrive; the process answers what it can.
    fn tick(&mut self, ctx: &mut SegCtx<'_>) {
        self.backlog += self.cfg.rate_per_ms;
        ctx.set_timer(TICK, NS_PER_MS);
        self.serve(ctx);
    }

    fn received(&mut self, ctx: &mut SegCtx<'_>, segment: Segment) {
        self.pending = None;
        ctx.cancel_timer(RETRY);
        ctx.record(SegObs::SegmentReceived { segment });
        self.buffer.add(segment);
        self.starved = false;
        self.serve(ctx);
    }

    /// Answers queued requests from the segments, then asks for the next one if it is time.
    fn serve(&mut self, ctx: &mut SegCtx<'_>) {
        while self.backlog > 0 {
            match self.buffer.take() {
                Take::Id { id, starts } => {
                    let resumed = starts.is_some() && starts == self.resumed.take();
                    if starts.is_some() && self.cfg.after_crash == AfterCrash::ResumeSegment {
                        self.disk_segment = starts;
                    }
                    ctx.record(SegObs::IdIssued { id, starts, resumed });
                    self.backlog -= 1;
                }
                Take::Empty => {
                    if !self.starved {
                        self.starved = true;
                        ctx.record(SegObs::Starved { requests: self.backlog });
                    }
                    break;
                }
            }
        }
        if self.pending.is_none() && self.buffer.wants_next(self.cfg.prefetch_at_percent) {
            self.request(ctx);
        }
    }

    /// Sends the allocation (again, under a new number, after a retry or a promotion), then
    /// records it: a fault `after = "segment_requested"` strikes with the request in flight.
    fn request(&mut self, ctx: &mut SegCtx<'_>) {
        let req = self.next_req;
        self.next_req += 1;
        let (pending, msg) = match self.cfg.allocation {
            Allocation::Atomic => (Pending::Allocating { req }, Msg::Allocate { req }),
            Allocation::ReadThenWrite => (Pending::Reading { req }, Msg::ReadMax { req }),
        };
        self.pending = Some(pending);
        ctx.send(self.allocator, msg);
        ctx.set_timer(RETRY, self.cfg.retry_ns);
        let prefetch = self.buffer.unused().0.is_some();
        ctx.record(SegObs::SegmentRequested { prefetch });
    }
}
