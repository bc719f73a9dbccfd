//! A register client (`client-<i>`), Jepsen-style: one operation at a time, a read or a write
//! of a value no one else writes, sent to the server it believes leads. "Not leader" sends it
//! on to the hinted server (nothing was done, so repeating it is safe); no answer within the
//! request timeout makes its outcome unknown — recorded as given up, never retried (a retried
//! write could land twice) — and the next operation goes to the next server. A hint naming
//! the server that just failed it is not followed until some server answers (as etcd's
//! client balancer sets an unresponsive endpoint aside): a partitioned old leader is what
//! every follower still names before the next election.

use locksim_sim::rng::uniform;
use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::{Msg, RegOp};
use super::obs::ElectObs;

const NEXT: TimerTag = 0;
const RETRY: TimerTag = 1;
const TIMEOUT: TimerTag = 2;

/// How long a client waits before sending an operation again after "not leader".
const RETRY_NS: u64 = 10_000_000;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    pub servers: usize,
    pub think_ns: u64,
    pub request_timeout_ns: u64,
    /// Parts per hundred of operations that are reads.
    pub read_percent: u64,
}

type ClientCtx<'a> = Ctx<'a, Msg, ElectObs>;

pub struct Client {
    cfg: ClientConfig,
    me: u64,
    servers: Vec<NodeId>,
    guess: usize,
    /// The server that last left an operation unanswered, until one answers.
    avoid: Option<usize>,
    /// A reader only reads.
    reader: bool,
    next_req: u64,
    writes: u64,
    /// The operation in flight, with its request id.
    op: Option<(u64, RegOp)>,
}

impl Client {
    pub fn new(cfg: ClientConfig, me: u64, servers: Vec<NodeId>, reader: bool) -> Self {
        Client {
            cfg,
            me,
            servers,
            guess: 0,
            avoid: None,
            reader,
            next_req: 1,
            writes: 0,
            op: None,
        }
    }

    pub fn on_start(&mut self, ctx: &mut ClientCtx<'_>) {
        self.op = None;
        ctx.set_timer(NEXT, self.cfg.think_ns);
    }

    pub fn on_crash(&mut self) {
        self.op = None;
    }

    /// The next server, passing over the one set aside.
    fn rotate(&mut self) {
        self.guess = (self.guess + 1) % self.cfg.servers;
        if Some(self.guess) == self.avoid && self.cfg.servers > 1 {
            self.guess = (self.guess + 1) % self.cfg.servers;
        }
    }

    fn send(&mut self, ctx: &mut ClientCtx<'_>) {
        if let Some((req, op)) = self.op {
            ctx.send(self.servers[self.guess], Msg::Request { req, op });
        }
    }

    fn start(&mut self, ctx: &mut ClientCtx<'_>) {
        let op = if self.reader || uniform(ctx.rng(), 0, 99) < self.cfg.read_percent {
            RegOp::Read
        } else {
            self.writes += 1;
            // Unique across clients: the checker can tell every write apart.
            RegOp::Write((self.me + 1) * 1_000_000 + self.writes)
        };
        let write = match op {
            RegOp::Write(v) => Some(v),
            RegOp::Read => None,
        };
        ctx.record(ElectObs::Invoked { write });
        self.op = Some((self.next_req, op));
        self.next_req += 1;
        self.send(ctx);
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    fn done(&mut self, ctx: &mut ClientCtx<'_>) {
        self.op = None;
        ctx.cancel_timer(RETRY);
        ctx.cancel_timer(TIMEOUT);
        ctx.set_timer(NEXT, self.cfg.think_ns);
    }

    pub fn on_timer(&mut self, ctx: &mut ClientCtx<'_>, tag: TimerTag) {
        match tag {
            NEXT if self.op.is_none() => self.start(ctx),
            RETRY => self.send(ctx),
            TIMEOUT if self.op.is_some() => {
                ctx.record(ElectObs::GaveUp);
                self.avoid = Some(self.guess);
                self.rotate();
                self.done(ctx);
            }
            _ => {}
        }
    }

    pub fn on_msg(&mut self, ctx: &mut ClientCtx<'_>, msg: Msg) {
        let Some((req, op)) = self.op else { return };
        match msg {
            Msg::Reply { req: r, value } if r == req => {
                let value = match op {
                    RegOp::Read => value,
                    RegOp::Write(v) => Some(v),
                };
                ctx.record(ElectObs::Returned { value });
                self.avoid = None;
                self.done(ctx);
            }
            Msg::NotLeader { req: r, hint } if r == req => {
                match hint {
                    Some(h) if Some(h) != self.avoid => self.guess = h,
                    _ => self.rotate(),
                }
                ctx.set_timer(RETRY, RETRY_NS);
            }
            _ => {}
        }
    }
}
