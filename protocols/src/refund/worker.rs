//! A refund worker (`client-<i>`): seed 004 9.10's loop, for refunds 1, 2, ... in turn — take
//! the refund's lock, look in the ledger, call the provider, write the ledger row with the
//! lock's token, release. It trusts its lock for as long as the work takes: nothing tells it
//! the lock expired during a slow provider call. A call or a ledger write that times out is
//! retried (up to `max_retries`): the provider call with the same intent or (the seed's R2) a
//! new one, the ledger write with the same token or a new one (the worker locks again).

use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::RefundMsg;
use super::obs::RefundObs;

/// Take the lock of the current refund (again).
const NEXT: TimerTag = 0;
/// The outstanding request went unanswered.
const TIMEOUT: TimerTag = 1;

/// What a retry reuses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reuse {
    Same,
    New,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WorkerConfig {
    pub refunds: u64,
    pub idempotency_key: bool,
    pub retry_intent: Reuse,
    pub retry_token: Reuse,
    pub max_retries: u32,
    pub retry_ns: u64,
    pub psp_timeout_ns: u64,
    pub request_timeout_ns: u64,
    pub start_stagger_ns: u64,
}

/// The nodes a worker talks to.
#[derive(Copy, Clone, Debug)]
pub struct Peers {
    pub lock: NodeId,
    pub psp: NodeId,
    pub ledger: NodeId,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    Lock,
    /// Locking again for a ledger retry with a new token.
    Relock,
    Ledger,
    Psp,
    Insert,
}

pub struct Worker {
    cfg: WorkerConfig,
    index: u64,
    peers: Peers,
    refund: u64,
    lease: u64,
    token: u64,
    intent: u64,
    /// Retries of the current step so far.
    retries: u32,
    next_req: u64,
    waiting: Option<(u64, Step)>,
}

type RefundCtx<'a> = Ctx<'a, RefundMsg, RefundObs>;

impl Worker {
    pub fn new(cfg: WorkerConfig, index: u64, peers: Peers) -> Self {
        Worker {
            cfg,
            index,
            peers,
            refund: 1,
            lease: 0,
            token: 0,
            intent: 0,
            retries: 0,
            next_req: 1,
            waiting: None,
        }
    }

    /// A (re)started worker begins with refund 1: the ledger tells it which are done.
    pub fn on_start(&mut self, ctx: &mut RefundCtx<'_>) {
        self.refund = 1;
        self.waiting = None;
        ctx.set_timer(NEXT, self.index * self.cfg.start_stagger_ns);
    }

    fn request(&mut self, ctx: &mut RefundCtx<'_>, step: Step, to: NodeId, timeout_ns: u64, msg: RefundMsg) {
        ctx.send(to, msg);
        self.waiting = Some((self.next_req, step));
        self.next_req += 1;
        ctx.set_timer(TIMEOUT, timeout_ns);
    }

    fn lock(&mut self, ctx: &mut RefundCtx<'_>, step: Step) {
        let (req, refund, lease) = (self.next_req, self.refund, self.lease);
        let timeout = self.cfg.request_timeout_ns;
        self.request(
            ctx,
            step,
            self.peers.lock,
            timeout,
            RefundMsg::Lock { req, refund, lease },
        );
    }

    fn call_psp(&mut self, ctx: &mut RefundCtx<'_>) {
        let (req, refund, intent) = (self.next_req, self.refund, self.intent);
        ctx.record(RefundObs::PspCalled {
            refund,
            intent,
            attempt: self.retries + 1,
        });
        let key = self.cfg.idempotency_key;
        let msg = RefundMsg::Charge {
            req,
            refund,
            intent,
            key,
        };
        self.request(ctx, Step::Psp, self.peers.psp, self.cfg.psp_timeout_ns, msg);
    }

    fn insert(&mut self, ctx: &mut RefundCtx<'_>) {
        let (req, refund, intent, token) = (self.next_req, self.refund, self.intent, self.token);
        ctx.record(RefundObs::LedgerWriteSent { refund, intent, token });
        let msg = RefundMsg::Insert {
            req,
            refund,
            intent,
            token,
        };
        self.request(ctx, Step::Insert, self.peers.ledger, self.cfg.request_timeout_ns, msg);
    }

    /// The refund is over (written, found done, refused or given up): release, go on.
    fn finish(&mut self, ctx: &mut RefundCtx<'_>) {
        ctx.record(RefundObs::Released { refund: self.refund });
        ctx.send(
            self.peers.lock,
            RefundMsg::Unlock {
                refund: self.refund,
                lease: self.lease,
            },
        );
        self.refund += 1;
        self.waiting = None;
        ctx.set_timer(NEXT, self.cfg.retry_ns);
    }

    fn retry_later(&mut self, ctx: &mut RefundCtx<'_>) {
        self.waiting = None;
        let jitter = uniform(ctx.rng(), 0, self.cfg.retry_ns / 2);
        ctx.set_timer(NEXT, self.cfg.retry_ns + jitter);
    }

    pub fn on_msg(&mut self, ctx: &mut RefundCtx<'_>, msg: RefundMsg) {
        let Some((req, step)) = self.waiting else { return };
        let answers = match &msg {
            RefundMsg::Granted { req, .. }
            | RefundMsg::LedgerState { req, .. }
            | RefundMsg::Charged { req, .. }
            | RefundMsg::Inserted { req, .. } => *req,
            _ => return,
        };
        if answers != req {
            return;
        }
        self.waiting = None;
        ctx.cancel_timer(TIMEOUT);
        let refund = self.refund;
        match (step, msg) {
            (Step::Lock | Step::Relock, RefundMsg::Granted { token: None, .. }) => {
                ctx.record(RefundObs::LockBusy { refund });
                if step == Step::Relock {
                    ctx.record(RefundObs::GaveUp { refund });
                    self.finish(ctx);
                } else {
                    self.retry_later(ctx);
                }
            }
            (Step::Lock, RefundMsg::Granted { token: Some(token), .. }) => {
                self.token = token;
                ctx.record(RefundObs::LockAcquired { refund, token });
                let req = self.next_req;
                let timeout = self.cfg.request_timeout_ns;
                self.request(
                    ctx,
                    Step::Ledger,
                    self.peers.ledger,
                    timeout,
                    RefundMsg::LedgerGet { req, refund },
                );
            }
            (Step::Relock, RefundMsg::Granted { token: Some(token), .. }) => {
                self.token = token;
                ctx.record(RefundObs::LockAcquired { refund, token });
                self.insert(ctx);
            }
            (Step::Ledger, RefundMsg::LedgerState { done, .. }) => {
                ctx.record(RefundObs::LedgerChecked { refund, done });
                if done {
                    self.finish(ctx);
                } else {
                    self.intent = refund;
                    self.retries = 0;
                    self.call_psp(ctx);
                }
            }
            (Step::Psp, RefundMsg::Charged { psp_ref, .. }) => {
                ctx.record(RefundObs::PspAnswered { refund, psp_ref });
                self.retries = 0;
                self.insert(ctx);
            }
            (Step::Insert, RefundMsg::Inserted { ok, why, .. }) => {
                ctx.record(RefundObs::LedgerWritten { refund, ok, why });
                self.finish(ctx);
            }
            _ => {}
        }
    }

    pub fn on_timer(&mut self, ctx: &mut RefundCtx<'_>, tag: TimerTag) {
        match tag {
            NEXT if self.refund <= self.cfg.refunds => {
                self.lease = uniform(ctx.rng(), 1, u64::MAX);
                self.lock(ctx, Step::Lock);
            }
            TIMEOUT => self.timed_out(ctx),
            _ => {}
        }
    }

    fn timed_out(&mut self, ctx: &mut RefundCtx<'_>) {
        let Some((_, step)) = self.waiting else { return };
        let refund = self.refund;
        let retry = self.retries < self.cfg.max_retries;
        match step {
            Step::Lock | Step::Ledger => self.retry_later(ctx),
            Step::Psp => {
                ctx.record(RefundObs::PspTimedOut { refund });
                if !retry {
                    ctx.record(RefundObs::GaveUp { refund });
                    return self.finish(ctx);
                }
                self.retries += 1;
                if self.cfg.retry_intent == Reuse::New {
                    self.intent = uniform(ctx.rng(), 1 << 48, u64::MAX);
                }
                self.call_psp(ctx);
            }
            Step::Insert | Step::Relock => {
                ctx.record(RefundObs::LedgerTimedOut { refund });
                if !retry {
                    ctx.record(RefundObs::GaveUp { refund });
                    return self.finish(ctx);
                }
                self.retries += 1;
                match self.cfg.retry_token {
                    Reuse::Same => self.insert(ctx),
                    Reuse::New => self.lock(ctx, Step::Relock),
                }
            }
        }
    }

    /// A crash forgets the refund in progress; on restart it begins again (`on_start`).
    pub fn on_crash(&mut self) {
        self.waiting = None;
    }
}
