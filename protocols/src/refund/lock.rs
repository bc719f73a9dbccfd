//! The refund lock (`server-0`): one TTL lock per refund, `SET NX PX` with an `INCR`ed token
//! (seed 004, 9.2 and 9.6), expired by the server's monotonic clock, never lost (it persists
//! every write). A worker is not told when its lock expires: seed 004 9.10's point.

use std::collections::BTreeMap;

use locksim_sim::{Ctx, NodeId};

use super::msg::RefundMsg;
use super::obs::RefundObs;

pub struct LockServer {
    ttl_ns: u64,
    /// Per refund: the holder's lease and when it expires (monotonic).
    held: BTreeMap<u64, (u64, u64)>,
    /// Per refund: the last token handed out.
    tokens: BTreeMap<u64, u64>,
}

type RefundCtx<'a> = Ctx<'a, RefundMsg, RefundObs>;

impl LockServer {
    pub fn new(ttl_ns: u64) -> Self {
        LockServer {
            ttl_ns,
            held: BTreeMap::new(),
            tokens: BTreeMap::new(),
        }
    }

    pub fn on_msg(&mut self, ctx: &mut RefundCtx<'_>, from: NodeId, msg: RefundMsg) {
        let now = ctx.mono_ns();
        match msg {
            RefundMsg::Lock { req, refund, lease } => {
                let free = self
                    .held
                    .get(&refund)
                    .is_none_or(|&(holder, until)| holder == lease || until <= now);
                let token = free.then(|| {
                    self.held.insert(refund, (lease, now + self.ttl_ns));
                    let token = self.tokens.entry(refund).or_insert(0);
                    *token += 1;
                    *token
                });
                if let Some(token) = token {
                    ctx.record(RefundObs::LockGranted {
                        refund,
                        token,
                        holder: from,
                    });
                }
                ctx.send(from, RefundMsg::Granted { req, token });
            }
            RefundMsg::Unlock { refund, lease } if self.held.get(&refund).is_some_and(|&(h, _)| h == lease) => {
                self.held.remove(&refund);
            }
            _ => {}
        }
    }
}
