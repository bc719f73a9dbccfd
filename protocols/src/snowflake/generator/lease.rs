//! A generator's side of the node-ID lease (`node_ids = "leased"`): ask `server-0` for an ID,
//! poll while none is free, renew every third of the TTL, and give the ID up — dropping the
//! requests it holds — when its own monotonic deadline passes or the server says the lease is
//! gone. The deadline counts from when a request was *sent*, so it never ends after the
//! server's (which starts when the request arrives), as long as the clocks run at one rate.

use super::{Generator, LEASE_RETRY, NS_PER_MS, NodeIds, RENEW, TICK, WAIT};
use crate::snowflake::msg::{IdCtx, Msg};
use crate::snowflake::obs::{IdObs, IssueNote, LostWhy};

impl Generator {
    pub(super) fn lease_ttl_ns(&self) -> Option<u64> {
        match self.node_ids {
            NodeIds::Static => None,
            NodeIds::Leased { ttl_ns, .. } => Some(ttl_ns),
        }
    }

    pub fn on_msg(&mut self, ctx: &mut IdCtx<'_>, msg: Msg) {
        match msg {
            Msg::Granted { req, node_id } if req == self.lease_req && self.node_id.is_none() => {
                let ttl_ns = self.lease_ttl_ns().expect("only leased generators ask for leases");
                ctx.cancel_timer(LEASE_RETRY);
                self.node_id = Some(node_id);
                // Counted from when it asked: the server's TTL starts later, never earlier.
                self.deadline_mono_ns = self.lease_sent_mono_ns + ttl_ns;
                self.told_to_wait = false;
                self.note = IssueNote::WithNewNodeId;
                ctx.record(IdObs::NodeIdLeased {
                    node_id,
                    deadline_mono_ns: self.deadline_mono_ns,
                });
                ctx.set_timer(RENEW, ttl_ns / 3);
                self.start_ticking(ctx);
            }
            // Said once per wait, not at every poll.
            Msg::NoneFree { req, pool } if req == self.lease_req && self.node_id.is_none() && !self.told_to_wait => {
                self.told_to_wait = true;
                ctx.record(IdObs::NodeIdWaiting { pool });
            }
            Msg::Renewed { req } if req == self.renew_req && self.node_id.is_some() => {
                let ttl_ns = self.lease_ttl_ns().expect("leased");
                self.deadline_mono_ns = self.renew_sent_mono_ns + ttl_ns;
                ctx.record(IdObs::NodeIdRenewed {
                    node_id: self.node_id.expect("holds one"),
                    deadline_mono_ns: self.deadline_mono_ns,
                });
            }
            Msg::Gone { req } if req == self.renew_req && self.node_id.is_some() => {
                self.lose(ctx, LostWhy::ServerSaysGone);
            }
            _ => {}
        }
    }

    pub(super) fn request_lease(&mut self, ctx: &mut IdCtx<'_>) {
        let (server, ttl_ns) = match self.node_ids {
            NodeIds::Leased { server, ttl_ns } => (server, ttl_ns),
            NodeIds::Static => return,
        };
        self.next_req += 1;
        self.lease_req = self.next_req;
        self.lease_sent_mono_ns = ctx.mono_ns();
        ctx.send(server, Msg::Lease { req: self.lease_req });
        // Asks again if no ID came: both the poll while none is free and the retry of a lost
        // message.
        ctx.set_timer(LEASE_RETRY, (ttl_ns / 10).max(NS_PER_MS));
    }

    pub(super) fn renew(&mut self, ctx: &mut IdCtx<'_>) {
        let NodeIds::Leased { server, ttl_ns } = self.node_ids else {
            return;
        };
        if ctx.mono_ns() >= self.deadline_mono_ns {
            let by_ns = ctx.mono_ns() - self.deadline_mono_ns;
            return self.lose(ctx, LostWhy::DeadlinePassed { by_ns });
        }
        let node_id = self.node_id.expect("renews only what it holds");
        self.next_req += 1;
        self.renew_req = self.next_req;
        self.renew_sent_mono_ns = ctx.mono_ns();
        ctx.send(
            server,
            Msg::Renew {
                req: self.renew_req,
                node_id,
            },
        );
        // An unanswered renewal is simply tried again at the next period.
        ctx.set_timer(RENEW, ttl_ns / 3);
    }

    /// Stops issuing with its node ID: the requests it holds go unanswered (their callers
    /// retry elsewhere), and it asks for a node ID again.
    pub(super) fn lose(&mut self, ctx: &mut IdCtx<'_>, why: LostWhy) {
        let node_id = self.node_id.take().expect("loses only what it holds");
        ctx.record(IdObs::NodeIdLost {
            node_id,
            why,
            dropped: self.backlog,
        });
        self.backlog = 0;
        self.ticking = false;
        self.waiting = None;
        self.renew_req = 0;
        for tag in [TICK, WAIT, RENEW] {
            ctx.cancel_timer(tag);
        }
        self.request_lease(ctx);
    }
}
