//! The allocator database (`server-0`, and its replica `replica-0`): one row per business
//! holding `max_id`, as Leaf's `leaf_alloc` table. The atomic allocation moves the max by
//! `step` and hands the segment `(old, new]` to the asker in one transaction; the wrong variant
//! answers a read and a blind write separately, so two processes can read one max.
//!
//! The row is durable: a crash of the database loses no committed max. With a replica, each
//! change is shipped to it — asynchronously after `replication_lag_ms` (a failover in that
//! window promotes a replica behind the primary, which hands out a segment again), or
//! semi-synchronously: the answer waits for the replica's acknowledgement, so no segment is
//! handed out that the replica does not have. (MySQL's semi-sync falls back to asynchronous
//! after `rpl_semi_sync_master_timeout`; this model has no fallback.)

use std::collections::VecDeque;

use locksim_sim::{NodeId, TimerTag};

use super::buffer::Segment;
use super::msg::{Msg, SegCtx};
use super::obs::SegObs;

/// How the primary's changes reach its replica.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Replication {
    /// No replica: nothing to fail over to.
    None,
    /// Shipped `lag_ns` after a change; answers do not wait.
    Async { lag_ns: u64 },
    /// Answers wait for the replica's acknowledgement.
    SemiSync,
}

/// What this database is now.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    Primary {
        replica: Option<NodeId>,
    },
    Replica {
        primary: NodeId,
    },
    /// A primary that heard its replica was promoted.
    SteppedDown,
}

/// Shipping the max to the replica (asynchronous replication).
const SHIP: TimerTag = 0;

pub struct Allocator {
    step: u64,
    replication: Replication,
    role: Role,
    /// The processes, told of a promotion.
    processes: Vec<NodeId>,
    // ---- durable ----
    max: u64,
    /// How many changes the max has had: what the replica acknowledges.
    version: u64,
    // ---- volatile: a crash drops them ----
    shipping: bool,
    /// Semi-sync: answers waiting for the replica to acknowledge the version they need.
    held: VecDeque<(u64, NodeId, Msg)>,
}

impl Allocator {
    pub fn primary(
        step: u64,
        max: u64,
        replication: Replication,
        replica: Option<NodeId>,
        processes: Vec<NodeId>,
    ) -> Self {
        Self::new(step, max, replication, Role::Primary { replica }, processes)
    }

    pub fn replica(step: u64, max: u64, replication: Replication, primary: NodeId, processes: Vec<NodeId>) -> Self {
        Self::new(step, max, replication, Role::Replica { primary }, processes)
    }

    fn new(step: u64, max: u64, replication: Replication, role: Role, processes: Vec<NodeId>) -> Self {
        Allocator {
            step,
            replication,
            role,
            processes,
            max,
            version: 0,
            shipping: false,
            held: VecDeque::new(),
        }
    }

    pub fn on_start(&mut self, ctx: &mut SegCtx<'_>) {
        // The binlog is durable: a restarted primary ships what its replica may lack.
        self.changed(ctx);
    }

    pub fn on_crash(&mut self) {
        self.shipping = false;
        self.held.clear();
    }

    pub fn on_timer(&mut self, ctx: &mut SegCtx<'_>, tag: TimerTag) {
        if tag == SHIP {
            self.shipping = false;
            if let Role::Primary { replica: Some(r) } = self.role {
                let (version, max) = (self.version, self.max);
                ctx.send(r, Msg::Replicate { version, max });
            }
        }
    }

    /// The failover tool promotes the replica of `primary`; it tells the processes and the
    /// old primary over the network, so one that cannot be reached keeps its old view.
    pub fn on_failover(&mut self, ctx: &mut SegCtx<'_>, primary: NodeId) {
        if self.role != (Role::Replica { primary }) {
            return;
        }
        self.role = Role::Primary { replica: None };
        ctx.record(SegObs::PromotedWith { max: self.max });
        for &p in self.processes.iter().chain([&primary]) {
            ctx.send(p, Msg::Promoted);
        }
    }

    pub fn on_msg(&mut self, ctx: &mut SegCtx<'_>, from: NodeId, msg: Msg) {
        match (self.role, msg) {
            (Role::Replica { .. }, Msg::Replicate { version, max }) => {
                // A shipment overtaken by a later one (after a partition) changes nothing.
                if version > self.version {
                    (self.version, self.max) = (version, max);
                    ctx.record(SegObs::Replicated { max });
                }
                ctx.send(from, Msg::ReplicaAck { version });
            }
            (Role::Primary { .. }, Msg::ReplicaAck { version }) => {
                while self.held.front().is_some_and(|(needs, ..)| *needs <= version) {
                    let (_, to, reply) = self.held.pop_front().expect("checked above");
                    ctx.send(to, reply);
                }
            }
            (Role::Primary { .. }, Msg::Promoted) => {
                self.role = Role::SteppedDown;
                self.held.clear();
                ctx.record(SegObs::SteppedDown { max: self.max });
            }
            (Role::Primary { .. }, Msg::Allocate { req }) => {
                let segment = Segment {
                    from_exclusive: self.max,
                    to: self.max + self.step,
                };
                self.max = segment.to;
                self.version += 1;
                ctx.record(SegObs::SegmentGranted { to: from, segment });
                let reply = Msg::Granted {
                    req,
                    from_exclusive: segment.from_exclusive,
                    to: segment.to,
                };
                self.answer_change(ctx, from, reply);
            }
            (Role::Primary { .. }, Msg::ReadMax { req }) => {
                ctx.record(SegObs::MaxReadBy {
                    by: from,
                    max: self.max,
                });
                ctx.send(from, Msg::MaxIs { req, max: self.max });
            }
            (Role::Primary { .. }, Msg::WriteMax { req, max }) => {
                let was = std::mem::replace(&mut self.max, max);
                self.version += 1;
                ctx.record(SegObs::MaxWrittenBy { by: from, max, was });
                self.answer_change(ctx, from, Msg::MaxWritten { req });
            }
            (_, Msg::Allocate { req } | Msg::ReadMax { req } | Msg::WriteMax { req, .. }) => {
                ctx.send(from, Msg::NotPrimary { req });
            }
            _ => {}
        }
    }

    /// Answers a change of the max: at once, or (semi-sync) once the replica has it.
    fn answer_change(&mut self, ctx: &mut SegCtx<'_>, to: NodeId, reply: Msg) {
        match (self.replication, self.role) {
            (Replication::SemiSync, Role::Primary { replica: Some(r) }) => {
                let (version, max) = (self.version, self.max);
                self.held.push_back((version, to, reply));
                ctx.send(r, Msg::Replicate { version, max });
            }
            _ => {
                ctx.send(to, reply);
                self.changed(ctx);
            }
        }
    }

    /// Asynchronous replication: ship the max `lag_ns` from now, unless a shipment is due.
    fn changed(&mut self, ctx: &mut SegCtx<'_>) {
        if let (Replication::Async { lag_ns }, Role::Primary { replica: Some(_) }) = (self.replication, self.role)
            && !self.shipping
        {
            self.shipping = true;
            ctx.set_timer(SHIP, lag_ns);
        }
    }
}
