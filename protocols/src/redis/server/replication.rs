//! A server in its replication group: the primary's stream to its replicas (with the lag),
//! and what Sentinel's `REPLICAOF` does to the old primary and to the other replicas.

use locksim_sim::NodeId;

use super::{REPLICATE, RedisCtx, RedisServer, Role};
use crate::lock::LockObs;
use crate::redis::cmd::Key;
use crate::redis::msg::Msg;
use crate::redis::store::Entry;

impl RedisServer {
    /// Sentinel's `REPLICAOF` reaches the old primary: it stops serving (once) and reports its
    /// new role. It answers every copy, since the answer to an earlier one may have been lost.
    /// A server still unavailable after a delayed restart accepts no connection, Sentinel's
    /// included: it stays silent and is asked again.
    pub(super) fn on_demotion(&mut self, ctx: &mut RedisCtx<'_>, from: NodeId) {
        if self.unavailable_until_ns.is_some() {
            return;
        }
        if self.role == Role::Primary {
            self.role = Role::Demoted { primary: from };
            self.backlog.clear();
            ctx.record(LockObs::RoleChanged {
                authoritative: false,
                role: "demoted: a replica was promoted".into(),
            });
        }
        if matches!(self.role, Role::Demoted { .. }) {
            ctx.send(from, Msg::DemotionAck);
        }
    }

    /// Sentinel's `REPLICAOF` to another replica of the failed primary: it follows the
    /// promoted one, and acks at once (its sync handshake), which puts it online there. It
    /// keeps its keyspace, as a partial resync would; what the two replicas had received of
    /// the old primary's stream is not reconciled — it matters only to a second failover,
    /// which the model does not make (only replica-0 is ever promoted).
    pub(super) fn follow(&mut self, ctx: &mut RedisCtx<'_>, primary: NodeId) {
        if self.unavailable_until_ns.is_some() {
            return;
        }
        self.role = Role::Replica { primary };
        if self.counts_acks() {
            ctx.send(primary, Msg::ReplAck);
        }
    }

    /// Queues a write for the replicas, to leave after the replication lag.
    pub(super) fn replicate(&mut self, ctx: &mut RedisCtx<'_>, key: Key, entry: Option<Entry>) {
        if self.role == Role::Primary && !self.replicas.is_empty() {
            let lag_ns = self.replication_lag_ns;
            if self.backlog.is_empty() {
                ctx.set_timer(REPLICATE, lag_ns);
            }
            self.backlog.push_back((ctx.mono_ns() + lag_ns, key, entry));
        }
    }

    /// Sends what has waited out the lag, and waits for the next.
    pub(super) fn flush_backlog(&mut self, ctx: &mut RedisCtx<'_>) {
        if self.role != Role::Primary {
            return;
        }
        while let Some(&(due_ns, key, entry)) = self.backlog.front() {
            if due_ns > ctx.mono_ns() {
                ctx.set_timer(REPLICATE, due_ns - ctx.mono_ns());
                return;
            }
            self.backlog.pop_front();
            for &replica in &self.replicas {
                ctx.send(replica, Msg::Replicate { key, entry });
            }
        }
    }
}
