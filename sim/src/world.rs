//! The discrete-event loop. It owns true time, the nodes and their lifecycle (running,
//! paused, crashed), their clocks, the network, the fault plan, the seeded randomness and the
//! history. It never reads the host's clock.

use rand_chacha::ChaCha8Rng;

use crate::clock::{ClockSpec, ClockTrack};
use crate::fault::{FaultAction, FaultPlan, Trigger, Unfired};
use crate::history::{DropReason, Event, History, Level, Stats, What};
use crate::ids::{Names, NodeId};
use crate::network::{Network, NetworkConfig, Route};
use crate::node::{Ctx, Effect, Node, TimerTag};
use crate::queue::{Due, Queue};
use crate::rng::stream;

/// Everything about a run that is not a node.
#[derive(Clone, Debug)]
pub struct WorldConfig {
    pub seed: u64,
    /// True time at which the run stops.
    pub end_ns: u64,
    pub network: NetworkConfig,
    pub faults: FaultPlan,
    pub level: Level,
}

/// One node to put in the world.
pub struct NodeSetup<N> {
    pub name: String,
    pub clock: ClockSpec,
    pub model: N,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Life {
    Running,
    Paused { until_ns: u64 },
    Crashed,
}

struct Slot<N: Node> {
    model: N,
    life: Life,
    started: bool,
    /// Bumped by each crash: messages sent to an earlier incarnation are reset.
    incarnation: u32,
    /// Per timer tag.
    timers: Vec<TimerState>,
    /// Deliveries and timers that came due while paused, in order.
    pending: Vec<Due<N::Msg>>,
    /// The rest of the step in which a pause struck, run on resume.
    held: Vec<Effect<N::Msg, N::Obs>>,
    clock: ClockTrack,
    rng: ChaCha8Rng,
}

/// One timer tag of one node.
///
/// A timer that is cancelled or replaced before it fires is common (a request timeout, once
/// the reply is in), and a queue entry cannot be taken out of the heap cheaply. So the queue
/// holds at most one entry per tag that counts, `entry`, and setting a timer due no earlier
/// than that entry pushes nothing: when the entry comes due it finds the timer live later,
/// and re-queues it then, with the `seq` drawn when it was set, so it runs exactly where it
/// would have run had it been queued at once. Only a timer due *earlier* than the entry is
/// pushed; the old entry is then an orphan, dropped when it comes due.
#[derive(Copy, Clone, Debug, Default)]
struct TimerState {
    /// Bumped by each set, cancel and crash: a `Due::Timer` of an older generation is stale
    /// (one taken from the queue while the node was paused, say, and replaced meanwhile).
    generation: u32,
    /// The timer set and not yet taken from the queue (fired, or put aside by a pause).
    live: Option<Armed>,
    /// The queue entry that counts for this tag: its ticket (`seq`) and due time.
    entry: Option<(u64, u64)>,
}

/// A live timer's place in the queue order and its monotonic deadline.
#[derive(Copy, Clone, Debug)]
struct Armed {
    at_ns: u64,
    seq: u64,
    target_mono_ns: u64,
}

/// What a node step reacts to.
enum Input<M> {
    Start,
    Msg(NodeId, M),
    Timer(TimerTag),
    Crash,
    ClockJump,
    Failover(NodeId),
}

/// A fault waiting for the `nth` occurrence of a node's event.
struct Watch {
    fault: u32,
    node: NodeId,
    event: String,
    remaining: u32,
}

/// A simulation in progress.
pub struct World<N: Node> {
    now_ns: u64,
    end_ns: u64,
    level: Level,
    names: Names,
    slots: Vec<Slot<N>>,
    queue: Queue<N::Msg>,
    net: Network,
    net_rng: ChaCha8Rng,
    loss_rng: ChaCha8Rng,
    plan: FaultPlan,
    /// Per plan entry: whether its trigger came.
    fired: Vec<bool>,
    watches: Vec<Watch>,
    events: Vec<Event<N::Msg, N::Obs>>,
    stats: Stats,
    next_msg_id: u64,
    /// The effects buffer, reused across steps.
    out: Vec<Effect<N::Msg, N::Obs>>,
}

impl<N: Node> World<N> {
    /// Builds the world. Node names must be unique and every node a fault names must exist;
    /// scenario loading checks both, so a violation here is an engine bug.
    pub fn new(nodes: Vec<NodeSetup<N>>, cfg: WorldConfig) -> Self {
        let names = Names::new(nodes.iter().map(|n| n.name.clone()).collect());
        let slots: Vec<Slot<N>> = nodes
            .into_iter()
            .map(|n| Slot {
                rng: stream(cfg.seed, &format!("node:{}", n.name)),
                model: n.model,
                life: Life::Running,
                started: false,
                incarnation: 0,
                timers: Vec::new(),
                pending: Vec::new(),
                held: Vec::new(),
                clock: ClockTrack::new(n.clock),
            })
            .collect();
        let mut world = World {
            now_ns: 0,
            end_ns: cfg.end_ns,
            level: cfg.level,
            net: Network::new(slots.len(), cfg.network),
            slots,
            names,
            queue: Queue::new(),
            net_rng: stream(cfg.seed, "network"),
            loss_rng: stream(cfg.seed, "loss"),
            fired: vec![false; cfg.faults.entries.len()],
            plan: cfg.faults,
            watches: Vec::new(),
            // Room for a minute of a small lock world's facts. Growing from a smaller start
            // (1024 -> 2048 entries of ~112 bytes) made glibc hand the grown buffer back to the
            // kernel at the end of every run, and each run then page-faulted it in again: ~14
            // faults and ~20 % of the wall time of a no-fault seed, and page faults contend
            // between threads. Untouched capacity costs nothing (the pages are never faulted).
            events: Vec::with_capacity(2048),
            stats: Stats::default(),
            next_msg_id: 0,
            out: Vec::new(),
        };
        for (i, entry) in world.plan.entries.iter().enumerate() {
            match &entry.trigger {
                Trigger::At { at_ns } => world.queue.push(*at_ns, Due::Fault(i as u32)),
                Trigger::After { node, event, nth } => world.watches.push(Watch {
                    fault: i as u32,
                    node: *node,
                    event: event.clone(),
                    remaining: (*nth).max(1),
                }),
            }
        }
        for i in 0..world.slots.len() {
            world.queue.push(0, Due::Start(NodeId(i as u32)));
        }
        world
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Runs to the end and hands over the history.
    pub fn run(self) -> History<N::Msg, N::Obs> {
        self.run_reporting_unfired().0
    }

    /// Runs to the end and hands over the history and the plan entries that never fired, in
    /// plan order: a fault whose trigger never came leaves no trace in the history, and a run
    /// that was meant to test it must be able to say so.
    pub fn run_reporting_unfired(mut self) -> (History<N::Msg, N::Obs>, Vec<Unfired>) {
        while let Some((t_ns, due)) = self.queue.pop_until(self.end_ns) {
            debug_assert!(t_ns >= self.now_ns, "time went backwards");
            self.now_ns = t_ns;
            if let Due::Timer { node, tag, ticket, .. } = due
                && !self.timer_entry_due(node, tag, ticket)
            {
                continue;
            }
            self.dispatch(due);
        }
        let unfired = (0..self.plan.entries.len())
            .filter(|&i| !self.fired[i])
            .map(|i| {
                let fault = i as u32;
                let seen = match &self.plan.entries[i].trigger {
                    Trigger::At { .. } => 0,
                    Trigger::After { nth, .. } => {
                        let remaining = self
                            .watches
                            .iter()
                            .find(|w| w.fault == fault)
                            .map_or(0, |w| w.remaining);
                        (*nth).max(1) - remaining
                    }
                };
                Unfired { fault, seen }
            })
            .collect();
        let history = History {
            names: self.names,
            events: self.events,
            clocks: self.slots.into_iter().map(|s| s.clock).collect(),
            end_ns: self.end_ns,
            stats: self.stats,
        };
        (history, unfired)
    }

    fn dispatch(&mut self, due: Due<N::Msg>) {
        match due {
            Due::Start(node) => {
                let slot = &mut self.slots[node.index()];
                match slot.life {
                    _ if slot.started => {}
                    Life::Crashed => {}
                    Life::Paused { .. } => slot.pending.push(due),
                    Life::Running => {
                        slot.started = true;
                        if self.level == Level::Full {
                            self.push_event(node, What::Start);
                        }
                        self.step(node, Input::Start);
                    }
                }
            }
            Due::Deliver {
                from,
                to,
                msg_id,
                incarnation,
                msg,
            } => {
                let slot = &mut self.slots[to.index()];
                if slot.life == Life::Crashed || slot.incarnation != incarnation {
                    self.push_event(
                        to,
                        What::Drop {
                            from,
                            to,
                            msg_id,
                            msg,
                            reason: DropReason::Down,
                        },
                    );
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
                    if self.level == Level::Full {
                        let what = What::Deliver {
                            from,
                            msg_id,
                            msg: msg.clone(),
                        };
                        self.push_event(to, what);
                    }
                    self.step(to, Input::Msg(from, msg));
                }
            }
            Due::Timer {
                node,
                tag,
                generation,
                target_mono_ns,
                ..
            } => {
                let slot = &mut self.slots[node.index()];
                if slot.timers[tag as usize].generation != generation || slot.life == Life::Crashed {
                    return;
                }
                if let Life::Paused { .. } = slot.life {
                    slot.pending.push(due);
                } else if slot.clock.mono_at(self.now_ns) < target_mono_ns {
                    // A suspension stopped the monotonic clock after the timer was set.
                    let at_ns = slot.clock.true_time_of_mono(target_mono_ns);
                    debug_assert!(at_ns > self.now_ns, "a timer re-armed for the same instant would loop");
                    self.arm(node, tag, at_ns, target_mono_ns);
                } else {
                    self.stats.timers += 1;
                    if self.level == Level::Full {
                        self.push_event(node, What::Timer { tag });
                    }
                    self.step(node, Input::Timer(tag));
                }
            }
            Due::ClockJumped(node) => match self.slots[node.index()].life {
                Life::Running => self.step(node, Input::ClockJump),
                Life::Paused { .. } => self.slots[node.index()].pending.push(due),
                Life::Crashed => {}
            },
            Due::FailedOver(node, primary) => match self.slots[node.index()].life {
                Life::Running => self.step(node, Input::Failover(primary)),
                Life::Paused { .. } => self.slots[node.index()].pending.push(due),
                Life::Crashed => {}
            },
            Due::Fault(fault) => self.fire(fault),
            Due::Resume(node) => self.resume(node),
            Due::Restart(node) => self.restart(node),
            Due::Heal(fault) => {
                let (groups, one_way) = self.cut_groups(fault);
                self.net.cut(&groups, one_way, false);
                self.push_event(NodeId::NET, What::Heal { fault });
            }
            Due::WindowEnd(fault) => {
                self.net.end_window(fault);
                self.push_event(NodeId::NET, What::WindowEnd { fault });
            }
        }
    }

    /// Runs one handler of `node` and applies what it asked for.
    fn step(&mut self, node: NodeId, input: Input<N::Msg>) {
        let now_ns = self.now_ns;
        let mut out = std::mem::take(&mut self.out);
        let crash = matches!(input, Input::Crash);
        {
            let Slot { model, rng, clock, .. } = &mut self.slots[node.index()];
            let mut ctx = Ctx::new(node, clock.wall_now(now_ns), clock.mono_at(now_ns), rng, &mut out);
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
                    self.push_event(node, What::Observe(obs));
                }
            }
        } else {
            self.apply(node, &mut out);
        }
        self.out = out;
    }

    /// Applies effects in order. A fault triggered by a record takes effect at once: after a
    /// pause the rest is held back until resume, after a crash it is lost.
    fn apply(&mut self, node: NodeId, effects: &mut Vec<Effect<N::Msg, N::Obs>>) {
        let mut effects = effects.drain(..);
        while let Some(effect) = effects.next() {
            match self.slots[node.index()].life {
                Life::Running => {}
                Life::Paused { .. } => {
                    let held = &mut self.slots[node.index()].held;
                    held.push(effect);
                    held.extend(effects);
                    return;
                }
                Life::Crashed => return,
            }
            match effect {
                Effect::Send { to, msg } => self.send(node, to, msg),
                Effect::SetTimer { tag, after_ns } => self.set_timer(node, tag, after_ns),
                Effect::CancelTimer { tag } => {
                    let timer = self.timer(node, tag);
                    timer.generation += 1;
                    timer.live = None;
                }
                Effect::Record(obs) => self.observe(node, obs),
            }
        }
    }

    fn send(&mut self, from: NodeId, to: NodeId, msg: N::Msg) {
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
            self.push_event(from, what);
        }
        match route {
            Route::Dropped(reason) => self.push_event(
                from,
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

    /// The state of `node`'s timer `tag` (the table grows to the tags a node uses).
    fn timer(&mut self, node: NodeId, tag: TimerTag) -> &mut TimerState {
        let timers = &mut self.slots[node.index()].timers;
        let i = tag as usize;
        if timers.len() <= i {
            timers.resize(i + 1, TimerState::default());
        }
        &mut timers[i]
    }

    fn set_timer(&mut self, node: NodeId, tag: TimerTag, after_ns: u64) {
        self.timer(node, tag).generation += 1;
        let clock = &self.slots[node.index()].clock;
        let target_mono_ns = clock.mono_at(self.now_ns) + after_ns;
        let at_ns = clock.true_time_of_mono(target_mono_ns).max(self.now_ns);
        self.arm(node, tag, at_ns, target_mono_ns);
    }

    /// Makes the timer of the current generation live, due at `at_ns`. It takes its place in
    /// the queue order now; it enters the queue now only if no entry of its tag comes due
    /// first (see [`TimerState`]).
    fn arm(&mut self, node: NodeId, tag: TimerTag, at_ns: u64, target_mono_ns: u64) {
        let seq = self.queue.next_seq();
        let timer = self.timer(node, tag);
        timer.live = Some(Armed {
            at_ns,
            seq,
            target_mono_ns,
        });
        if timer.entry.is_some_and(|(_, entry_ns)| entry_ns <= at_ns) {
            return;
        }
        timer.entry = Some((seq, at_ns));
        let generation = timer.generation;
        self.enqueue_timer(node, tag, generation, at_ns, seq, target_mono_ns);
    }

    fn enqueue_timer(
        &mut self,
        node: NodeId,
        tag: TimerTag,
        generation: u32,
        at_ns: u64,
        seq: u64,
        target_mono_ns: u64,
    ) {
        let due = Due::Timer {
            node,
            tag,
            generation,
            target_mono_ns,
            ticket: seq,
        };
        self.queue.push_with_seq(at_ns, seq, due);
    }

    /// A timer entry came due: whether it is the live timer, to dispatch. Otherwise it is an
    /// orphan, or its timer was cancelled (dropped), or its timer was set again for later
    /// (queued now, in its own place).
    fn timer_entry_due(&mut self, node: NodeId, tag: TimerTag, ticket: u64) -> bool {
        let timer = &mut self.slots[node.index()].timers[tag as usize];
        if timer.entry.is_none_or(|(t, _)| t != ticket) {
            return false;
        }
        timer.entry = None;
        match timer.live {
            Some(live) if live.seq == ticket => {
                timer.live = None;
                true
            }
            Some(live) => {
                debug_assert!(live.seq > ticket && live.at_ns >= self.now_ns);
                timer.entry = Some((live.seq, live.at_ns));
                let generation = timer.generation;
                self.enqueue_timer(node, tag, generation, live.at_ns, live.seq, live.target_mono_ns);
                false
            }
            None => false,
        }
    }

    fn observe(&mut self, node: NodeId, obs: N::Obs) {
        use crate::node::Observation;
        let kind = obs.kind();
        self.push_event(node, What::Observe(obs));
        for w in 0..self.watches.len() {
            let watch = &mut self.watches[w];
            if watch.remaining > 0 && watch.node == node && watch.event == kind {
                watch.remaining -= 1;
                if watch.remaining == 0 {
                    let fault = watch.fault;
                    self.fire(fault);
                }
            }
        }
    }

    fn push_event(&mut self, node: NodeId, what: What<N::Msg, N::Obs>) {
        let (wall_ns, mono_ns) = if node == NodeId::NET {
            (0, 0)
        } else {
            let clock = &self.slots[node.index()].clock;
            (clock.wall_now(self.now_ns), clock.mono_at(self.now_ns))
        };
        self.events.push(Event {
            t_ns: self.now_ns,
            node,
            wall_ns,
            mono_ns,
            what,
        });
    }

    /// The groups a partition or isolation fault cuts.
    fn cut_groups(&self, fault: u32) -> (Vec<Vec<NodeId>>, bool) {
        match &self.plan.entries[fault as usize].action {
            FaultAction::Partition { groups, one_way, .. } => (groups.clone(), *one_way),
            FaultAction::Isolate { node, .. } => {
                let others = (0..self.slots.len() as u32).map(NodeId).filter(|n| n != node).collect();
                (vec![vec![*node], others], false)
            }
            other => panic!("fault {fault} is not a partition: {other:?}"),
        }
    }

    fn fire(&mut self, fault: u32) {
        self.fired[fault as usize] = true;
        let now_ns = self.now_ns;
        match self.plan.entries[fault as usize].action.clone() {
            FaultAction::Pause {
                node,
                duration_ns,
                suspend,
            } => self.pause(node, duration_ns, suspend),
            FaultAction::Crash { node, restart_after_ns } => self.crash(node, restart_after_ns),
            FaultAction::Partition { heal_after_ns, .. } | FaultAction::Isolate { heal_after_ns, .. } => {
                let (groups, one_way) = self.cut_groups(fault);
                self.net.cut(&groups, one_way, true);
                self.push_event(NodeId::NET, What::Partition { fault, groups, one_way });
                if let Some(after_ns) = heal_after_ns {
                    self.queue.push(now_ns + after_ns, Due::Heal(fault));
                }
            }
            FaultAction::ClockJump { node, by_ns } => {
                self.slots[node.index()].clock.jump(now_ns, by_ns);
                self.push_event(node, What::ClockJump { by_ns });
                match self.slots[node.index()].life {
                    Life::Running => self.step(node, Input::ClockJump),
                    Life::Paused { .. } => self.slots[node.index()].pending.push(Due::ClockJumped(node)),
                    Life::Crashed => {}
                }
            }
            FaultAction::Delay {
                from,
                to,
                window_ns,
                extra_ns,
            } => {
                self.net.add_delay(fault, from, to, now_ns + window_ns, extra_ns);
                self.push_event(
                    NodeId::NET,
                    What::Delay {
                        fault,
                        from,
                        to,
                        window_ns,
                        extra_ns,
                    },
                );
                self.queue.push(now_ns + window_ns, Due::WindowEnd(fault));
            }
            FaultAction::Failover { node: primary } => {
                self.push_event(NodeId::NET, What::Failover { primary });
                for i in 0..self.slots.len() {
                    let node = NodeId(i as u32);
                    match self.slots[i].life {
                        Life::Running => self.step(node, Input::Failover(primary)),
                        Life::Paused { .. } => self.slots[i].pending.push(Due::FailedOver(node, primary)),
                        Life::Crashed => {}
                    }
                }
            }
            FaultAction::Loss {
                from,
                to,
                ppm,
                window_ns,
                duplicate,
            } => {
                let until_ns = window_ns.map_or(u64::MAX, |w| now_ns + w);
                self.net.add_loss(fault, (from, to), until_ns, ppm, duplicate);
                self.push_event(
                    NodeId::NET,
                    What::Lossy {
                        fault,
                        from,
                        to,
                        ppm,
                        duplicate,
                    },
                );
                if let Some(w) = window_ns {
                    self.queue.push(now_ns + w, Due::WindowEnd(fault));
                }
            }
        }
    }

    fn pause(&mut self, node: NodeId, duration_ns: u64, suspend: bool) {
        let now_ns = self.now_ns;
        let slot = &mut self.slots[node.index()];
        let until_ns = now_ns + duration_ns;
        slot.life = match slot.life {
            Life::Crashed => return,
            Life::Running => Life::Paused { until_ns },
            Life::Paused { until_ns: u } => Life::Paused {
                until_ns: u.max(until_ns),
            },
        };
        if suspend {
            slot.clock.suspend(now_ns, until_ns);
        }
        self.push_event(node, What::Pause { duration_ns, suspend });
        self.queue.push(until_ns, Due::Resume(node));
    }

    fn resume(&mut self, node: NodeId) {
        let slot = &mut self.slots[node.index()];
        match slot.life {
            Life::Paused { until_ns } if until_ns <= self.now_ns => slot.life = Life::Running,
            _ => return,
        }
        self.push_event(node, What::Resume);
        let mut held = std::mem::take(&mut self.slots[node.index()].held);
        self.apply(node, &mut held);
        // What came due during the pause is handled now, in arrival order, before anything else
        // due at this instant: re-queuing it would let a later message on the same link overtake.
        let mut pending = std::mem::take(&mut self.slots[node.index()].pending).into_iter();
        while let Some(due) = pending.next() {
            match self.slots[node.index()].life {
                Life::Running => self.dispatch(due),
                Life::Paused { .. } => {
                    // Paused again by what it just handled: the rest waits for the next resume.
                    let slot = &mut self.slots[node.index()];
                    let later = std::mem::take(&mut slot.pending);
                    slot.pending = std::iter::once(due).chain(pending).chain(later).collect();
                    return;
                }
                Life::Crashed => {
                    // Crashed by what it just handled: the rest arrives at a dead process.
                    for due in std::iter::once(due).chain(pending) {
                        self.dispatch(due);
                    }
                    return;
                }
            }
        }
    }

    fn crash(&mut self, node: NodeId, restart_after_ns: Option<u64>) {
        if self.slots[node.index()].life == Life::Crashed {
            return;
        }
        self.push_event(node, What::Crash { restart_after_ns });
        let now_ns = self.now_ns;
        let slot = &mut self.slots[node.index()];
        slot.life = Life::Crashed;
        slot.started = false;
        slot.clock.end_suspension(now_ns);
        slot.incarnation += 1;
        slot.held.clear();
        for timer in &mut slot.timers {
            timer.generation += 1;
            timer.live = None;
        }
        for due in std::mem::take(&mut slot.pending) {
            if let Due::Deliver {
                from, to, msg_id, msg, ..
            } = due
            {
                let reason = DropReason::Down;
                self.push_event(
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
        }
        self.step(node, Input::Crash);
        if let Some(after_ns) = restart_after_ns {
            self.queue.push(self.now_ns + after_ns, Due::Restart(node));
        }
    }

    fn restart(&mut self, node: NodeId) {
        let slot = &mut self.slots[node.index()];
        if slot.life != Life::Crashed {
            return;
        }
        slot.life = Life::Running;
        slot.started = true;
        // Messages sent while it was down were addressed to no process: they must not reach
        // this one either.
        slot.incarnation += 1;
        self.push_event(node, What::Restart);
        self.step(node, Input::Start);
    }
}
