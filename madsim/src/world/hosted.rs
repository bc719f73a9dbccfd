//! The native models the harness hosts on madsim nodes — the Redis server and the fenced
//! resource of `protocols/src/redis/` and `protocols/src/lock/resource.rs`, unchanged — and
//! one step of one of them: the model reacts through the native engine's `Ctx`, with its
//! node's clock readings now, and its effects are applied here (facts recorded, timers handed
//! to the supervisor, messages handed back to the connection that asked).

use std::collections::BTreeMap;

use locksim_protocols::redis::msg::Msg;
use locksim_protocols::redis::world::RedisWorldNode;
use locksim_sim::rng::stream;
use locksim_sim::{Ctx, Effect, Node, NodeId, What};
use rand_chacha::ChaCha8Rng;

use super::{Action, World};

/// A hosted model and what the harness keeps beside it.
pub struct Hosted {
    model: RedisWorldNode,
    /// Its own random stream, drawn as the native engine draws a node's.
    rng: ChaCha8Rng,
    /// Per timer tag, the generation of its live timer (0: none).
    timers: Vec<u64>,
    next_generation: u64,
    /// Each lease the Redis server stored, by its id: the bytes a `GET` returns.
    pub leases: BTreeMap<u64, Vec<u8>>,
    next_req: u64,
}

impl Hosted {
    pub fn new(model: RedisWorldNode, seed: u64, name: &str) -> Self {
        Hosted {
            model,
            rng: stream(seed, &format!("node:{name}")),
            timers: Vec::new(),
            next_generation: 0,
            leases: BTreeMap::new(),
            next_req: 0,
        }
    }

    /// A request id for a command the model will answer.
    pub fn next_req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }

    fn arm(&mut self, tag: u32) -> u64 {
        let tag = tag as usize;
        if self.timers.len() <= tag {
            self.timers.resize(tag + 1, 0);
        }
        self.next_generation += 1;
        self.timers[tag] = self.next_generation;
        self.next_generation
    }

    fn disarm(&mut self, tag: u32) {
        if let Some(t) = self.timers.get_mut(tag as usize) {
            *t = 0;
        }
    }
}

/// What a hosted model reacts to.
pub enum Input {
    Start,
    Msg(NodeId, Msg),
    Timer(u32),
    ClockJump,
    Crash,
}

impl World {
    /// Runs one step of `node`'s hosted model; the messages it sends are returned (a reply
    /// goes back on the connection that asked). Nothing for a node that hosts nothing.
    pub fn step_hosted(&mut self, node: NodeId, input: Input) -> Vec<(NodeId, Msg)> {
        let Some(mut hosted) = self.nodes[node.index()].hosted.take() else {
            return Vec::new();
        };
        let now_ns = self.now_ns();
        let clock = &self.clocks[node.index()];
        let mono_ns = clock.mono_at(now_ns);
        let mut out = Vec::new();
        let crash = matches!(input, Input::Crash);
        {
            let mut ctx = Ctx::new(node, clock.wall_now(now_ns), mono_ns, &mut hosted.rng, &mut out);
            let model = &mut hosted.model;
            match input {
                Input::Start => model.on_start(&mut ctx),
                Input::Msg(from, msg) => model.on_msg(&mut ctx, from, msg),
                Input::Timer(tag) => model.on_timer(&mut ctx, tag),
                Input::ClockJump => model.on_clock_jump(&mut ctx),
                Input::Crash => model.on_crash(&mut ctx),
            }
        }
        let mut timers = Vec::new();
        for effect in &out {
            match effect {
                Effect::SetTimer { tag, after_ns } if !crash => {
                    timers.push((*tag, hosted.arm(*tag), mono_ns + after_ns));
                }
                Effect::CancelTimer { tag } => hosted.disarm(*tag),
                _ => {}
            }
        }
        self.nodes[node.index()].hosted = Some(hosted);
        for (tag, generation, target_mono_ns) in timers {
            self.ask(Action::Timer {
                node,
                tag,
                generation,
                target_mono_ns,
            });
        }
        let mut sends = Vec::new();
        for effect in out {
            // A fault a fact fired may have crashed the node: the rest of its step is lost.
            if self.nodes[node.index()].crashed && !crash {
                break;
            }
            match effect {
                Effect::Record(obs) => self.record(node, obs),
                Effect::Send { to, msg } if !crash => {
                    self.stats.sent += 1;
                    let msg_id = self.msg_id();
                    let what = What::Send { to, msg_id, msg };
                    self.push(node, what);
                    sends.push((to, msg));
                }
                _ => {}
            }
        }
        sends
    }

    /// A request reaches `node`'s hosted model: recorded as delivered, then handled.
    pub fn deliver(&mut self, node: NodeId, from: NodeId, msg: Msg) -> Vec<(NodeId, Msg)> {
        self.stats.delivered += 1;
        let msg_id = self.msg_id();
        self.push(node, What::Deliver { from, msg_id, msg });
        self.step_hosted(node, Input::Msg(from, msg))
    }

    /// A hosted timer came due: it runs if it is still the live one of its tag.
    pub fn timer_due(&mut self, node: NodeId, tag: u32, generation: u64) {
        let live = self.nodes[node.index()]
            .hosted
            .as_ref()
            .is_some_and(|h| h.timers.get(tag as usize) == Some(&generation));
        if !live || self.nodes[node.index()].crashed {
            return;
        }
        if let Some(h) = &mut self.nodes[node.index()].hosted {
            h.disarm(tag);
        }
        self.stats.timers += 1;
        self.push(node, What::Timer { tag });
        self.step_hosted(node, Input::Timer(tag));
    }

    /// A crash: the model keeps what its persistence keeps; every timer is gone.
    pub(super) fn crash_hosted(&mut self, node: NodeId) {
        if let Some(h) = &mut self.nodes[node.index()].hosted {
            h.timers.iter_mut().for_each(|t| *t = 0);
            self.step_hosted(node, Input::Crash);
        }
    }

    /// A stepped wall clock: a server whose expiry follows it expires what is now due.
    pub(super) fn jumped_hosted(&mut self, node: NodeId) {
        if !self.nodes[node.index()].crashed {
            self.step_hosted(node, Input::ClockJump);
        }
    }

    /// The hosted model of `node` (for the connection code: lease bytes, request ids).
    pub fn hosted_mut(&mut self, node: NodeId) -> Option<&mut Hosted> {
        self.nodes[node.index()].hosted.as_mut()
    }
}
