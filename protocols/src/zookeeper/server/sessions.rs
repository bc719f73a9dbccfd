//! The leader's session tracker (ZooKeeper's `SessionTrackerImpl` over an `ExpiryQueue`): a
//! session's expiry is the leader's monotonic time of its last touch plus its timeout, rounded
//! up to the next tick; every tick the leader proposes to close the sessions whose expiry has
//! come. Any message from a session touches it — a ping, a request, a reconnect. The client is
//! not asked: expiry is the leader's decision alone, on its own clock (seed 004, 9.4.1).

use locksim_sim::NodeId;

use super::{TICK, Txn, Work, ZkCtx, ZkServer};
use crate::zookeeper::msg::Msg;
use crate::zookeeper::tree::SessionId;

/// The session timeout a server grants for `asked_ns`: ZooKeeper's defaults bound it to
/// `[2, 20]` ticks (`minSessionTimeout`, `maxSessionTimeout`).
pub fn negotiated_timeout_ns(asked_ns: u64, tick_ns: u64) -> u64 {
    asked_ns.clamp(2 * tick_ns, 20 * tick_ns)
}

impl ZkServer {
    /// As leader, at start or restart: every session the log knows gets a full timeout from
    /// now (a new leader cannot know when its clients last pinged), and the tick starts, on a
    /// multiple of the tick as ZooKeeper's expiry buckets are.
    pub(super) fn start_tracking(&mut self, ctx: &mut ZkCtx<'_>) {
        let sessions: Vec<SessionId> = self.timeouts.keys().copied().collect();
        for s in sessions {
            self.set_expiry(ctx, s);
        }
        let tick = self.cfg.tick_ns;
        ctx.set_timer(TICK, tick - ctx.mono_ns() % tick);
    }

    fn set_expiry(&mut self, ctx: &mut ZkCtx<'_>, session: SessionId) {
        let tick = self.cfg.tick_ns;
        let timeout = self.timeouts[&session];
        self.expiry
            .insert(session, ((ctx.mono_ns() + timeout) / tick + 1) * tick);
    }

    /// A message from `session`: touches it if it is live and answers whether it is; tells the
    /// client its session expired otherwise.
    pub(super) fn touch(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, session: SessionId) -> bool {
        if !self.tree.is_live(session) || self.closing.contains(&session) {
            ctx.send(from, Msg::Expired { session });
            return false;
        }
        self.conns.insert(session, from);
        self.set_expiry(ctx, session);
        true
    }

    /// A client connects: a new session (its timeout negotiated into [2, 20] ticks, created by
    /// a transaction), or a reconnect to a live one.
    pub(super) fn connect(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, session: Option<SessionId>, timeout_ms: u64) {
        match session {
            Some(s) => {
                if self.touch(ctx, from, s) {
                    self.notified.insert(s, 0);
                    let timeout_ms = self.timeouts[&s] / 1_000_000;
                    let epoch = self.epoch;
                    ctx.send(
                        from,
                        Msg::Connected {
                            session: s,
                            timeout_ms,
                            epoch,
                        },
                    );
                }
            }
            None => {
                let timeout_ns = negotiated_timeout_ns(timeout_ms * 1_000_000, self.cfg.tick_ns);
                self.sessions_made += 1;
                let session = (u64::from(self.epoch) << 40) | self.sessions_made;
                self.enqueue(ctx, from, session, 0, Work::Write(Txn::CreateSession { timeout_ns }));
            }
        }
    }

    /// The expiry tick: propose to close every session whose expiry has come, and propose
    /// again what the followers have not logged.
    pub(super) fn tick(&mut self, ctx: &mut ZkCtx<'_>) {
        let now = ctx.mono_ns();
        let due: Vec<SessionId> = self
            .expiry
            .iter()
            .filter(|&(s, &at)| at <= now && !self.closing.contains(s))
            .map(|(&s, _)| s)
            .collect();
        for session in due {
            self.closing.insert(session);
            self.expiry.remove(&session);
            let conn = self.conns.get(&session).copied().unwrap_or(ctx.me());
            self.enqueue(ctx, conn, session, 0, Work::Write(Txn::Expire));
        }
        self.repropose(ctx);
        ctx.set_timer(TICK, self.cfg.tick_ns);
    }
}
