//! Sentinel, the operator's failover tool for Redis: after a failover it tells the clients
//! and the promoted replica's siblings who the primary is now, and keeps telling the old
//! primary until it acknowledges its demotion. The model lets the promoted replica speak for
//! Sentinel, so this state rides on that server ([`super::server::RedisServer`]) but is not
//! the server's: a crash of the server does not forget it.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::msg::Msg;
use crate::lock::LockObs;

/// The timer by which Sentinel re-sends the demotion (a tag of the server it rides on).
pub const RECONFIGURE: TimerTag = 4;

/// How often Sentinel asks every instance it monitors for its `INFO` (`SENTINEL_INFO_PERIOD`,
/// 10 s in sentinel.c). An old primary that still reports `role:master` after a failover is
/// sent `REPLICAOF` again at that pace, for as long as it does: the model re-sends the
/// demotion at this period until the old primary acknowledges it.
const SENTINEL_INFO_PERIOD_NS: u64 = 10_000_000_000;

type SentinelCtx<'a> = Ctx<'a, Msg, LockObs>;

/// Sentinel's view of one replication group, as the replica it would promote carries it.
pub struct Sentinel {
    /// Who hears a promotion (Sentinel's `+switch-master` reaches clients through the network).
    clients: Vec<NodeId>,
    /// After a promotion: the old primary, until it acknowledges its demotion.
    demoting: Option<NodeId>,
}

impl Sentinel {
    pub fn new(clients: Vec<NodeId>) -> Self {
        Sentinel {
            clients,
            demoting: None,
        }
    }

    /// Announces that this node replaced `old_primary`: to the clients and `siblings` (the
    /// old primary's other replicas, which follow the new one by the same `+switch-master`,
    /// Sentinel's `REPLICAOF` to each), then to the old primary.
    ///
    /// The clients hear `+switch-master` once, as Sentinel publishes it once. The old primary
    /// is told again every `SENTINEL_INFO_PERIOD_NS` (10 s) until it acknowledges: a partition or a
    /// crash may swallow the first demotion, and real Sentinel does not give up on it either —
    /// it keeps polling the old master and reconfigures it as a replica as soon as it can
    /// reach it again (the Sentinel documentation: "when the partition will heal, the master
    /// will be reconfigured as a replica of the new master"). Sent only once, a lost demotion
    /// would leave two primaries for ever. Retrying on Sentinel's own polling period, rather
    /// than delivering the demotion the instant a partition heals, keeps the model's split
    /// brain about as long as a real one lasts (sentinel.c also waits 8 s, four publish
    /// periods, after the role report before its `+convert-to-slave`; that is not modelled).
    pub fn announce_promotion(&mut self, ctx: &mut SentinelCtx<'_>, old_primary: NodeId, siblings: &[NodeId]) {
        for &node in self.clients.iter().chain(siblings) {
            ctx.send(node, Msg::SwitchMaster { primary: ctx.me() });
        }
        ctx.send(old_primary, Msg::SwitchMaster { primary: ctx.me() });
        self.demoting = Some(old_primary);
        ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
    }

    /// The server restarted: its crash cancelled the timer, but Sentinel kept its view and
    /// goes on reconfiguring.
    pub fn on_restart(&self, ctx: &mut SentinelCtx<'_>) {
        if self.demoting.is_some() {
            ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
        }
    }

    /// `from` says it took its demotion: if it is the one being demoted, the polling stops.
    pub fn on_demotion_ack(&mut self, ctx: &mut SentinelCtx<'_>, from: NodeId) {
        if self.demoting == Some(from) {
            self.demoting = None;
            ctx.cancel_timer(RECONFIGURE);
        }
    }

    /// The polling period is up: the old primary, if still not demoted, is told again.
    pub fn on_reconfigure(&self, ctx: &mut SentinelCtx<'_>) {
        if let Some(old) = self.demoting {
            ctx.send(old, Msg::SwitchMaster { primary: ctx.me() });
            ctx.set_timer(RECONFIGURE, SENTINEL_INFO_PERIOD_NS);
        }
    }
}
