//! Handing a due item to its node and applying what the node asked for: the per-event path,
//! so nothing here allocates beyond the history and the queue.

use super::{Input, Life, Slot, World};
use crate::history::{DropReason, Level, What};
use crate::ids::NodeId;
use crate::network::Route;
use crate::node::{Ctx, Effect, Node};
use crate::queue::Due;
use crate::record::Recorder;

impl<N: Node> World<N> {
    pub(super) fn dispatch(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, due: Due<N::Msg>) {
        match due {
            Due::Start(node) => self.start(rec, node, due),
            Due::Deliver {
                from,
                to,
                msg_id,
                incarnation,
                msg,
            } => self.deliver(rec, from, to, msg_id, incarnation, msg),
            Due::Timer {
                node,
                tag,
                generation,
                target_mono_ns,
            } => self.timer_due(rec, node, tag, generation, target_mono_ns),
            Due::ClockJumped(node) => self.step_or_hold(rec, node, Input::ClockJump, due),
            Due::FailedOver(node, primary) => self.step_or_hold(rec, node, Input::Failover(primary), due),
            Due::Fault(fault) => self.fire(rec, fault),
            Due::Resume(node) => self.resume(rec, node),
            Due::Restart(node) => self.restart(rec, node),
            Due::Heal(fault) => self.heal(rec, fault),
            Due::WindowEnd(fault) => self.end_window(rec, fault),
        }
    }

    /// Starts `node` once; a paused node starts on resume (`due` waits), a crashed one never.
    fn start(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId, due: Due<N::Msg>) {
        let slot = &mut self.slots[node.index()];
        match slot.life {
            _ if slot.started => {}
            Life::Crashed => {}
            Life::Paused { .. } => slot.pending.push(due),
            Life::Running => {
                slot.started = true;
                let readings = self.readings(node);
                if self.level == Level::Full {
                    self.record(rec, node, readings, What::Start);
                }
                self.step(rec, node, Input::Start, readings);
            }
        }
    }

    /// A message arrives at `to`: dropped if the incarnation it was sent to is gone, held
    /// while `to` is paused, handled otherwise.
    pub(super) fn deliver(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        incarnation: u32,
        msg: N::Msg,
    ) {
        let slot = &mut self.slots[to.index()];
        if slot.life == Life::Crashed || slot.incarnation != incarnation {
            self.drop_at_down_node(rec, from, to, msg_id, msg);
        } else if let Life::Paused { .. } = slot.life {
            slot.pending.push(Due::Deliver {
                from,
                to,
                msg_id,
                incarnation,
                msg,
            });
        } else {
            self.stats.delivered += 1;
            let readings = self.readings(to);
            if self.level == Level::Full {
                let what = What::Deliver {
                    from,
                    msg_id,
                    msg: msg.clone(),
                };
                self.record(rec, to, readings, what);
            }
            self.step(rec, to, Input::Msg(from, msg), readings);
        }
    }

    /// Records a message that reached a node that is down (or went down with it queued).
    pub(super) fn drop_at_down_node(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        msg: N::Msg,
    ) {
        let reason = DropReason::Down;
        self.push_event(
            rec,
            to,
            What::Drop {
                from,
                to,
                msg_id,
                msg,
                reason,
            },
        );
    }

    /// Runs `input` at a running node; a paused node gets it on resume (`later` waits in its
    /// pending list), a crashed one never.
    pub(super) fn step_or_hold(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        input: Input<N::Msg>,
        later: Due<N::Msg>,
    ) {
        match self.slots[node.index()].life {
            Life::Running => self.step(rec, node, input, self.readings(node)),
            Life::Paused { .. } => self.slots[node.index()].pending.push(later),
            Life::Crashed => {}
        }
    }

    /// Runs one handler of `node`, its clocks reading `readings` (taken once by the caller,
    /// which stamps the event that triggers the step with them too), and applies what it asked
    /// for.
    pub(super) fn step(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        input: Input<N::Msg>,
        readings: (i64, u64),
    ) {
        let mut out = std::mem::take(&mut self.out);
        let crash = matches!(input, Input::Crash);
        {
            let Slot { model, rng, .. } = &mut self.slots[node.index()];
            let mut ctx = Ctx::new(node, readings.0, readings.1, rng, &mut out);
            match input {
                Input::Start => model.on_start(&mut ctx),
                Input::Msg(from, msg) => model.on_msg(&mut ctx, from, msg),
                Input::Timer(tag) => model.on_timer(&mut ctx, tag),
                Input::Crash => model.on_crash(&mut ctx),
                Input::ClockJump => model.on_clock_jump(&mut ctx),
                Input::Failover(primary) => model.on_failover(&mut ctx, primary),
            }
        }
        if crash {
            for effect in out.drain(..) {
                if let Effect::Record(obs) = effect {
                    self.push_event(rec, node, What::Observe(obs));
                }
            }
        } else {
            self.apply(rec, node, &mut out, readings);
        }
        self.out = out;
    }

    /// Applies effects in order. A fault triggered by a record takes effect at once: after a
    /// pause the rest is held back until resume, after a crash it is lost. The node runs when
    /// this starts, and only a record can fire a fault, so its lifecycle is read again only
    /// after a record that fired one (not before every effect). Records are stamped with
    /// `readings`, the node's clocks now, which likewise only a fired fault can change.
    pub(super) fn apply(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        effects: &mut Vec<Effect<N::Msg, N::Obs>>,
        mut readings: (i64, u64),
    ) {
        debug_assert!(self.slots[node.index()].life == Life::Running);
        let mut effects = effects.drain(..);
        while let Some(effect) = effects.next() {
            match effect {
                Effect::Send { to, msg } => self.send(rec, node, to, msg, readings),
                Effect::SetTimer { tag, after_ns } => self.set_timer(node, tag, readings.1 + after_ns),
                Effect::CancelTimer { tag } => self.cancel_timer(node, tag),
                Effect::Record(obs) => {
                    if !self.observe(rec, node, obs, readings) {
                        continue;
                    }
                    match self.slots[node.index()].life {
                        Life::Running => readings = self.readings(node),
                        Life::Paused { .. } => {
                            self.slots[node.index()].held.extend(effects);
                            return;
                        }
                        Life::Crashed => return,
                    }
                }
            }
        }
    }

    /// Puts a message on the network: the route decides whether, when and how often it
    /// arrives; each copy is addressed to the receiver's incarnation now. Its events are stamped
    /// with the sender's `readings`, those its step was given.
    fn send(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        from: NodeId,
        to: NodeId,
        msg: N::Msg,
        readings: (i64, u64),
    ) {
        self.stats.sent += 1;
        self.next_msg_id += 1;
        let msg_id = self.next_msg_id;
        let route = self
            .net
            .route(&mut self.net_rng, &mut self.loss_rng, self.now_ns, from, to);
        if self.level == Level::Full {
            let what = What::Send {
                to,
                msg_id,
                msg: msg.clone(),
            };
            self.record(rec, from, readings, what);
        }
        match route {
            Route::Dropped(reason) => self.record(
                rec,
                from,
                readings,
                What::Drop {
                    from,
                    to,
                    msg_id,
                    msg,
                    reason,
                },
            ),
            Route::Arrives { at_ns, dup_ns } => {
                let incarnation = self.slots[to.index()].incarnation;
                if let Some(dup_ns) = dup_ns {
                    let copy = msg.clone();
                    self.queue.push(
                        dup_ns,
                        Due::Deliver {
                            from,
                            to,
                            msg_id,
                            incarnation,
                            msg: copy,
                        },
                    );
                }
                self.queue.push(
                    at_ns,
                    Due::Deliver {
                        from,
                        to,
                        msg_id,
                        incarnation,
                        msg,
                    },
                );
            }
        }
    }
}
