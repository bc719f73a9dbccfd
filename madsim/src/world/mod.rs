//! One run's shared state: every node's clock (the native engine's [`ClockTrack`]s), the
//! judge and the trace line writer every event goes through, the fault plan's triggers, and
//! the native server models the harness hosts. madsim runs one runtime per thread and polls
//! one task at a time, so a `Mutex` around it is never contended; it is there because
//! madsim's tasks must be `Send`.

mod faults;
mod hosted;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use locksim_protocols::Judge;
use locksim_protocols::lock::{LockJudge, LockObs};
use locksim_protocols::redis::msg::Msg;
use locksim_sim::fault::FaultPlan;
use locksim_sim::trace::{LineWriter, TraceSink};
use locksim_sim::{ClockTrack, Event, Level, Names, NodeId, Observation, RunEnd, Stats, Verdict, What};
use madsim::time::Instant;
use tokio::sync::mpsc::UnboundedSender;

pub use faults::Action;
use faults::Watch;
pub(crate) use hosted::Hosted;

/// The run's shared state.
pub type Shared = Arc<Mutex<World>>;

/// Locks the world (never poisoned in practice: a panic ends the run).
pub fn lock(shared: &Shared) -> MutexGuard<'_, World> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Where events go: the judge always, the trace sink when the run is traced.
pub struct Sinks {
    pub judge: LockJudge,
    pub trace: Option<Box<dyn TraceSink + Send>>,
}

/// What a node is to the harness.
pub struct NodeState {
    /// True time until which a pause holds it.
    pub paused_until_ns: Option<u64>,
    pub crashed: bool,
    /// True time of its last resume.
    pub resumed_at_ns: Option<u64>,
    /// Whether it has started once: a later start is a restart, recorded as such.
    pub started: bool,
    /// The native model the harness runs for it (the Redis server, the resource); `None`
    /// for a client, which runs the user's code.
    pub hosted: Option<Hosted>,
}

pub struct World {
    pub names: Names,
    pub clocks: Vec<ClockTrack>,
    pub nodes: Vec<NodeState>,
    /// madsim's true time at the run's time 0.
    start: Instant,
    pub end_ns: u64,
    /// Set when the run's time is up: nothing after it is recorded.
    pub ended: bool,
    level: Level,
    sinks: Option<Sinks>,
    lines: LineWriter,
    recorded: usize,
    pub stats: Stats,
    next_msg_id: u64,
    /// Per (client, lease), the attempts seen: the `attempt` of `acquire_started`.
    attempts: std::collections::BTreeMap<(NodeId, u64), u32>,
    plan: FaultPlan,
    fired: Vec<bool>,
    watches: Vec<Watch>,
    /// madsim's id of each node, by node index (set once the nodes are built).
    pub ids: Vec<madsim::task::NodeId>,
    /// Asks the supervisor for what only it does with madsim's handle (pause, kill, clog).
    actions: UnboundedSender<Action>,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        names: Names,
        clocks: Vec<ClockTrack>,
        nodes: Vec<NodeState>,
        end_ns: u64,
        plan: FaultPlan,
        sinks: Sinks,
        level: Level,
        actions: UnboundedSender<Action>,
    ) -> Self {
        let watches = faults::watches(&plan);
        World {
            names,
            clocks,
            nodes,
            start: Instant::now(),
            end_ns,
            ended: false,
            level,
            sinks: Some(sinks),
            lines: LineWriter::default(),
            recorded: 0,
            stats: Stats::default(),
            next_msg_id: 0,
            attempts: Default::default(),
            fired: vec![false; plan.entries.len()],
            plan,
            watches,
            ids: Vec::new(),
            actions,
        }
    }

    /// True time now, in ns since the run began.
    pub fn now_ns(&self) -> u64 {
        Instant::now().duration_since(self.start).as_nanos() as u64
    }

    /// madsim's instant for the run's true time `t_ns`.
    pub fn instant_of(&self, t_ns: u64) -> Instant {
        self.start + std::time::Duration::from_nanos(t_ns)
    }

    /// `node`'s wall clock now.
    pub fn wall_ns(&self, node: NodeId) -> i64 {
        self.clocks[node.index()].wall_now(self.now_ns())
    }

    /// `node`'s monotonic clock now.
    pub fn mono_ns(&self, node: NodeId) -> u64 {
        self.clocks[node.index()].mono_at(self.now_ns())
    }

    /// The true time at which `node`'s monotonic clock reaches `mono_ns`, as far as its
    /// suspensions are known now.
    pub fn true_time_of_mono(&self, node: NodeId, mono_ns: u64) -> u64 {
        self.clocks[node.index()].true_time_of_mono(mono_ns)
    }

    /// Whether events of this kind are written at the run's level.
    fn kept(&self, what: &What<Msg, LockObs>) -> bool {
        self.level == Level::Full
            || !matches!(
                what,
                What::Start | What::Send { .. } | What::Deliver { .. } | What::Timer { .. }
            )
    }

    /// Hands an event to the judge and the trace, stamped with `node`'s clocks now.
    pub fn push(&mut self, node: NodeId, what: What<Msg, LockObs>) {
        if self.ended || !self.kept(&what) {
            return;
        }
        let t_ns = self.now_ns();
        let (wall_ns, mono_ns) = if node == NodeId::NET {
            (0, 0)
        } else {
            let clock = &self.clocks[node.index()];
            (clock.wall_now(t_ns), clock.mono_at(t_ns))
        };
        let event = Event {
            t_ns,
            node,
            wall_ns,
            mono_ns,
            what,
        };
        let sinks = self.sinks.as_mut().expect("sinks are taken only at the end");
        sinks.judge.see(self.recorded, &event, &self.clocks);
        if let Some(trace) = &mut sinks.trace {
            self.lines.pass(&self.names, self.recorded, &event, &mut **trace);
        }
        self.recorded += 1;
    }

    /// A message id for a recorded send or delivery.
    pub fn msg_id(&mut self) -> u64 {
        self.next_msg_id += 1;
        self.next_msg_id
    }

    /// `node`'s process starts (madsim ran its `init`): `start` the first time (a restart
    /// was recorded when the supervisor restarted it); a hosted model runs its start.
    pub fn started(&mut self, node: NodeId) {
        if !std::mem::replace(&mut self.nodes[node.index()].started, true) {
            self.push(node, What::Start);
        }
        self.step_hosted(node, hosted::Input::Start);
    }

    /// The number of `client`'s attempt with `lease` that has just arrived.
    pub fn next_attempt(&mut self, client: NodeId, lease: u64) -> u32 {
        let n = self.attempts.entry((client, lease)).or_insert(0);
        *n += 1;
        *n
    }

    /// Records a fact of `node` and fires the faults waiting for it.
    pub fn record(&mut self, node: NodeId, obs: LockObs) {
        if self.ended {
            return;
        }
        let kind = obs.kind();
        self.push(node, What::Observe(obs));
        self.watched(node, kind);
    }

    /// The verdicts and what is known at the end; the sinks are handed back.
    pub fn finish(&mut self) -> (Vec<Verdict>, RunEnd, Option<Box<dyn TraceSink + Send>>) {
        let mut sinks = self.sinks.take().expect("a run finishes once");
        if let Some(trace) = &mut sinks.trace {
            self.lines.flush(&mut **trace);
        }
        let end = RunEnd {
            names: self.names.clone(),
            clocks: self.clocks.clone(),
            end_ns: self.end_ns,
            stats: self.stats,
            events: self.recorded,
        };
        let verdicts = Judge::<Msg, LockObs>::verdicts(sinks.judge, &end);
        (verdicts, end, sinks.trace)
    }
}
