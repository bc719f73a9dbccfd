//! The discrete-event loop. It owns true time, the nodes and their lifecycle (running,
//! paused, crashed), their clocks, the network, the fault plan, the seeded randomness and the
//! history. It never reads the host's clock.
//!
//! The loop itself is here; its parts each have a file: `dispatch` hands a due item to its
//! node and applies what the node asked for, `timers` keeps one queue entry per timer tag,
//! `fire` strikes a fault-plan entry, `lifecycle` pauses, resumes, crashes and restarts a
//! node, and `triggers` arms the faults that wait for a node's event.

mod dispatch;
mod fire;
mod lifecycle;
mod timers;
mod triggers;

use rand_chacha::ChaCha8Rng;

use crate::budget::{MAX_EVENTS_AT_ONE_INSTANT, Stop};
use crate::clock::{ClockSpec, ClockTrack};
use crate::fault::{FaultPlan, Unfired};
use crate::history::{Event, History, Level, Stats, What};
use crate::ids::{Names, NodeId};
use crate::network::{Network, NetworkConfig};
use crate::node::{Effect, Node, TimerTag};
use crate::queue::{Due, Popped, Queue};
use crate::record::{Keep, Recorder, RunEnd};
use crate::rng::{node_stream, stream};
use timers::TimerState;
use triggers::Watch;

/// Everything about a run that is not a node.
#[derive(Clone, Debug)]
pub struct WorldConfig {
    pub seed: u64,
    /// True time at which the run stops.
    pub end_ns: u64,
    pub network: NetworkConfig,
    pub faults: FaultPlan,
    pub level: Level,
    /// The most queue items the run may handle before it stops short of `end_ns`
    /// ([`crate::budget::DEFAULT_MAX_EVENTS`] unless raised).
    pub max_events: u64,
}

/// What a run hands over besides its events (which went to the recorder as they happened).
pub struct Finished {
    pub end: RunEnd,
    /// The plan entries that never fired, in plan order: a fault whose trigger never came
    /// leaves no trace in the history, and a run that was meant to test it must be able to
    /// say so.
    pub unfired: Vec<Unfired>,
    /// Why the run ended before `end_ns`, if it did: its history then covers only the time
    /// before, and judging it would judge a run that did not happen.
    pub stopped: Option<Stop>,
}

/// One node to put in the world.
pub struct NodeSetup<N> {
    pub name: String,
    pub clock: ClockSpec,
    pub model: N,
}

/// Where a node is in its lifecycle: what reaches it depends on it (a paused node's items
/// wait, a crashed node's are lost).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Life {
    Running,
    Paused { until_ns: u64 },
    Crashed,
}

/// What the world keeps per node besides the model: its lifecycle, its timers, what waits for
/// it while it is paused, its clock and its own random stream.
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
    rng: ChaCha8Rng,
}

impl<N: Node> Slot<N> {
    /// A running node not yet started, its random stream drawn from the run's seed and its
    /// name (so adding a node leaves the others' streams as they were).
    fn new(seed: u64, name: &str, model: N) -> Self {
        Slot {
            rng: node_stream(seed, name),
            model,
            life: Life::Running,
            started: false,
            incarnation: 0,
            timers: Vec::new(),
            pending: Vec::new(),
            held: Vec::new(),
        }
    }
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

/// A simulation in progress.
pub struct World<N: Node> {
    now_ns: u64,
    end_ns: u64,
    max_events: u64,
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
    /// How many of `watches` still wait for an event.
    watching: usize,
    /// Each node's clock, by node index: beside the slots so a recorder can read them all.
    clocks: Vec<ClockTrack>,
    /// How many events the recorder has been handed: the next one's index.
    recorded: usize,
    stats: Stats,
    next_msg_id: u64,
    /// The effects buffer, reused across steps.
    out: Vec<Effect<N::Msg, N::Obs>>,
}

impl<N: Node> World<N> {
    /// Builds the world. Node names must be unique and every node a fault names must exist;
    /// scenario loading checks both, so a violation here is an engine bug.
    pub fn new(nodes: Vec<NodeSetup<N>>, cfg: WorldConfig) -> Self {
        // One pass that moves each name into the table, rather than cloning them all: a world is
        // built per seed, and exploration runs thousands.
        let (mut names, mut clocks, mut slots) = (
            Vec::with_capacity(nodes.len()),
            Vec::with_capacity(nodes.len()),
            Vec::with_capacity(nodes.len()),
        );
        for n in nodes {
            clocks.push(ClockTrack::new(n.clock));
            slots.push(Slot::new(cfg.seed, &n.name, n.model));
            names.push(n.name);
        }
        let names = Names::new(names);
        let mut world = World {
            now_ns: 0,
            end_ns: cfg.end_ns,
            max_events: cfg.max_events,
            level: cfg.level,
            net: Network::new(slots.len(), cfg.network),
            slots,
            clocks,
            names,
            queue: Queue::new(),
            net_rng: stream(cfg.seed, "network"),
            loss_rng: stream(cfg.seed, "loss"),
            fired: vec![false; cfg.faults.entries.len()],
            plan: cfg.faults,
            watches: Vec::new(),
            watching: 0,
            recorded: 0,
            stats: Stats::default(),
            next_msg_id: 0,
            out: Vec::new(),
        };
        world.arm_triggers();
        for i in 0..world.slots.len() {
            world.queue.push(0, Due::Start(NodeId(i as u32)));
        }
        world
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Runs to the end and hands over the whole history, however it ended: for tests that
    /// know their world; [`World::run_to_end`] streams the events and says whether it stopped
    /// short.
    pub fn run(self) -> History<N::Msg, N::Obs> {
        let mut keep = Keep::default();
        let finished = self.run_to_end(&mut keep);
        keep.into_history(finished.end)
    }

    /// Runs to the end, or until a [`Stop`], handing each event to `recorder` as it happens.
    /// The world keeps none of them: what a run holds in memory is what its recorder keeps.
    pub fn run_to_end(mut self, recorder: &mut impl Recorder<N::Msg, N::Obs>) -> Finished {
        // Two counters, a compare and an increment each per item: what the budgets cost.
        let mut handled = 0u64;
        let mut at_this_instant = 0u64;
        let mut stopped = None;
        while let Some((t_ns, popped)) = self.queue.pop_until(self.end_ns) {
            debug_assert!(t_ns >= self.now_ns, "time went backwards");
            at_this_instant = if t_ns == self.now_ns { at_this_instant + 1 } else { 1 };
            self.now_ns = t_ns;
            handled += 1;
            if at_this_instant > MAX_EVENTS_AT_ONE_INSTANT {
                stopped = Some(Stop::Stalled { at_ns: t_ns });
                break;
            }
            if handled > self.max_events {
                stopped = Some(Stop::OverBudget {
                    at_ns: t_ns,
                    max_events: self.max_events,
                });
                break;
            }
            match popped {
                Popped::Timer { node, tag, ticket } => self.timer_entry_due(recorder, node, tag, ticket),
                // Messages, most of the rest, go straight to delivery: through `dispatch`, a
                // call that takes the whole item, a message cost ~25 instructions more.
                Popped::Due(Due::Deliver {
                    from,
                    to,
                    msg_id,
                    incarnation,
                    msg,
                }) => self.deliver(recorder, from, to, msg_id, incarnation, msg),
                Popped::Due(due) => self.dispatch(recorder, due),
            }
        }
        let unfired = self.unfired();
        Finished {
            end: RunEnd {
                names: self.names,
                clocks: self.clocks,
                end_ns: self.end_ns,
                stats: self.stats,
                events: self.recorded,
            },
            unfired,
            stopped,
        }
    }

    /// Hands a fact to the recorder at once, numbered in the order they happen and stamped with
    /// the node's clock readings now (zeros for the network, which has no clock). Handed at
    /// once, not gathered per step: an event then crosses one move, not two.
    #[inline]
    fn push_event(&mut self, rec: &mut impl Recorder<N::Msg, N::Obs>, node: NodeId, what: What<N::Msg, N::Obs>) {
        let readings = if node == NodeId::NET {
            (0, 0)
        } else {
            self.readings(node)
        };
        self.record(rec, node, readings, what);
    }

    /// `node`'s clock readings now: (wall, monotonic).
    #[inline]
    fn readings(&self, node: NodeId) -> (i64, u64) {
        let clock = &self.clocks[node.index()];
        (clock.wall_now(self.now_ns), clock.mono_at(self.now_ns))
    }

    /// [`World::push_event`] with the node's readings now already taken: a step's records
    /// reuse those its context was given, rather than read the clock again for each.
    #[inline]
    fn record(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        (wall_ns, mono_ns): (i64, u64),
        what: What<N::Msg, N::Obs>,
    ) {
        let event = Event {
            t_ns: self.now_ns,
            node,
            wall_ns,
            mono_ns,
            what,
        };
        rec.record(self.recorded, event, &self.clocks);
        self.recorded += 1;
    }
}
