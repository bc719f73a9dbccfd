//! The node-ID lease server `server-0` (seed 001: "node IDs must not be handed to two live
//! generators at once"). It owns a pool of node IDs; a generator leases one for `ttl` and
//! renews it; an ID whose lease ran out — by the server's own monotonic clock — is free and
//! goes to the next generator that asks. The server cannot know whether the old holder is
//! dead or only paused: that is exactly the gap a paused generator falls into.
//!
//! Expiry follows the server's monotonic clock (a wall-clock step on the server moves no
//! lease); an expiry timer frees IDs at their instant, so the timeline shows when an ID became
//! free. The table is durable (etcd and ZooKeeper keep leases through a restart).

use locksim_sim::{NodeId, TimerTag};

use super::msg::{IdCtx, Msg};
use super::obs::IdObs;

/// Fires at the earliest lease expiry.
const EXPIRE: TimerTag = 0;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Lease {
    holder: NodeId,
    expires_mono_ns: u64,
}

pub struct NodeLeaseServer {
    ttl_ns: u64,
    /// Indexed by node ID: the live lease, if any.
    leases: Vec<Option<Lease>>,
    /// Indexed by node ID: who held it last (to say when an ID is reused).
    last_holder: Vec<Option<NodeId>>,
}

impl NodeLeaseServer {
    pub fn new(pool: u16, ttl_ns: u64) -> Self {
        NodeLeaseServer {
            ttl_ns,
            leases: vec![None; usize::from(pool)],
            last_holder: vec![None; usize::from(pool)],
        }
    }

    pub fn on_start(&mut self, ctx: &mut IdCtx<'_>) {
        self.arm(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut IdCtx<'_>, tag: TimerTag) {
        if tag == EXPIRE {
            self.expire_due(ctx);
            self.arm(ctx);
        }
    }

    pub fn on_msg(&mut self, ctx: &mut IdCtx<'_>, from: NodeId, msg: Msg) {
        // A lease that ran out at this very instant is free before anyone is answered.
        self.expire_due(ctx);
        let expires_mono_ns = ctx.mono_ns() + self.ttl_ns;
        let reply = match msg {
            Msg::Lease { req } => match self.held_by(from) {
                // Its answer was lost and it asked again: extend, so that the deadline it
                // counts from this request is covered.
                Some(node_id) => {
                    self.leases[usize::from(node_id)] = Some(Lease {
                        holder: from,
                        expires_mono_ns,
                    });
                    Msg::Granted { req, node_id }
                }
                None => match self.leases.iter().position(Option::is_none) {
                    Some(i) => {
                        let node_id = i as u16;
                        self.leases[i] = Some(Lease {
                            holder: from,
                            expires_mono_ns,
                        });
                        let previous = self.last_holder[i].filter(|p| *p != from);
                        ctx.record(IdObs::NodeIdGranted {
                            node_id,
                            to: from,
                            expires_mono_ns,
                            previous,
                        });
                        Msg::Granted { req, node_id }
                    }
                    None => Msg::NoneFree {
                        req,
                        pool: self.leases.len() as u16,
                    },
                },
            },
            Msg::Renew { req, node_id } => match self.leases.get_mut(usize::from(node_id)) {
                Some(Some(lease)) if lease.holder == from => {
                    lease.expires_mono_ns = expires_mono_ns;
                    Msg::Renewed { req }
                }
                _ => Msg::Gone { req },
            },
            // Answers are the server's to send, not to receive.
            Msg::Granted { .. } | Msg::NoneFree { .. } | Msg::Renewed { .. } | Msg::Gone { .. } => return,
        };
        ctx.send(from, reply);
        self.arm(ctx);
    }

    fn held_by(&self, node: NodeId) -> Option<u16> {
        self.leases
            .iter()
            .position(|l| l.is_some_and(|l| l.holder == node))
            .map(|i| i as u16)
    }

    /// Frees every ID whose lease has run out by now.
    fn expire_due(&mut self, ctx: &mut IdCtx<'_>) {
        let now_ns = ctx.mono_ns();
        for (i, slot) in self.leases.iter_mut().enumerate() {
            if let Some(lease) = *slot
                && lease.expires_mono_ns <= now_ns
            {
                *slot = None;
                self.last_holder[i] = Some(lease.holder);
                ctx.record(IdObs::NodeIdExpired {
                    node_id: i as u16,
                    holder: lease.holder,
                });
            }
        }
    }

    /// Sets the expiry timer for the earliest live lease.
    fn arm(&self, ctx: &mut IdCtx<'_>) {
        let now_ns = ctx.mono_ns();
        match self.leases.iter().flatten().map(|l| l.expires_mono_ns).min() {
            Some(at_ns) => ctx.set_timer(EXPIRE, at_ns.saturating_sub(now_ns)),
            None => ctx.cancel_timer(EXPIRE),
        }
    }
}

#[cfg(test)]
mod tests {
    use locksim_sim::rng::stream;
    use locksim_sim::{Ctx, Effect};

    use super::*;

    use locksim_sim::time::NS_PER_MS;

    /// Delivers `msg` from `from` at monotonic time `now_ns`; returns what the server did.
    fn step(
        s: &mut NodeLeaseServer,
        now_ns: u64,
        f: impl FnOnce(&mut NodeLeaseServer, &mut IdCtx<'_>),
    ) -> Vec<Effect<Msg, IdObs>> {
        let mut rng = stream(0, "test");
        let mut out = Vec::new();
        let mut ctx = Ctx::new(NodeId(9), now_ns as i64, now_ns, &mut rng, &mut out);
        f(s, &mut ctx);
        out
    }

    fn replies(effects: &[Effect<Msg, IdObs>]) -> Vec<Msg> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Send { msg, .. } => Some(msg.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_pool_of_two_grants_two_then_none_and_reuses_an_expired_id() {
        let (a, b, c) = (NodeId(0), NodeId(1), NodeId(2));
        let mut s = NodeLeaseServer::new(2, 3_000 * NS_PER_MS);
        let lease = |req| Msg::Lease { req };
        assert_eq!(
            replies(&step(&mut s, 0, |s, x| s.on_msg(x, a, lease(1)))),
            [Msg::Granted { req: 1, node_id: 0 }]
        );
        assert_eq!(
            replies(&step(&mut s, NS_PER_MS, |s, x| s.on_msg(x, b, lease(1)))),
            [Msg::Granted { req: 1, node_id: 1 }]
        );
        assert_eq!(
            replies(&step(&mut s, 2 * NS_PER_MS, |s, x| s.on_msg(x, c, lease(1)))),
            [Msg::NoneFree { req: 1, pool: 2 }]
        );
        // a renews; b does not. At 3.001 s b's lease runs out (its timer fires).
        let renew = Msg::Renew { req: 2, node_id: 0 };
        assert_eq!(
            replies(&step(&mut s, 1_000 * NS_PER_MS, |s, x| s.on_msg(x, a, renew))),
            [Msg::Renewed { req: 2 }]
        );
        let expired = step(&mut s, 3_001 * NS_PER_MS, |s, x| s.on_timer(x, EXPIRE));
        assert!(matches!(
            expired[..],
            [Effect::Record(IdObs::NodeIdExpired { node_id: 1, holder }), ..] if holder == b
        ));
        let granted = step(&mut s, 3_100 * NS_PER_MS, |s, x| s.on_msg(x, c, lease(2)));
        assert!(matches!(
            granted[0],
            Effect::Record(IdObs::NodeIdGranted { node_id: 1, to, previous: Some(p), .. }) if to == c && p == b
        ));
        assert_eq!(replies(&granted), [Msg::Granted { req: 2, node_id: 1 }]);
        // b's late renewal: the lease is not its own any more.
        let late = Msg::Renew { req: 2, node_id: 1 };
        assert_eq!(
            replies(&step(&mut s, 3_200 * NS_PER_MS, |s, x| s.on_msg(x, b, late))),
            [Msg::Gone { req: 2 }]
        );
        // a asking again (its answer was lost) keeps its own ID.
        assert_eq!(
            replies(&step(&mut s, 3_300 * NS_PER_MS, |s, x| s.on_msg(x, a, lease(3)))),
            [Msg::Granted { req: 3, node_id: 0 }]
        );
    }
}
