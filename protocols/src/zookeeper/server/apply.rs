//! What a committed transaction or a read in its turn does at the leader: the tree changes,
//! the client gets its answer, the watches that fired are sent to their sessions'
//! connections, and the lock checkers are told who owns the lock now — the owner of the lowest
//! sequence number under the lock path (seed 004, 9.4.1 step 2) — and, with czxid tokens, the
//! token each lock node's creation issued.

use locksim_sim::NodeId;

use super::{Txn, ZkCtx, ZkServer};
use crate::lock::LockObs;
use crate::lock::obs::DeleteCause;
use crate::zookeeper::msg::{Answer, LOCK_PATH, Msg, Op, node_prefix, parse_child};
use crate::zookeeper::obs::ZkEvent;
use crate::zookeeper::tree::{CreateMode, Fired, SessionId};

impl ZkServer {
    pub(super) fn apply(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, session: SessionId, req: u64, txn: Txn) {
        let mut expired = false;
        let fired = match txn {
            Txn::CreateSession { timeout_ns } => {
                self.tree.create_session(session);
                self.timeouts.insert(session, timeout_ns);
                self.touch(ctx, from, session);
                let timeout_ms = timeout_ns / 1_000_000;
                let epoch = self.epoch;
                ctx.send(
                    from,
                    Msg::Connected {
                        session,
                        timeout_ms,
                        epoch,
                    },
                );
                Vec::new()
            }
            Txn::Expire => {
                let (_, deleted, fired) = self.tree.close_session(session);
                self.timeouts.remove(&session);
                self.closing.remove(&session);
                self.conns.remove(&session);
                let nodes = deleted.len() as u32;
                self.record(ctx, ZkEvent::SessionExpired { session, nodes });
                expired = true;
                fired
            }
            Txn::Create { lease } => {
                let made = self.tree.create(
                    &node_prefix(lease),
                    &lease.to_be_bytes(),
                    CreateMode::EphemeralSequential,
                    session,
                );
                match made {
                    Ok((path, stat, fired)) => {
                        if self.cfg.czxid_tokens {
                            let grant = LockObs::TokenIssued {
                                token: stat.czxid,
                                lease: Some(lease),
                            };
                            self.record(ctx, grant);
                        }
                        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
                        let answer = Answer::Created {
                            name,
                            czxid: stat.czxid,
                        };
                        ctx.send(from, Msg::Answer { req, answer });
                        fired
                    }
                    Err(_) => {
                        ctx.send(from, Msg::Expired { session });
                        Vec::new()
                    }
                }
            }
            Txn::Delete { name } => {
                let fired = self.tree.delete(&format!("{LOCK_PATH}/{name}")).unwrap_or_default();
                ctx.send(
                    from,
                    Msg::Answer {
                        req,
                        answer: Answer::Deleted,
                    },
                );
                fired
            }
        };
        self.notify(ctx, fired);
        self.record_owner(ctx, expired);
    }

    pub(super) fn read(&mut self, ctx: &mut ZkCtx<'_>, from: NodeId, session: SessionId, req: u64, op: Op) {
        if !self.tree.is_live(session) {
            ctx.send(from, Msg::Expired { session });
            return;
        }
        let answer = match op {
            Op::Children { watch } => {
                let names = self.tree.children(LOCK_PATH, watch.then_some(session));
                Answer::Children {
                    names: names.unwrap_or_default(),
                }
            }
            Op::Exists { name, watch } => {
                let path = format!("{LOCK_PATH}/{name}");
                let stat = self.tree.exists(&path, watch.then_some(session));
                Answer::Exists {
                    czxid: stat.map(|s| s.czxid),
                }
            }
            Op::Create { .. } | Op::Delete { .. } => return,
        };
        ctx.send(from, Msg::Answer { req, answer });
    }

    /// Sends each fired watch to its session's connection, if it has one here.
    fn notify(&mut self, ctx: &mut ZkCtx<'_>, fired: Vec<Fired>) {
        for f in fired {
            if let Some(&conn) = self.conns.get(&f.watcher) {
                *self.notified.entry(f.watcher).or_default() += 1;
                ctx.send(
                    conn,
                    Msg::Watch {
                        kind: f.kind,
                        path: f.path,
                    },
                );
            }
        }
    }

    /// Records a change of lock owner: the old owner's node went (deleted, or with its
    /// session's expiry), and the lowest node now names the new one.
    fn record_owner(&mut self, ctx: &mut ZkCtx<'_>, expired: bool) {
        let children = self.tree.children(LOCK_PATH, None).unwrap_or_default();
        let owner = children
            .iter()
            .filter_map(|n| parse_child(n))
            .min()
            .map(|(_, lease)| lease);
        if owner == self.owner {
            return;
        }
        if let Some(old) = self.owner {
            let fact = if expired {
                LockObs::KeyExpired { lease: old }
            } else {
                LockObs::KeyDeleted {
                    lease: old,
                    cause: DeleteCause::Release,
                }
            };
            self.record(ctx, fact);
        }
        if let Some(lease) = owner {
            self.record(ctx, LockObs::KeySet { lease, expiry: None });
        }
        self.owner = owner;
    }
}
