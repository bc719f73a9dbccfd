//! The leader's lessor. Lease expiry is judged by the leader's monotonic clock: each lease has
//! a deadline in the leader's memory, a timer fires at the earliest one, and an expiry is
//! proposed as a log entry (so all keys of a lease go in one revision). Keep-alives are not
//! logged, as in etcd: they reach only the leader and move its deadline.
//!
//! A new leader's lessor becomes primary at its promotion: etcdserver's `applyEntryNormal`
//! calls `lessor.Promote(electionTimeout)` on the first entry of the leader's term, refreshing
//! every lease to now + election timeout + TTL; a keep-alive arriving before then waits, as
//! etcd's `LeaseRenew` waits for a primary lessor.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::NodeId;

use super::{EtcdCtx, EtcdServer, LESSOR, Role};
use crate::etcd::msg::{Command, Msg};
use crate::etcd::obs::EtcdEvent;
use crate::lock::LockObs;
use crate::lock::obs::{ClockKind, Expiry};

/// The lessor's state; a leader's only (a member that is not leading holds it empty).
#[derive(Default)]
pub(super) struct Lessor {
    /// Lease -> expiry on this leader's monotonic clock.
    pub(super) deadlines: BTreeMap<i64, u64>,
    /// Leases whose expiry is proposed but not applied yet.
    pub(super) expiring: BTreeSet<i64>,
    /// The instant the expiry timer is set for, if it is set.
    armed_ns: Option<u64>,
    /// Keep-alives that reached this leader before its promotion; answered at it.
    held_keepalives: Vec<(NodeId, i64)>,
}

impl Lessor {
    /// The leases past their deadline at `now` whose expiry is not proposed yet.
    fn due(&self, now: u64) -> Vec<i64> {
        self.deadlines
            .iter()
            .filter(|(l, d)| **d <= now && !self.expiring.contains(l))
            .map(|(l, _)| *l)
            .collect()
    }

    /// The earliest deadline of a lease whose expiry is not proposed yet.
    fn next_deadline(&self) -> Option<u64> {
        self.deadlines
            .iter()
            .filter(|(l, _)| !self.expiring.contains(l))
            .map(|(_, d)| *d)
            .min()
    }
}

impl EtcdServer {
    /// etcd's shortest lease: one and a half election timeouts (counted in heartbeat ticks),
    /// rounded up to whole seconds — 2 s by default. A shorter TTL is raised to it, so that a
    /// lease cannot expire during a routine election.
    pub(super) fn min_ttl_ms(&self) -> i64 {
        let ticks = self.cfg.election_ns / self.cfg.heartbeat_ns;
        let min_ns = 3 * ticks / 2 * self.cfg.heartbeat_ns;
        (min_ns.div_ceil(1_000_000_000) * 1000) as i64
    }

    /// The lessor's timer: proposes the expiry of every lease past its deadline, then re-arms.
    pub(super) fn expire_due(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.lessor.armed_ns = None;
        for lease in self.lessor.due(ctx.mono_ns()) {
            self.lessor.expiring.insert(lease);
            self.propose(ctx, Command::Expire { lease }, None);
        }
        self.arm_lessor(ctx);
    }

    /// The first entry of this leader's term is applied, so everything committed before it is
    /// too. etcdserver `applyEntryNormal` on that empty entry: `lessor.Promote(electionTimeout)`
    /// refreshes every lease to now + election timeout + TTL — the leases' deadlines lived in
    /// the old leader's memory, and the extra election timeout covers the time the cluster
    /// may have had no leader to renew them.
    pub(super) fn promote(&mut self, ctx: &mut EtcdCtx<'_>) {
        self.promoted = true;
        let now = ctx.mono_ns();
        let extend_ns = self.cfg.election_ns;
        self.lessor.deadlines = self
            .kv
            .lease_ids()
            .map(|l| {
                (
                    l,
                    now + extend_ns + self.kv.lease_ttl_ms(l).unwrap_or(0) as u64 * 1_000_000,
                )
            })
            .collect();
        self.record_role(ctx, true, "leader");
        self.record(
            ctx,
            EtcdEvent::LeaderElected {
                term: self.term,
                leases_extended: self.lessor.deadlines.len() as u32,
            },
        );
        self.arm_lessor(ctx);
        for (client, lease) in std::mem::take(&mut self.lessor.held_keepalives) {
            self.keep_alive(ctx, client, lease);
        }
    }
    pub(super) fn keep_alive(&mut self, ctx: &mut EtcdCtx<'_>, from: NodeId, lease: i64) {
        if self.role != Role::Leader {
            let hint = self.leader.map(|l| self.peers[l]);
            return ctx.send(from, Msg::KeepAliveNotLeader { hint });
        }
        if !self.promoted {
            return self.lessor.held_keepalives.push((from, lease));
        }
        let ttl_ms = match self.kv.lease_ttl_ms(lease) {
            Some(ttl) if !self.lessor.expiring.contains(&lease) => ttl,
            _ => return ctx.send(from, Msg::KeptAlive { lease, ttl_ms: -1 }),
        };
        let deadline = ctx.mono_ns() + ttl_ms as u64 * 1_000_000;
        self.lessor.deadlines.insert(lease, deadline);
        if self.facts.owner.is_some_and(|(l, _)| l == lease) {
            self.record(
                ctx,
                LockObs::KeyExtended {
                    lease: lease as u64,
                    expiry: Some(Expiry {
                        clock: ClockKind::Mono,
                        at_ns: deadline as i64,
                    }),
                },
            );
        }
        ctx.send(from, Msg::KeptAlive { lease, ttl_ms });
    }

    /// Sets the lessor's timer for the earliest lease deadline, unless it is set for that or
    /// an earlier instant (an early firing re-arms).
    pub(super) fn arm_lessor(&mut self, ctx: &mut EtcdCtx<'_>) {
        let Some(at) = self.lessor.next_deadline() else {
            return;
        };
        if self.lessor.armed_ns.is_some_and(|armed| armed <= at) {
            return;
        }
        self.lessor.armed_ns = Some(at);
        ctx.set_timer(LESSOR, at.saturating_sub(ctx.mono_ns()));
    }
}
