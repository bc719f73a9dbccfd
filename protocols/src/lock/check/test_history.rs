//! Hand-built lock histories for the checkers' unit tests: a fixed cast (two clients, five
//! servers — enough for a Redlock quorum —, the resource), every clock exact (true time = wall = mono), and events added in
//! true-time order. One builder shared by every checker's tests, so a boundary is set up the
//! same way wherever it is tested.

use locksim_sim::check::{Invariant, Status, Verdict, Violation};
use locksim_sim::{ClockTrack, RunEnd};
use locksim_sim::{Event, History, Stats, What};
use locksim_sim::{Names, NodeId};

use super::{LockJudge, LockSetup};
use crate::judge::Judge;
use crate::lock::obs::{Deadline, LockObs};

pub use locksim_sim::time::NS_PER_MS;
pub const S: u64 = 1_000 * NS_PER_MS;

pub const C0: NodeId = NodeId(0);
pub const C1: NodeId = NodeId(1);
pub const S0: NodeId = NodeId(2);
pub const S1: NodeId = NodeId(3);
pub const S2: NodeId = NodeId(4);
pub const S3: NodeId = NodeId(5);
pub const S4: NodeId = NodeId(6);
pub const RES: NodeId = NodeId(7);

const NAMES: [&str; 8] = [
    "client-0", "client-1", "server-0", "server-1", "server-2", "server-3", "server-4", "resource",
];

pub type LockHistory = History<(), LockObs>;

/// A history under construction; `end_ns` defaults to 100 s. Cloned to judge a prefix and
/// then go on.
#[derive(Clone)]
pub struct Hist(LockHistory);

impl Hist {
    pub fn new() -> Self {
        Hist(History {
            names: Names::new(NAMES.iter().map(|n| n.to_string()).collect()),
            events: Vec::new(),
            clocks: vec![ClockTrack::default(); NAMES.len()],
            end_ns: 100 * S,
            stats: Stats::default(),
        })
    }

    /// Anything happening to `node` at true time `t_ns`.
    pub fn at(mut self, t_ns: u64, node: NodeId, what: What<(), LockObs>) -> Self {
        debug_assert!(self.0.events.last().is_none_or(|e| e.t_ns <= t_ns), "in time order");
        self.0.events.push(Event {
            t_ns,
            node,
            wall_ns: t_ns as i64,
            mono_ns: t_ns,
            what,
        });
        self
    }

    /// A lock fact `node` records at `t_ns`.
    pub fn obs(self, t_ns: u64, node: NodeId, obs: LockObs) -> Self {
        self.at(t_ns, node, What::Observe(obs))
    }

    /// `client` acquires lease `lease` (its number, for the owner's name) at `t_ns`, holding
    /// until its monotonic clock reads `deadline_ns`.
    pub fn acquired(self, t_ns: u64, client: NodeId, lease: u64, deadline_ns: u64) -> Self {
        self.acquired_until(t_ns, client, lease, Deadline::Mono(deadline_ns))
    }

    /// `client` acquires lease `lease` at `t_ns` and tracks no deadline.
    pub fn acquired_untracked(self, t_ns: u64, client: NodeId, lease: u64) -> Self {
        self.acquired_until(t_ns, client, lease, Deadline::Untracked)
    }

    fn acquired_until(self, t_ns: u64, client: NodeId, lease: u64, deadline: Deadline) -> Self {
        self.obs(t_ns, client, LockObs::AcquireStarted { lease, attempt: 1 })
            .obs(
                t_ns,
                client,
                LockObs::Acquired {
                    lease,
                    token: None,
                    validity_ns: 0,
                    deadline_mono_ns: deadline,
                    servers: 1,
                },
            )
    }

    /// The resource accepts `client`'s write of `value`, computed from `based_on`, over
    /// `prev_value`.
    pub fn write(self, t_ns: u64, client: NodeId, token: Option<u64>, based_on: u64, prev_value: u64) -> Self {
        let obs = LockObs::WriteApplied {
            client,
            lease: 0,
            token,
            value: based_on + 1,
            based_on,
            prev_value,
        };
        self.obs(t_ns, RES, obs)
    }

    /// The resource accepts `client`'s unfenced write made under `lease` (what `stale_write`
    /// compares with the servers' keys).
    pub fn write_under(self, t_ns: u64, client: NodeId, lease: u64) -> Self {
        let obs = LockObs::WriteApplied {
            client,
            lease,
            token: None,
            value: 1,
            based_on: 0,
            prev_value: 0,
        };
        self.obs(t_ns, RES, obs)
    }

    pub fn end(mut self, end_ns: u64) -> Self {
        self.0.end_ns = end_ns;
        self
    }

    pub fn build(self) -> LockHistory {
        self.0
    }
}

/// Both clients; `servers` with `quorum`; a 30 s liveness window.
pub fn setup(servers: &[NodeId], quorum: usize) -> LockSetup {
    LockSetup {
        clients: vec![C0, C1],
        servers: servers.to_vec(),
        quorum,
        newest_serves_alone: false,
        liveness_window_ns: 30 * S,
    }
}

/// Plays `h` through a [`LockJudge`] event by event, as a run records it, every event handed
/// the history's final clocks (which agree on the past with the clocks of each moment).
pub fn verdicts(h: &LockHistory, setup: &LockSetup) -> Vec<Verdict> {
    verdicts_as_recorded(h, setup, |_| h.clocks.clone())
}

/// Plays `h` through a [`LockJudge`], handing event `i` the clocks `clocks_at(i)` (the clocks
/// as they were when it was recorded); the end gets the history's final clocks.
pub fn verdicts_as_recorded(
    h: &LockHistory,
    setup: &LockSetup,
    clocks_at: impl Fn(usize) -> Vec<ClockTrack>,
) -> Vec<Verdict> {
    let mut judge = LockJudge::new(setup.clone());
    for (index, e) in h.events.iter().enumerate() {
        Judge::<(), LockObs>::see(&mut judge, index, e, &clocks_at(index));
    }
    Judge::<(), LockObs>::verdicts(judge, &run_end(h))
}

/// What a run of `h` ends with.
pub fn run_end(h: &LockHistory) -> RunEnd {
    RunEnd {
        names: h.names.clone(),
        clocks: h.clocks.clone(),
        end_ns: h.end_ns,
        stats: h.stats,
        events: h.events.len(),
    }
}

/// The status of one invariant, judged over `h` with `setup`.
pub fn judge(h: &LockHistory, setup: &LockSetup, invariant: Invariant) -> Status {
    let found = verdicts(h, setup).into_iter().find(|v| v.invariant == invariant);
    found.expect("a lock invariant").status
}

/// The message of a `held` verdict (panics, naming the verdict, otherwise).
pub fn held(s: Status) -> String {
    match s {
        Status::Held(why) => why,
        other => panic!("expected held, got {other:?}"),
    }
}

/// The message of a `not_applicable` verdict.
pub fn not_applicable(s: Status) -> String {
    match s {
        Status::NotApplicable(why) => why,
        other => panic!("expected not_applicable, got {other:?}"),
    }
}

/// The violation of a `violated` verdict.
pub fn violated(s: Status) -> Violation {
    match s {
        Status::Violated(v) => v,
        other => panic!("expected violated, got {other:?}"),
    }
}
