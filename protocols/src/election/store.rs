//! The lock service a leader on an external lease holds its key in (seed 004, 9.5.3 steps 1-3:
//! "the candidate writes /leader/c with a lease; the write succeeds, it is leader; it renews
//! periodically"): one key with a TTL on the store's monotonic clock, and an epoch that goes up
//! by one with every grant to a new holder (the value 9.5.3 has the key carry). A minimal node
//! of this model rather than the etcd model's server: the stories need only grant, renew and
//! expire. What it holds is lost in a crash (the key's lease with it), the epoch is not.

use locksim_sim::{Ctx, NodeId};

use super::msg::Msg;
use super::obs::ElectObs;

pub struct Store {
    ttl_ns: u64,
    epoch: u64,
    /// The holder, its epoch, and when (store monotonic) the key expires.
    holder: Option<(NodeId, u64, u64)>,
}

impl Store {
    pub fn new(ttl_ns: u64) -> Self {
        Store {
            ttl_ns,
            epoch: 0,
            holder: None,
        }
    }

    pub fn on_crash(&mut self) {
        self.holder = None;
    }

    pub fn on_msg(&mut self, ctx: &mut Ctx<'_, Msg, ElectObs>, from: NodeId, msg: Msg) {
        let now = ctx.mono_ns();
        let live = self.holder.filter(|&(_, _, until)| now < until);
        let granted = match (msg, live) {
            (Msg::KeyAcquire, None) => {
                self.epoch += 1;
                Some(self.epoch)
            }
            (Msg::KeyAcquire, Some((holder, epoch, _))) if holder == from => Some(epoch),
            (Msg::KeyRenew { epoch }, Some((holder, held, _))) if holder == from && held == epoch => Some(epoch),
            (Msg::KeyAcquire | Msg::KeyRenew { .. }, _) => None,
            _ => return,
        };
        match granted {
            Some(epoch) => {
                self.holder = Some((from, epoch, now + self.ttl_ns));
                ctx.send(from, Msg::KeyGranted { epoch });
            }
            None => ctx.send(from, Msg::KeyRefused),
        }
    }
}
