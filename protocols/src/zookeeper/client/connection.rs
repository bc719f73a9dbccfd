//! The client's session and connection (ZooKeeper's `ClientCnxn`, in Curator's state names):
//! it pings every third of the session timeout; hearing nothing from its server for the read
//! timeout (two thirds of it) it is `SUSPENDED` and tries to reconnect with each ping; the
//! server, reached again, either takes the session back (`RECONNECTED`) or says it expired
//! (`LOST`) — the client never decides that itself.

use super::{ClientCtx, PING, Phase, SILENCE, STEP, Suspended, TIMEOUT, ZkClient};
use crate::lock::LockObs;
use crate::zookeeper::msg::Msg;
use crate::zookeeper::obs::ZkEvent;
use crate::zookeeper::tree::SessionId;

impl ZkClient {
    pub(super) fn read_timeout_ns(&self) -> u64 {
        self.timeout_ns * 2 / 3
    }

    /// Asks for a new session.
    pub(super) fn connect(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Connecting;
        let timeout_ms = self.zk.session_timeout_ns / 1_000_000;
        ctx.send(
            self.leader,
            Msg::Connect {
                session: None,
                timeout_ms,
            },
        );
        ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
    }

    /// The server took a session: a new one (then the first round starts), or mine back.
    pub(super) fn connected(&mut self, ctx: &mut ClientCtx<'_>, session: SessionId, timeout_ms: u64, epoch: u32) {
        if self.phase == Phase::Connecting {
            ctx.cancel_timer(TIMEOUT);
            self.session = Some(session);
            self.timeout_ns = timeout_ms * 1_000_000;
            self.connected = true;
            self.server_epoch = epoch;
            self.notified = 0;
            self.record(ctx, ZkEvent::SessionStarted { session, timeout_ms });
            self.heard(ctx);
            ctx.set_timer(PING, self.timeout_ns / 3);
            return self.next_round(ctx);
        }
        if Some(session) == self.session && !self.connected {
            self.connected = true;
            self.server_epoch = epoch;
            self.notified = 0;
            self.record(
                ctx,
                ZkEvent::Connection {
                    state: "reconnected".into(),
                },
            );
            self.heard(ctx);
            self.rewatch(ctx);
        }
    }

    /// Something came from the server: the read timeout starts again. A holder that counts
    /// `SUSPENDED` as lost holds until then.
    pub(super) fn heard(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.session.is_none() || !self.connected {
            return;
        }
        self.last_heard_ns = ctx.mono_ns();
        ctx.set_timer(SILENCE, self.read_timeout_ns());
        if self.holding && self.zk.suspended == Suspended::Lost {
            let deadline_mono_ns = self.last_heard_ns + self.read_timeout_ns();
            self.record(ctx, LockObs::Renewed { deadline_mono_ns });
        }
    }

    /// A pong that shows the connection broke under the client: the server restarted (a new
    /// epoch), or a watch notification it sent never arrived. In ZooKeeper the client sees the
    /// socket close, is `SUSPENDED`, reconnects and sets its watches again (`SetWatches`, which
    /// fires at once for a node already gone); here that is learnt at the next pong.
    pub(super) fn pong(&mut self, ctx: &mut ClientCtx<'_>, epoch: u32, notified: u64) {
        let restarted = std::mem::replace(&mut self.server_epoch, epoch) != epoch;
        let missed = notified > std::mem::replace(&mut self.notified, notified);
        if !(restarted || missed) || !self.connected {
            return;
        }
        self.record(
            ctx,
            ZkEvent::Connection {
                state: "suspended".into(),
            },
        );
        if self.holding && self.zk.suspended == Suspended::Lost {
            self.lose(
                ctx,
                "its connection was reset (server restart): SUSPENDED, treated as lost",
            );
        }
        self.record(
            ctx,
            ZkEvent::Connection {
                state: "reconnected".into(),
            },
        );
        self.rewatch(ctx);
    }

    /// A ping, or while suspended a reconnect attempt.
    pub(super) fn ping(&mut self, ctx: &mut ClientCtx<'_>) {
        let Some(session) = self.session else { return };
        let msg = if self.connected {
            Msg::Ping { session }
        } else {
            Msg::Connect {
                session: Some(session),
                timeout_ms: self.timeout_ns / 1_000_000,
            }
        };
        ctx.send(self.leader, msg);
        ctx.set_timer(PING, self.timeout_ns / 3);
    }

    /// The read timeout passed in silence: `SUSPENDED`.
    pub(super) fn silence(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.session.is_none() || !self.connected {
            return;
        }
        self.connected = false;
        self.record(
            ctx,
            ZkEvent::Connection {
                state: "suspended".into(),
            },
        );
        if self.holding && self.zk.suspended == Suspended::Lost {
            self.lose(ctx, "its connection is SUSPENDED: Curator says treat the lock as lost");
        }
    }

    /// The server says my session expired: `LOST`. Whatever the round was doing ends; a new
    /// session is opened after the think time.
    pub(super) fn expired(&mut self, ctx: &mut ClientCtx<'_>) {
        self.record(ctx, ZkEvent::Connection { state: "lost".into() });
        self.session = None;
        self.connected = false;
        ctx.cancel_timer(PING);
        ctx.cancel_timer(SILENCE);
        if self.holding {
            self.holding = false;
            self.record(
                ctx,
                LockObs::LockLost {
                    why: "its session expired".into(),
                },
            );
        } else if matches!(
            self.phase,
            Phase::Creating | Phase::Finding | Phase::Checking | Phase::Waiting
        ) {
            self.record(
                ctx,
                LockObs::AcquireFailed {
                    lease: self.lease,
                    why: "its session expired while it queued".into(),
                    validity_ns: 0,
                },
            );
        }
        ctx.cancel_timer(STEP);
        self.think(ctx);
    }
}
