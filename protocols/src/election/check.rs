//! The election world's invariants, judged as the run goes:
//!
//! - `one_leader_per_term`: no two servers record `became_leader` for one term (Raft's
//!   election safety, figure 3);
//! - `linearizable`: the register operations as the clients saw them — invoked, returned with
//!   a value, or given up on (outcome unknown) — have a linearization under a register's
//!   sequential specification, found by `locksim_sim::check::linear` (Knossos/Porcupine's
//!   search). A stale read is one way to fail it, judged as such by the general check and not
//!   by a rule of its own; the violation cites the completion the history cannot explain;
//! - `no_deposed_write`: once the resource accepted a write of term t, it accepts none of an
//!   older term — a deposed leader's write never lands after its successor's (seed 004,
//!   9.5.4: "the fence is the last gate").
//!
//! What it keeps: each term's leader (a few per run); every register operation (20 bytes
//! each, a client's one at a time: a run of 60 s at 50 operations a second per client keeps a
//! few thousand), since a linearization is found over the whole history; the resource's
//! highest accepted term and the first violation.

use std::collections::BTreeMap;

use locksim_sim::check::count;
use locksim_sim::check::linear::{self, Op, Outcome, Register, RegisterIn, RegisterOut};
use locksim_sim::time::fmt_secs;
use locksim_sim::{ClockTrack, Event, Invariant, Names, NodeId, RunEnd, Status, Verdict, Violation, What};

use super::msg::Msg;
use super::obs::ElectObs;
use crate::judge::Judge;

pub const ONE_LEADER_PER_TERM: Invariant =
    Invariant::new("one_leader_per_term", "no two servers become leader in the same term");
pub const LINEARIZABLE: Invariant = Invariant::new(
    "linearizable",
    "the register's reads and writes, as clients saw them, have a linearization (no stale read)",
);
pub const NO_DEPOSED_WRITE: Invariant = Invariant::new(
    "no_deposed_write",
    "once the resource accepted a write of term t, it accepts none from a leader of an older term",
);

/// What [`ElectionJudge`] judges, in its verdicts' order.
pub const ELECTION_INVARIANTS: &[Invariant] = &[ONE_LEADER_PER_TERM, LINEARIZABLE, NO_DEPOSED_WRITE];

/// A register operation as the linearizability search reads it.
type RegOp = Op<RegisterIn<u64>, RegisterOut<u64>>;

/// One register operation as its client saw it.
struct RecOp {
    client: NodeId,
    call_ns: u64,
    write: Option<u64>,
    /// When it returned (event index, time) and what: `None` if it never did.
    end: Option<(usize, u64, Option<u64>)>,
}

/// A second leader of a term: event, time, term, the first leader, the second.
type TwoLeaders = (usize, u64, u64, NodeId, NodeId);

/// A write accepted after a newer term's: event, time, its leader and term, the newer
/// term's leader and term.
type Deposed = (usize, u64, NodeId, u64, NodeId, u64);

#[derive(Default)]
pub struct ElectionJudge {
    leaders: BTreeMap<u64, NodeId>,
    two_leaders: Option<TwoLeaders>,
    ops: Vec<RecOp>,
    in_flight: BTreeMap<NodeId, usize>,
    max_accepted: Option<(u64, NodeId)>,
    acts: usize,
    refused: usize,
    deposed: Option<Deposed>,
}

impl ElectionJudge {
    fn on_leader(&mut self, index: usize, t_ns: u64, node: NodeId, term: u64) {
        match self.leaders.get(&term) {
            None => {
                self.leaders.insert(term, node);
            }
            Some(&first) if first != node && self.two_leaders.is_none() => {
                self.two_leaders = Some((index, t_ns, term, first, node));
            }
            Some(_) => {}
        }
    }

    fn on_accepted(&mut self, index: usize, t_ns: u64, leader: NodeId, term: u64) {
        self.acts += 1;
        match self.max_accepted {
            Some((max, by)) if term < max => {
                if self.deposed.is_none() {
                    self.deposed = Some((index, t_ns, leader, term, by, max));
                }
            }
            Some((max, _)) if term <= max => {}
            _ => self.max_accepted = Some((term, leader)),
        }
    }

    fn leader_status(&self, names: &Names) -> Status {
        match self.two_leaders {
            Some((event, t_ns, term, first, second)) => Status::Violated(Violation {
                event,
                t_ns,
                why: format!(
                    "{} became leader of term {term}, which {} already leads",
                    names.of(second),
                    names.of(first)
                ),
            }),
            None => Status::Held(format!("{}, each with one leader", count(self.leaders.len(), "term"))),
        }
    }

    fn deposed_status(&self, names: &Names) -> Status {
        if let Some((event, t_ns, leader, term, by, max)) = self.deposed {
            return Status::Violated(Violation {
                event,
                t_ns,
                why: format!(
                    "the resource accepted {}'s write as leader of term {term} after {}'s as leader of term {max}",
                    names.of(leader),
                    names.of(by)
                ),
            });
        }
        if self.acts == 0 {
            return Status::NotApplicable("the resource accepted no write".into());
        }
        Status::Held(format!(
            "{} accepted in term order, {} refused",
            count(self.acts, "write"),
            count(self.refused, "stale write")
        ))
    }

    /// The history the search reads. Two kinds of operation are left out, soundly for a
    /// read/write register: a read that never returned (any value would do, so it constrains
    /// nothing), and a write that never returned whose value no read returned (placed last, it
    /// changes nothing anyone saw; left out, the search need not try it at every point —
    /// each such write would double the orders a failing history has to rule out).
    fn history(&self) -> (Vec<RegOp>, Vec<usize>) {
        let read: std::collections::BTreeSet<u64> = self
            .ops
            .iter()
            .filter_map(|o| {
                if o.write.is_none() {
                    o.end.and_then(|e| e.2)
                } else {
                    None
                }
            })
            .collect();
        let mut ops = Vec::new();
        let mut origin = Vec::new();
        for (i, o) in self.ops.iter().enumerate() {
            let keep = match (o.write, o.end) {
                (None, None) => false,
                (Some(v), None) => read.contains(&v),
                _ => true,
            };
            if !keep {
                continue;
            }
            let (input, end) = match o.write {
                None => (RegisterIn::Read, o.end.map(|(_, t, v)| (t, RegisterOut::Read(v)))),
                Some(v) => (RegisterIn::Write(v), o.end.map(|(_, t, _)| (t, RegisterOut::Written))),
            };
            ops.push(Op {
                process: o.client.index() as u64,
                call: o.call_ns,
                end,
                input,
            });
            origin.push(i);
        }
        (ops, origin)
    }

    fn linear_status(&self, names: &Names) -> Status {
        let (history, origin) = self.history();
        if history.is_empty() {
            return Status::NotApplicable("no register operation returned".into());
        }
        match linear::check(&Register::new(), &history, linear::DEFAULT_MAX_STEPS) {
            Outcome::Linearizable { ops, .. } => {
                let unknown = self.ops.iter().filter(|o| o.end.is_none()).count();
                Status::Held(format!(
                    "{} linearizable ({} with unknown outcome)",
                    count(ops, "register operation"),
                    unknown
                ))
            }
            Outcome::Unexplained(u) => {
                let op = &self.ops[origin[u.op]];
                let (event, t_ns, value) = op.end.expect("an unexplained operation returned");
                let what = match op.write {
                    None => format!("read {}", show(value)),
                    Some(v) => format!("write of {v}"),
                };
                let last = self.last_write_before(op.call_ns);
                let why = format!(
                    "{}'s {what} (invoked at {}, returned at {}) fits no order of the history: up to it, {} returned and have a linearization; with it, none does{}",
                    names.of(op.client),
                    fmt_secs(op.call_ns),
                    fmt_secs(t_ns),
                    count(u.explained, "operation"),
                    last.map_or(String::new(), |(v, by, at)| format!(
                        "; the last write to return before it began wrote {v} ({}, at {})",
                        names.of(by),
                        fmt_secs(at)
                    ))
                );
                Status::Violated(Violation { event, t_ns, why })
            }
            Outcome::Undecided { steps } => Status::NotApplicable(format!(
                "the linearizability search stopped undecided after {steps} steps"
            )),
        }
    }

    /// The write that returned last before `t_ns`: what a read begun then must see or follow.
    fn last_write_before(&self, t_ns: u64) -> Option<(u64, NodeId, u64)> {
        self.ops
            .iter()
            .filter_map(|o| match (o.write, o.end) {
                (Some(v), Some((_, at, _))) if at < t_ns => Some((v, o.client, at)),
                _ => None,
            })
            .max_by_key(|&(_, _, at)| at)
    }
}

fn show(v: Option<u64>) -> String {
    v.map_or("nil".into(), |v| v.to_string())
}

impl Judge<Msg, ElectObs> for ElectionJudge {
    fn see(&mut self, index: usize, e: &Event<Msg, ElectObs>, _clocks: &[ClockTrack]) {
        let What::Observe(o) = &e.what else { return };
        match o {
            ElectObs::BecameLeader { term } => self.on_leader(index, e.t_ns, e.node, *term),
            ElectObs::Invoked { write } => {
                self.in_flight.insert(e.node, self.ops.len());
                self.ops.push(RecOp {
                    client: e.node,
                    call_ns: e.t_ns,
                    write: *write,
                    end: None,
                });
            }
            ElectObs::Returned { value } => {
                if let Some(i) = self.in_flight.remove(&e.node) {
                    self.ops[i].end = Some((index, e.t_ns, *value));
                }
            }
            ElectObs::GaveUp => {
                self.in_flight.remove(&e.node);
            }
            ElectObs::ActAccepted { leader, term, .. } => self.on_accepted(index, e.t_ns, *leader, *term),
            ElectObs::ActRefused { .. } => self.refused += 1,
            _ => {}
        }
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        vec![
            Verdict {
                invariant: ONE_LEADER_PER_TERM,
                status: self.leader_status(&end.names),
            },
            Verdict {
                invariant: LINEARIZABLE,
                status: self.linear_status(&end.names),
            },
            Verdict {
                invariant: NO_DEPOSED_WRITE,
                status: self.deposed_status(&end.names),
            },
        ]
    }
}

#[cfg(test)]
mod tests;
