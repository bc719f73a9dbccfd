//! What an applied entry does: a client's request served against the key-value store (lease
//! grants and revocations, the lock recipe's transactions, the counter), a lease expiry, or
//! the leader's empty first entry; and the watches any member answers from its applied state.

use locksim_sim::NodeId;

use super::{EtcdCtx, EtcdServer, Role};
use crate::etcd::kv::{CmpOp, Compare, Op, Order, Range, Target};
use crate::etcd::msg::{Answer, COUNTER_KEY, Command, Msg, Request, lock_key};
use crate::etcd::obs::EtcdEvent;
use crate::lock::LockObs;

/// A client's watch on a key: answered once, when the key is gone.
pub(super) struct Watch {
    key: String,
    from_revision: i64,
    client: NodeId,
    watch: u64,
}

impl EtcdServer {
    /// Registers a watch on `key` from `from_revision`, answered as soon as the key is gone.
    pub(super) fn add_watch(
        &mut self,
        ctx: &mut EtcdCtx<'_>,
        client: NodeId,
        key: String,
        from_revision: i64,
        watch: u64,
    ) {
        self.watches.push(Watch {
            key,
            from_revision,
            client,
            watch,
        });
        self.fire_watches(ctx);
    }

    pub(super) fn execute(&mut self, ctx: &mut EtcdCtx<'_>, index: usize, command: Command) {
        let first_of_term = self.role == Role::Leader && !self.promoted && self.log[index - 1].term == self.term;
        let leader = self.promoted;
        match command {
            Command::NoOp if first_of_term => self.promote(ctx),
            Command::NoOp => {}
            Command::Expire { lease } => {
                self.lessor.expiring.remove(&lease);
                self.lessor.deadlines.remove(&lease);
                if let Ok((keys, revision)) = self.kv.lease_revoke(lease) {
                    self.facts.just_expired = Some(lease);
                    if leader {
                        self.record(
                            ctx,
                            EtcdEvent::LeaseExpired {
                                lease: lease as u64,
                                keys: keys.len() as u32,
                                revision,
                            },
                        );
                    }
                }
            }
            Command::Client { client, req, request } => {
                let answer = self.serve(ctx, client, request, leader);
                if self.role == Role::Leader && self.pending.remove(&index) == Some((client, req)) {
                    ctx.send(client, Msg::Answer { req, answer });
                }
            }
        }
        if self.promoted {
            self.record_owner(ctx);
        }
    }

    fn counter(&self) -> u64 {
        self.kv
            .get(COUNTER_KEY)
            .and_then(|kv| kv.value.parse().ok())
            .unwrap_or(0)
    }

    /// Serves one client request against the store; only the leader records what it did.
    fn serve(&mut self, ctx: &mut EtcdCtx<'_>, client: NodeId, request: Request, leader: bool) -> Answer {
        match request {
            Request::LeaseGrant { lease, ttl_ms } => self.grant_lease(ctx, lease, ttl_ms, leader),
            Request::LeaseRevoke { lease } => {
                let _ = self.kv.lease_revoke(lease);
                self.lessor.deadlines.remove(&lease);
                Answer::Revoked
            }
            Request::Acquire { lease } => self.acquire(ctx, lease),
            Request::Predecessor { lease, my_rev } => self.predecessor(lease, my_rev),
            Request::ReadCounter => Answer::Counter { value: self.counter() },
            Request::WriteCounter {
                lease,
                my_rev,
                value,
                based_on,
            } => {
                let prev_value = self.counter();
                let ok = self.put_counter_if_still_owner(lease, my_rev, value);
                if leader && ok {
                    self.record(
                        ctx,
                        LockObs::WriteApplied {
                            client,
                            lease: lease as u64,
                            token: Some(my_rev as u64),
                            value,
                            based_on,
                            prev_value,
                        },
                    );
                } else if leader {
                    self.record(
                        ctx,
                        EtcdEvent::CompareFailed {
                            client,
                            lock_rev: my_rev,
                        },
                    );
                }
                Answer::Written { ok }
            }
        }
    }

    /// Grants a lease of at least the minimum TTL; the leader's lessor starts its countdown.
    fn grant_lease(&mut self, ctx: &mut EtcdCtx<'_>, lease: i64, ttl_ms: i64, leader: bool) -> Answer {
        let ttl_ms = ttl_ms.max(self.min_ttl_ms());
        // A retried grant finds its lease already there: that is success too.
        if self.kv.lease_grant(lease, ttl_ms).is_ok() && leader {
            self.lessor
                .deadlines
                .insert(lease, ctx.mono_ns() + ttl_ms as u64 * 1_000_000);
            self.arm_lessor(ctx);
        }
        Answer::Granted {
            ttl_ms: self.kv.lease_ttl_ms(lease).unwrap_or(ttl_ms),
        }
    }

    /// The lock recipe's first step: put the client's own key if absent, and answer with its
    /// create revision and the current owner's (the oldest key under the lock prefix).
    fn acquire(&mut self, ctx: &mut EtcdCtx<'_>, lease: i64) -> Answer {
        let key = lock_key(lease);
        let absent = Compare {
            key: key.clone(),
            op: CmpOp::Equal,
            target: Target::CreateRevision(0),
        };
        let put = Op::Put {
            key: key.clone(),
            value: String::new(),
            lease,
        };
        match self.kv.txn(&[absent], &[put], &[]) {
            // One put on its own key: a missing lease is the only refusal it can meet.
            Err(_) => Answer::LeaseNotFound,
            Ok(r) => {
                let my_rev = self.kv.get(&key).map_or(0, |kv| kv.create_revision);
                if r.succeeded {
                    self.record_token(ctx, lease, my_rev);
                }
                let owner = self.kv.range(&Range::prefix("/lock/l/", Order::FirstCreate, 0, 1));
                Answer::Acquired {
                    my_rev,
                    owner_rev: owner.first().map_or(0, |kv| kv.create_revision),
                    revision: self.kv.revision(),
                }
            }
        }
    }

    /// The key created just before the client's own: the one its waiter watches.
    fn predecessor(&self, lease: i64, my_rev: i64) -> Answer {
        let before = self
            .kv
            .range(&Range::prefix("/lock/l/", Order::LastCreate, my_rev - 1, 1));
        Answer::Predecessor {
            mine_exists: self.kv.get(&lock_key(lease)).is_some(),
            pred: before.first().map(|kv| (kv.lease, kv.create_revision)),
            revision: self.kv.revision(),
        }
    }

    /// The recipe's guarded write: puts the counter only while the client's lock key is still
    /// the one it created; says whether it did.
    fn put_counter_if_still_owner(&mut self, lease: i64, my_rev: i64, value: u64) -> bool {
        let still_mine = Compare {
            key: lock_key(lease),
            op: CmpOp::Equal,
            target: Target::CreateRevision(my_rev),
        };
        let put = Op::Put {
            key: COUNTER_KEY.into(),
            value: value.to_string(),
            lease: 0,
        };
        self.kv.txn(&[still_mine], &[put], &[]).is_ok_and(|r| r.succeeded)
    }

    /// Answers every watch whose key is gone in a store at least at its start revision.
    pub(super) fn fire_watches(&mut self, ctx: &mut EtcdCtx<'_>) {
        let revision = self.kv.revision();
        let kv = &self.kv;
        self.watches.retain(|w| {
            let gone = revision >= w.from_revision && kv.get(&w.key).is_none();
            if gone {
                ctx.send(w.client, Msg::Deleted { watch: w.watch });
            }
            !gone
        });
    }
}
