//! A leader on an external lease (`algorithm = "lease"`, seed 004, 9.5.3): each server is a
//! candidate that asks the `store` for its one TTL key; the store grants it, with a new epoch,
//! only when the key is free or expired. The holder leads, acts on the resource with its
//! epoch, and renews every `heartbeat_ms`; a refused renewal, or none acknowledged before the
//! TTL counted from the renewal's send time on its own monotonic clock runs out, and it steps
//! down. The others ask again every `heartbeat_ms` (polling where 9.5.3 watches the key: the
//! key is free to them at the same moment either way).
//!
//! 9.5.3: "stopping is a change of behaviour, not of state. Many implementations only set the
//! role to follower, while connections, caches and scheduled jobs keep running; the old leader
//! can still write downstream." `stop = "real"` cancels the leader's act timer when it steps
//! down; `stop = "role_only"` changes only the role flag, and the timer it armed as leader
//! keeps sending its old epoch's writes.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::Msg;
use super::obs::ElectObs;

/// Renew (leading) or ask for the key (not).
const TRY: TimerTag = 0;
/// The lease ran out on this node's clock without a renewal.
const DEADLINE: TimerTag = 1;
const ACT: TimerTag = 3;

type LeaseCtx<'a> = Ctx<'a, Msg, ElectObs>;

/// What stepping down stops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The act timer is cancelled with the role.
    Real,
    /// Only the role flag changes: the act timer keeps writing the old epoch.
    RoleOnly,
}

/// The candidates' knobs, shared by every candidate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LeaseConfig {
    pub ttl_ns: u64,
    pub renew_every_ns: u64,
    pub act_every_ns: u64,
    pub stop: Stop,
}

pub struct Candidate {
    cfg: LeaseConfig,
    /// server-0 asks at start, the others a heartbeat later.
    first: bool,
    store: NodeId,
    resource: NodeId,
    leading: bool,
    /// The epoch the store granted this node last; its writes carry it.
    epoch: u64,
    /// When (monotonic) the request now in flight was sent: a grant answering it runs from
    /// then, the earliest the store can have started it.
    sent_ns: u64,
    /// Whether the act timer runs (armed on winning, cancelled only by a real stop).
    acting: bool,
    act_seq: u64,
}

impl Candidate {
    pub fn new(cfg: LeaseConfig, first: bool, store: NodeId, resource: NodeId) -> Self {
        Candidate {
            cfg,
            first,
            store,
            resource,
            leading: false,
            epoch: 0,
            sent_ns: 0,
            acting: false,
            act_seq: 0,
        }
    }

    /// server-0 asks first, so the stories start from a known leader (as Raft's server-0
    /// leads term 1); a restarted candidate asks at once.
    pub fn on_start(&mut self, ctx: &mut LeaseCtx<'_>) {
        match self.first {
            true => self.ask(ctx),
            false => {
                self.first = true;
                ctx.set_timer(TRY, self.cfg.renew_every_ns);
            }
        }
    }

    /// A crash stops everything, role_only or not: the process is gone.
    pub fn on_crash(&mut self, ctx: &mut LeaseCtx<'_>) {
        if self.leading {
            ctx.record(ElectObs::SteppedDown {
                term: self.epoch,
                why: "crashed",
            });
        }
        *self = Candidate::new(self.cfg, true, self.store, self.resource);
    }

    pub fn on_msg(&mut self, ctx: &mut LeaseCtx<'_>, from: NodeId, msg: Msg) {
        if from != self.store {
            return;
        }
        match msg {
            Msg::KeyGranted { epoch } => {
                if !self.leading {
                    self.leading = true;
                    self.epoch = epoch;
                    ctx.record(ElectObs::BecameLeader { term: epoch });
                    self.acting = true;
                    self.act_seq = 0;
                    ctx.set_timer(ACT, self.cfg.act_every_ns);
                }
                let left_ns = (self.sent_ns + self.cfg.ttl_ns).saturating_sub(ctx.mono_ns());
                ctx.set_timer(DEADLINE, left_ns);
            }
            Msg::KeyRefused if self.leading => self.step_down(ctx, "renewal refused"),
            _ => {}
        }
    }

    pub fn on_timer(&mut self, ctx: &mut LeaseCtx<'_>, tag: TimerTag) {
        match tag {
            TRY => self.ask(ctx),
            DEADLINE if self.leading => self.step_down(ctx, "lease ran out unrenewed"),
            ACT if self.acting => {
                self.act_seq += 1;
                let (term, seq) = (self.epoch, self.act_seq);
                ctx.record(ElectObs::ActSent { term, seq });
                ctx.send(self.resource, Msg::Act { term, seq });
                ctx.set_timer(ACT, self.cfg.act_every_ns);
            }
            _ => {}
        }
    }

    /// Renews the key (leading) or asks for it (not), and comes back in `heartbeat_ms`.
    fn ask(&mut self, ctx: &mut LeaseCtx<'_>) {
        self.sent_ns = ctx.mono_ns();
        let msg = match self.leading {
            true => Msg::KeyRenew { epoch: self.epoch },
            false => Msg::KeyAcquire,
        };
        ctx.send(self.store, msg);
        ctx.set_timer(TRY, self.cfg.renew_every_ns);
    }

    fn step_down(&mut self, ctx: &mut LeaseCtx<'_>, why: &'static str) {
        self.leading = false;
        ctx.record(ElectObs::SteppedDown { term: self.epoch, why });
        ctx.cancel_timer(DEADLINE);
        if self.cfg.stop == Stop::Real {
            self.acting = false;
            ctx.cancel_timer(ACT);
        }
    }
}
