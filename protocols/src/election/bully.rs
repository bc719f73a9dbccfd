//! A bully node (`algorithm = "bully"`, seed 004, 9.5.1): the highest id alive is coordinator.
//! A node that hears no coordinator for `election_timeout_ms` sends ELECTION to every higher
//! id; an OK means a higher id takes over (it waits `election_timeout_ms` for that one's
//! COORDINATOR, then tries again); no OK within `answer_timeout_ms` and it is coordinator
//! itself and broadcasts COORDINATOR. The seed's assumptions — bounded delay, fail-stop, every
//! node reaching every other — are what a partition breaks: each side elects its own.
//!
//! Bully has no terms. The coordinator epoch stands in for one, so the fence and the checkers
//! have something to read: a winner announces the highest epoch it has heard of plus one, and
//! a coordinator that hears of a newer epoch announces itself again above it. Two sides that
//! elect from the same last epoch announce the same one — which `one_leader_per_term` (per
//! epoch here) catches. The epoch survives a crash (it is the fence's number: a restarted
//! coordinator must not reuse one); a restarted node starts an election, as the algorithm's
//! recovering node does.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::Msg;
use super::obs::ElectObs;

/// Following: the coordinator was silent for an election timeout. Answered: the higher id
/// that said OK announced nothing in an election timeout.
const WATCH: TimerTag = 0;
/// Electing: no OK within the answer timeout.
const ANSWER: TimerTag = 1;
const HEARTBEAT: TimerTag = 2;
const ACT: TimerTag = 3;

type BullyCtx<'a> = Ctx<'a, Msg, ElectObs>;

/// The bully nodes' knobs, shared by every node.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BullyConfig {
    pub election_ns: u64,
    pub answer_ns: u64,
    pub heartbeat_ns: u64,
    pub act_every_ns: u64,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Following,
    /// Sent ELECTION to the higher ids, waiting for an OK.
    Electing,
    /// A higher id said OK: waiting for its COORDINATOR.
    Answered,
    Coordinating,
}

pub struct Bully {
    cfg: BullyConfig,
    me: usize,
    peers: Vec<NodeId>,
    resource: NodeId,
    // Kept across a crash.
    booted: bool,
    epoch: u64,
    // Lost in a crash.
    state: State,
    act_seq: u64,
}

impl Bully {
    pub fn new(cfg: BullyConfig, me: usize, peers: Vec<NodeId>, resource: NodeId) -> Self {
        Bully {
            cfg,
            me,
            peers,
            resource,
            booted: false,
            epoch: 0,
            state: State::Following,
            act_seq: 0,
        }
    }

    /// The group boots with the highest id coordinating epoch 1, so the stories start from a
    /// known coordinator; a restart starts an election.
    pub fn on_start(&mut self, ctx: &mut BullyCtx<'_>) {
        if self.booted {
            return self.start_election(ctx);
        }
        self.booted = true;
        if self.me + 1 == self.peers.len() {
            self.coordinate(ctx);
        } else {
            self.epoch = 1;
            ctx.set_timer(WATCH, self.cfg.election_ns);
        }
    }

    pub fn on_crash(&mut self, ctx: &mut BullyCtx<'_>) {
        if self.state == State::Coordinating {
            ctx.record(ElectObs::SteppedDown {
                term: self.epoch,
                why: "crashed",
            });
        }
        self.state = State::Following;
        self.act_seq = 0;
    }

    pub fn on_msg(&mut self, ctx: &mut BullyCtx<'_>, from: NodeId, msg: Msg) {
        let Some(peer) = self.peers.iter().position(|&p| p == from) else {
            return;
        };
        let (epoch, newer) = match msg {
            Msg::Election { epoch } | Msg::Answer { epoch } | Msg::Coordinator { epoch } => (epoch, epoch > self.epoch),
            _ => return,
        };
        self.epoch = self.epoch.max(epoch);
        match msg {
            Msg::Election { .. } => {
                ctx.send(from, Msg::Answer { epoch: self.epoch });
                match self.state {
                    // A coordinator answers a challenge by announcing itself again, above any
                    // epoch the challenger knows.
                    State::Coordinating if newer => self.coordinate(ctx),
                    State::Coordinating => ctx.send(from, Msg::Coordinator { epoch: self.epoch }),
                    State::Following => self.start_election(ctx),
                    State::Electing | State::Answered => {}
                }
            }
            Msg::Answer { .. } if self.state == State::Electing => {
                self.state = State::Answered;
                ctx.cancel_timer(ANSWER);
                ctx.set_timer(WATCH, self.cfg.election_ns);
            }
            Msg::Coordinator { .. } if peer > self.me => {
                if self.state == State::Coordinating {
                    ctx.record(ElectObs::SteppedDown {
                        term: self.epoch,
                        why: "a higher id is coordinator",
                    });
                    ctx.cancel_timer(HEARTBEAT);
                    ctx.cancel_timer(ACT);
                }
                ctx.cancel_timer(ANSWER);
                // A coordinator announcing an older epoch than one this node heard of is
                // challenged, so it announces itself above it.
                if epoch < self.epoch {
                    return self.start_election(ctx);
                }
                self.state = State::Following;
                ctx.set_timer(WATCH, self.cfg.election_ns);
            }
            // A lower id claims to coordinate while this one is alive: bully it.
            Msg::Coordinator { .. } => match self.state {
                State::Coordinating => self.coordinate(ctx),
                _ => self.start_election(ctx),
            },
            _ => {}
        }
    }

    pub fn on_timer(&mut self, ctx: &mut BullyCtx<'_>, tag: TimerTag) {
        match (tag, self.state) {
            (WATCH, State::Following | State::Answered) => self.start_election(ctx),
            (ANSWER, State::Electing) => self.coordinate(ctx),
            (HEARTBEAT, State::Coordinating) => {
                self.broadcast(ctx, Msg::Coordinator { epoch: self.epoch });
                ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
            }
            (ACT, State::Coordinating) => {
                self.act_seq += 1;
                let (term, seq) = (self.epoch, self.act_seq);
                ctx.record(ElectObs::ActSent { term, seq });
                ctx.send(self.resource, Msg::Act { term, seq });
                ctx.set_timer(ACT, self.cfg.act_every_ns);
            }
            _ => {}
        }
    }

    /// ELECTION to every higher id; the highest id has none to ask and coordinates at once.
    fn start_election(&mut self, ctx: &mut BullyCtx<'_>) {
        ctx.cancel_timer(WATCH);
        if self.me + 1 == self.peers.len() {
            return self.coordinate(ctx);
        }
        if self.state == State::Coordinating {
            ctx.record(ElectObs::SteppedDown {
                term: self.epoch,
                why: "challenged: electing again",
            });
            ctx.cancel_timer(HEARTBEAT);
            ctx.cancel_timer(ACT);
        }
        self.state = State::Electing;
        for &p in &self.peers[self.me + 1..] {
            ctx.send(p, Msg::Election { epoch: self.epoch });
        }
        ctx.set_timer(ANSWER, self.cfg.answer_ns);
    }

    /// Coordinator of a new epoch: announced to every other node, acting on the resource.
    fn coordinate(&mut self, ctx: &mut BullyCtx<'_>) {
        self.epoch += 1;
        self.state = State::Coordinating;
        ctx.record(ElectObs::BecameLeader { term: self.epoch });
        self.broadcast(ctx, Msg::Coordinator { epoch: self.epoch });
        ctx.set_timer(HEARTBEAT, self.cfg.heartbeat_ns);
        ctx.set_timer(ACT, self.cfg.act_every_ns);
    }

    fn broadcast(&self, ctx: &mut BullyCtx<'_>, msg: Msg) {
        for (i, &p) in self.peers.iter().enumerate() {
            if i != self.me {
                ctx.send(p, msg.clone());
            }
        }
    }
}
