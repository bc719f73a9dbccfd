//! The two sides of a lease, from the lock facts a trace records: each client's hold *as it
//! believes it* (from `acquired` to the deadline it computed on its own monotonic clock, or its
//! release) and each server's key *as the server holds it* (from `key_set` to its expiry or
//! delete). Kleppmann's lesson is the gap between them — a client still acting on a lease no
//! server holds — so the viewer draws both, on the same true-time axis.

use locksim_protocols::lock::LockObs;
use locksim_protocols::lock::obs::{ClockKind, DeleteCause, short_lease};
use locksim_sim::trace::{Happening, TraceEvent};
use serde::Serialize;

use super::clock_map::{Clock, ClockMap};

/// A client's hold as it believes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(super) struct Belief {
    pub node: String,
    pub lease: String,
    /// The `acquired` event, and its true time.
    pub from_i: usize,
    pub from_t: u64,
    /// The deadline it computed, on its own monotonic clock (none: it tracks none).
    pub deadline_mono: Option<u64>,
    /// When its clock reaches that deadline, in true time.
    pub valid_t: Option<u64>,
    /// When it stopped acting as the holder, and why: `released`, `lost`, `crashed`, or `open`
    /// at the end of the trace.
    pub end_t: u64,
    pub end: &'static str,
}

/// A server's lock key for one lease.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(super) struct Held {
    pub node: String,
    pub lease: String,
    /// The client that asked for this lease value, if the trace shows it.
    pub owner: Option<String>,
    pub from_i: usize,
    pub from_t: u64,
    /// The expiry on the server's own clock (`wall 10.002 s`), and its true time.
    pub expiry: Option<String>,
    pub expiry_t: Option<u64>,
    pub end_t: u64,
    /// `expired`, `released`, `deleted`, `lost in a crash`, `replaced`, or `open`.
    pub end: &'static str,
    /// Whether the server decided who holds the lock when it set the key (a replica does not).
    pub serving: bool,
}

/// Every belief and every held key of a trace, in the order they began.
#[derive(Default)]
pub(super) struct Spans {
    pub beliefs: Vec<Belief>,
    pub held: Vec<Held>,
    /// The fewest servers any acquisition was granted by (an etcd client names none: 0).
    pub fewest_granted: Option<u32>,
}

/// Reads the lock facts of `events`; a trace of a model without leases gives no spans.
pub(super) fn spans(events: &[TraceEvent]) -> Spans {
    let clocks = ClockMap::new(events);
    let mut owners: Vec<(u64, String)> = Vec::new();
    let mut serving: Vec<(String, bool)> = Vec::new();
    let mut open_beliefs: Vec<usize> = Vec::new();
    let mut open_held: Vec<usize> = Vec::new();
    let mut out = Spans::default();
    for e in events {
        if let Happening::Crash { .. } = e.what {
            close_beliefs(&mut out.beliefs, &mut open_beliefs, &e.node, e.t_ns, "crashed");
        }
        let Some(fact) = lock_fact(e) else { continue };
        match fact {
            LockObs::AcquireStarted { lease, .. } if !owners.iter().any(|(l, _)| *l == lease) => {
                owners.push((lease, e.node.clone()));
            }
            LockObs::Acquired {
                lease,
                deadline_mono_ns,
                servers,
                ..
            } => {
                let granted = servers.count_ones();
                out.fewest_granted = Some(out.fewest_granted.map_or(granted, |f| f.min(granted)));
                close_beliefs(&mut out.beliefs, &mut open_beliefs, &e.node, e.t_ns, "released");
                let deadline_mono = deadline_mono_ns.mono_ns();
                open_beliefs.push(out.beliefs.len());
                out.beliefs.push(Belief {
                    node: e.node.clone(),
                    lease: short_lease(lease),
                    from_i: e.index,
                    from_t: e.t_ns,
                    deadline_mono,
                    valid_t: deadline_mono.map(|d| clocks.reaches(&e.node, Clock::Mono, d.into(), e.t_ns)),
                    end_t: e.t_ns,
                    end: "open",
                });
            }
            LockObs::Renewed { deadline_mono_ns } => {
                if let Some(b) = open_beliefs.iter().copied().find(|&i| out.beliefs[i].node == e.node) {
                    out.beliefs[b].deadline_mono = Some(deadline_mono_ns);
                    out.beliefs[b].valid_t =
                        Some(clocks.reaches(&e.node, Clock::Mono, deadline_mono_ns.into(), e.t_ns));
                }
            }
            LockObs::Released { .. } => close_beliefs(&mut out.beliefs, &mut open_beliefs, &e.node, e.t_ns, "released"),
            LockObs::LockLost { .. } => close_beliefs(&mut out.beliefs, &mut open_beliefs, &e.node, e.t_ns, "lost"),
            LockObs::RoleChanged { authoritative, .. } => match serving.iter_mut().find(|(n, _)| *n == e.node) {
                Some((_, s)) => *s = authoritative,
                None => serving.push((e.node.clone(), authoritative)),
            },
            LockObs::KeySet { lease, expiry } => {
                close_held(&mut out.held, &mut open_held, &e.node, e.t_ns, "replaced");
                open_held.push(out.held.len());
                let (expiry, expiry_t) = match expiry {
                    Some(x) => {
                        let (clock, word) = match x.clock {
                            ClockKind::Wall => (Clock::Wall, "wall"),
                            ClockKind::Mono => (Clock::Mono, "mono"),
                        };
                        let t = clocks.reaches(&e.node, clock, x.at_ns.into(), e.t_ns);
                        (Some(format!("{word} {}", crate::render::secs(x.at_ns))), Some(t))
                    }
                    None => (None, None),
                };
                out.held.push(Held {
                    node: e.node.clone(),
                    lease: short_lease(lease),
                    owner: owners.iter().find(|(l, _)| *l == lease).map(|(_, n)| n.clone()),
                    from_i: e.index,
                    from_t: e.t_ns,
                    expiry,
                    expiry_t,
                    end_t: e.t_ns,
                    end: "open",
                    serving: serving.iter().find(|(n, _)| *n == e.node).is_none_or(|(_, s)| *s),
                });
            }
            LockObs::KeyExtended { expiry: Some(x), .. } => {
                if let Some(&h) = open_held.iter().find(|&&i| out.held[i].node == e.node) {
                    let clock = if x.clock == ClockKind::Wall {
                        Clock::Wall
                    } else {
                        Clock::Mono
                    };
                    out.held[h].expiry_t = Some(clocks.reaches(&e.node, clock, x.at_ns.into(), e.t_ns));
                }
            }
            LockObs::KeyExpired { .. } => close_held(&mut out.held, &mut open_held, &e.node, e.t_ns, "expired"),
            LockObs::KeyDeleted { cause, .. } => {
                let why = match cause {
                    DeleteCause::Release => "released",
                    DeleteCause::PlainDel => "deleted",
                    DeleteCause::Crash => "lost in a crash",
                };
                close_held(&mut out.held, &mut open_held, &e.node, e.t_ns, why);
            }
            _ => {}
        }
    }
    let last_t = events.last().map_or(0, |e| e.t_ns);
    for i in open_beliefs {
        out.beliefs[i].end_t = last_t;
    }
    for i in open_held {
        out.held[i].end_t = last_t;
    }
    out
}

/// The lock fact an event records, if it is one.
fn lock_fact(e: &TraceEvent) -> Option<LockObs> {
    match &e.what {
        Happening::Observe(o) => o.decode(),
        _ => None,
    }
}

fn close_beliefs(beliefs: &mut [Belief], open: &mut Vec<usize>, node: &str, t_ns: u64, why: &'static str) {
    open.retain(|&i| {
        let mine = beliefs[i].node == node;
        if mine {
            beliefs[i].end_t = t_ns;
            beliefs[i].end = why;
        }
        !mine
    });
}

fn close_held(held: &mut [Held], open: &mut Vec<usize>, node: &str, t_ns: u64, why: &'static str) {
    open.retain(|&i| {
        let mine = held[i].node == node;
        if mine {
            held[i].end_t = t_ns;
            held[i].end = why;
        }
        !mine
    });
}
