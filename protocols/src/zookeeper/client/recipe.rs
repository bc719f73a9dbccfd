//! Taking the lock, as the Recipes page's lock does (seed 004, 9.4.1): create
//! `_c_<id>-lock-<seq>` (ephemeral, sequential), read the children, hold if mine is the lowest;
//! else watch the node just before mine with `exists` — and if it is already gone, read again —
//! and when the watch fires, read the children again.

use locksim_sim::rng::uniform;

use super::{ClientCtx, Phase, WatchTarget, ZkClient};
use crate::lock::LockObs;
use crate::zookeeper::msg::{Op, parse_child};
use crate::zookeeper::obs::ZkEvent;
use crate::zookeeper::tree::{EventType, Zxid};

impl ZkClient {
    /// A round starts on a live session (or after opening one).
    pub(super) fn next_round(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.session.is_none() {
            return self.connect(ctx);
        }
        self.lease = uniform(ctx.rng(), 1, u64::MAX);
        self.mine = None;
        self.behind = None;
        self.holding = false;
        self.token = None;
        self.record(
            ctx,
            LockObs::AcquireStarted {
                lease: self.lease,
                attempt: 1,
            },
        );
        self.phase = Phase::Creating;
        self.ask(ctx, Op::Create { lease: self.lease });
    }

    /// Reads the children (setting the child watch when the parent is what it watches).
    pub(super) fn find(&mut self, ctx: &mut ClientCtx<'_>) {
        self.phase = Phase::Finding;
        let watch = self.zk.watch == WatchTarget::Parent;
        self.ask(ctx, Op::Children { watch });
    }

    /// The children, as of this read: hold if mine is the lowest, else wait.
    pub(super) fn children_read(&mut self, ctx: &mut ClientCtx<'_>, names: Vec<String>) {
        let mut nodes: Vec<(u32, u64, String)> = names
            .into_iter()
            .filter_map(|n| parse_child(&n).map(|(seq, lease)| (seq, lease, n)))
            .collect();
        nodes.sort();
        let Some(at) = nodes.iter().position(|(_, lease, _)| *lease == self.lease) else {
            if self.mine.is_some() {
                return self.give_up(ctx, "its lock node is gone");
            }
            // The create never happened: make it now.
            self.phase = Phase::Creating;
            return self.ask(ctx, Op::Create { lease: self.lease });
        };
        let name = nodes[at].2.clone();
        match &self.mine {
            Some((_, Some(_))) => {}
            // Found by its name after a lost answer: learn its czxid first.
            _ => {
                self.mine = Some((name.clone(), None));
                self.phase = Phase::Checking;
                return self.ask(ctx, Op::Exists { name, watch: false });
            }
        }
        if at == 0 {
            return self.announce(ctx);
        }
        match self.zk.watch {
            WatchTarget::Predecessor => {
                let pred = nodes[at - 1].2.clone();
                self.behind = Some(pred.clone());
                self.phase = Phase::Checking;
                self.ask(
                    ctx,
                    Op::Exists {
                        name: pred,
                        watch: true,
                    },
                );
            }
            WatchTarget::Parent => {
                let lowest = nodes[0].2.clone();
                self.wait(ctx, name, lowest);
            }
        }
    }

    /// An `exists` answered: my own node's czxid, or whether the predecessor (now watched)
    /// is still there.
    pub(super) fn checked(&mut self, ctx: &mut ClientCtx<'_>, czxid: Option<Zxid>) {
        if let Some((name, None)) = &self.mine {
            let Some(czxid) = czxid else {
                return self.give_up(ctx, "its lock node is gone");
            };
            self.mine = Some((name.clone(), Some(czxid)));
            return self.find(ctx);
        }
        let (Some((mine, _)), Some(pred)) = (self.mine.clone(), self.behind.clone()) else {
            return;
        };
        match czxid {
            Some(_) => self.wait(ctx, mine, pred),
            // Gone before the watch was set: look again (or, not re-reading, take it).
            None if self.zk.reread_children => self.find(ctx),
            None => self.announce(ctx),
        }
    }

    fn wait(&mut self, ctx: &mut ClientCtx<'_>, mine: String, behind: String) {
        self.record(ctx, ZkEvent::Queued { mine, behind });
        self.phase = Phase::Waiting;
    }

    /// A watch notification: a waiter reads the children again (or, not re-reading, holds).
    pub(super) fn watch_fired(&mut self, ctx: &mut ClientCtx<'_>, kind: EventType, path: String) {
        let what = match kind {
            EventType::NodeCreated => "NodeCreated",
            EventType::NodeDeleted => "NodeDeleted",
            EventType::NodeChildrenChanged => "NodeChildrenChanged",
        };
        self.record(
            ctx,
            ZkEvent::WatchFired {
                what: what.into(),
                path,
            },
        );
        if self.phase != Phase::Waiting {
            return;
        }
        if self.zk.reread_children {
            self.find(ctx);
        } else {
            self.announce(ctx);
        }
    }

    /// A waiter's connection is back: its watch may be gone with a restarted server, so it
    /// sets it again, as ZooKeeper's client does with `SetWatches` on reconnecting.
    pub(super) fn rewatch(&mut self, ctx: &mut ClientCtx<'_>) {
        if self.phase == Phase::Waiting {
            match (self.zk.watch, self.behind.clone()) {
                (WatchTarget::Predecessor, Some(pred)) => {
                    self.phase = Phase::Checking;
                    self.ask(
                        ctx,
                        Op::Exists {
                            name: pred,
                            watch: true,
                        },
                    );
                }
                _ => self.find(ctx),
            }
        }
    }

    /// The round ends without the lock: delete my node if there is one, and start over.
    pub(super) fn give_up(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        self.record(
            ctx,
            LockObs::AcquireFailed {
                lease: self.lease,
                why: why.into(),
                validity_ns: 0,
            },
        );
        self.delete_mine(ctx);
    }
}
