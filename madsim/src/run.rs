//! One seed: a madsim runtime with a node per scenario node — the user's client code on each
//! client node, the native Redis server and resource hosted on theirs — and a supervisor (the
//! runtime's main task) that fires the timed faults, does what needs madsim's handle (pause,
//! kill, restart, heal) and ends the run at the scenario's duration.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use locksim_protocols::lock::knobs::ClientConfig;
use locksim_protocols::redis::world::RedisWorldNode;
use locksim_protocols::{Outcome, Scenario};
use locksim_sim::trace::TraceSink;
use locksim_sim::{ClockTrack, Level, Names, NodeId};
use madsim::net::NetSim;
use madsim::runtime::{Handle, Runtime};
use madsim::time::sleep_until;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::clock::SimClock;
use crate::host::{Addresses, Wire, serve};
use crate::refuse::supported;
use crate::report::SimReport;
use crate::world::{Action, Hosted, NodeState, Shared, Sinks, World, lock};
use locksim_protocols::lock::LockJudge;

/// The port every hosted server listens on.
pub const PORT: u16 = 6379;

/// What the user's code on one client node is given.
pub struct ClientEnv {
    /// Its number: `client-<index>`.
    pub index: u32,
    pub clock: SimClock,
    pub report: SimReport,
    /// The Redis server's address.
    pub redis: SocketAddr,
    /// The fenced resource's address.
    pub resource: SocketAddr,
    /// The scenario's client knobs (`ttl_ms`, `work_ms`, ...).
    pub config: ClientConfig,
}

/// The user's client: called again on every (re)start of a client node.
pub type ClientFn = Arc<dyn Fn(ClientEnv) -> Pin<Box<dyn Future<Output = ()>>> + Send + Sync>;

/// One run's result: what the native runner returns, and the trace sink handed in.
pub struct Run {
    pub outcome: Outcome,
    pub names: Names,
    pub trace: Option<Box<dyn TraceSink + Send>>,
}

/// Node `i`'s address: 10.0.0.1 onwards.
fn ip_of(node: NodeId) -> IpAddr {
    IpAddr::V4(Ipv4Addr::from(0x0a00_0001 + node.0))
}

/// Runs `scenario` with `seed` under madsim, the user's `client` on each client node.
pub fn run(
    scenario: &Scenario,
    seed: u64,
    level: Level,
    trace: Option<Box<dyn TraceSink + Send>>,
    client: &ClientFn,
) -> Result<Run, String> {
    let model = supported(scenario)?;
    let (setups, lock_setup) = model.build(scenario.setting());
    let latency = scenario.network.latency;
    let mut config = madsim::Config::default();
    config.net.send_latency = Duration::from_nanos(latency.min_ns)..Duration::from_nanos(latency.max_ns + 1);
    let rt = Runtime::with_seed_and_config(seed, config);
    let client = client.clone();
    let end_ns = scenario.duration_ns;
    let plan = scenario.faults.clone();
    let client_config = model.client;
    Ok(rt.block_on(async move {
        let names = Names::new(setups.iter().map(|n| n.name.clone()).collect());
        let clocks = setups.iter().map(|n| ClockTrack::new(n.clock)).collect();
        let (tx, rx) = unbounded_channel();
        let mut kinds = Vec::new();
        let nodes = setups
            .into_iter()
            .map(|n| {
                let hosted = match n.model {
                    RedisWorldNode::Client(_) => {
                        kinds.push(None);
                        None
                    }
                    RedisWorldNode::Redis(m) => {
                        kinds.push(Some(Wire::Resp));
                        Some(Hosted::new(RedisWorldNode::Redis(m), seed, &n.name))
                    }
                    RedisWorldNode::Resource(m) => {
                        kinds.push(Some(Wire::Lines));
                        Some(Hosted::new(RedisWorldNode::Resource(m), seed, &n.name))
                    }
                };
                NodeState {
                    paused_until_ns: None,
                    crashed: false,
                    resumed_at_ns: None,
                    started: false,
                    hosted,
                }
            })
            .collect();
        let sinks = Sinks {
            judge: LockJudge::new(lock_setup.clone()),
            trace,
        };
        let world = World::new(names.clone(), clocks, nodes, end_ns, plan, sinks, level, tx);
        let shared: Shared = Arc::new(Mutex::new(world));
        let who: Addresses = Arc::new(names.iter().map(|(id, _)| (ip_of(id), id)).collect());
        let addr = |id: NodeId| SocketAddr::new(ip_of(id), PORT);
        let resource_node = names.find("resource").expect("a single-Redis world has its resource");
        let (redis, resource) = (addr(lock_setup.servers[0]), addr(resource_node));
        let h = Handle::current();
        let mut ids = Vec::new();
        for ((id, name), wire) in names.iter().zip(kinds) {
            let shared = shared.clone();
            let builder = h.create_node().name(name).ip(ip_of(id));
            let node = match wire {
                Some(wire) => {
                    let who = who.clone();
                    builder
                        .init(move || serve(shared.clone(), id, addr(id), who.clone(), wire))
                        .build()
                }
                None => {
                    let client = client.clone();
                    let index = lock_setup.clients.iter().position(|c| *c == id).unwrap_or(0) as u32;
                    builder
                        .init(move || {
                            lock(&shared).started(id);
                            client(ClientEnv {
                                index,
                                clock: SimClock::new(shared.clone(), id),
                                report: SimReport::new(shared.clone(), id),
                                redis,
                                resource,
                                config: client_config,
                            })
                        })
                        .build()
                }
            };
            ids.push(node.id());
        }
        lock(&shared).ids = ids.clone();
        supervise(&shared, &h, &ids, rx).await;
        for id in &ids {
            h.kill(*id);
        }
        let mut w = lock(&shared);
        let (verdicts, end, trace) = w.finish();
        Run {
            outcome: Outcome {
                stopped: None,
                verdicts,
                events: end.events,
                stats: end.stats,
                end_ns: end.end_ns,
                unfired_faults: w.unfired(),
            },
            names,
            trace,
        }
    }))
}

/// The runtime's main task: fires the timed faults, carries out the world's actions, and
/// ends the run at its duration.
async fn supervise(shared: &Shared, h: &Handle, ids: &[madsim::task::NodeId], mut rx: UnboundedReceiver<Action>) {
    let (timed, end) = {
        let w = lock(shared);
        (w.timed_faults(), w.instant_of(w.end_ns))
    };
    for (fault, at_ns) in timed {
        let shared = shared.clone();
        let at = lock(&shared).instant_of(at_ns);
        madsim::task::spawn(async move {
            sleep_until(at).await;
            lock(&shared).fire(fault);
        });
    }
    let ids: Arc<Vec<_>> = Arc::new(ids.to_vec());
    loop {
        tokio::select! {
            biased;
            _ = sleep_until(end) => break,
            Some(action) = rx.recv() => act(shared, h, &ids, action),
        }
    }
    lock(shared).ended = true;
}

/// Does what a fault or a hosted model asked of madsim.
fn act(shared: &Shared, h: &Handle, ids: &Arc<Vec<madsim::task::NodeId>>, action: Action) {
    let at = |ns: u64| lock(shared).instant_of(ns);
    let (shared, h, ids) = (shared.clone(), h.clone(), ids.clone());
    match action {
        Action::Pause { node, until_ns } => {
            let until = at(until_ns);
            madsim::task::spawn(async move {
                sleep_until(until).await;
                if lock(&shared).resume(node, until_ns) {
                    h.resume(ids[node.index()]);
                }
            });
        }
        Action::Kill { node, restart_at_ns } => {
            h.kill(ids[node.index()]);
            if let Some(restart_at_ns) = restart_at_ns {
                let when = at(restart_at_ns);
                madsim::task::spawn(async move {
                    sleep_until(when).await;
                    lock(&shared).restart(node);
                    h.restart(ids[node.index()]);
                });
            }
        }
        Action::Heal {
            fault,
            links,
            heal_at_ns,
        } => {
            let when = at(heal_at_ns);
            madsim::task::spawn(async move {
                sleep_until(when).await;
                lock(&shared).heal(fault);
                let net = NetSim::current();
                for (a, b) in links {
                    net.unclog_link(ids[a.index()], ids[b.index()]);
                }
            });
        }
        Action::Timer {
            node,
            tag,
            generation,
            target_mono_ns,
        } => {
            let Some(target) = h.get_node(ids[node.index()]) else {
                return;
            };
            target.spawn(async move {
                loop {
                    let wake = {
                        let w = lock(&shared);
                        if w.mono_ns(node) >= target_mono_ns {
                            break;
                        }
                        w.instant_of(w.true_time_of_mono(node, target_mono_ns))
                    };
                    sleep_until(wake).await;
                }
                lock(&shared).timer_due(node, tag, generation);
            });
        }
    }
}

/// Addresses by node, for callers that build their own clients (tests).
pub fn addresses(names: &Names) -> BTreeMap<String, SocketAddr> {
    names
        .iter()
        .map(|(id, n)| (n.to_string(), SocketAddr::new(ip_of(id), PORT)))
        .collect()
}
