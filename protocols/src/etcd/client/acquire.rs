//! Taking the lock, as clientv3's `Mutex.Lock` does: grant a lease, put `/lock/l/<lease>`
//! attached to it, and if an older key exists, watch the newest one before mine; hold when
//! none is left (or, with `waiter_recheck`, give up when mine is gone too).

use locksim_sim::rng::uniform;

use super::{ClientCtx, EtcdClient, KEEPALIVE, Phase};
use crate::etcd::msg::{Request, lock_key};
use crate::etcd::obs::EtcdEvent;
use crate::lock::LockObs;

impl EtcdClient {
    /// A round starts: a fresh random lease, granted before anything else.
    pub(super) fn begin_round(&mut self, ctx: &mut ClientCtx<'_>) {
        self.lease = uniform(ctx.rng(), 1, i64::MAX as u64) as i64;
        self.keepalives_sent_ns.clear();
        self.holding = false;
        self.token = None;
        self.record(
            ctx,
            LockObs::AcquireStarted {
                lease: self.lease as u64,
                attempt: 1,
            },
        );
        self.phase = Phase::Granting;
        self.grant_sent_ns = ctx.mono_ns();
        let ttl_ms = (self.cfg.ttl_ns / 1_000_000) as i64;
        self.ask(
            ctx,
            Request::LeaseGrant {
                lease: self.lease,
                ttl_ms,
            },
        );
    }

    /// The round ends without the lock: close the session and start over after thinking.
    pub(super) fn give_up(&mut self, ctx: &mut ClientCtx<'_>, why: &'static str) {
        self.record(
            ctx,
            LockObs::AcquireFailed {
                lease: self.lease as u64,
                why: why.into(),
                validity_ns: self.deadline_mono_ns as i64 - ctx.mono_ns() as i64,
            },
        );
        self.close_session(ctx);
    }

    /// The lease is granted: keep it alive and put the lock key.
    pub(super) fn lease_granted(&mut self, ctx: &mut ClientCtx<'_>, ttl_ms: i64) {
        // clientv3 sends its first keep-alive at once and counts from its answer; the
        // grant's answer stands in for it.
        self.deadline_mono_ns = self.session_deadline(self.grant_sent_ns, ctx.mono_ns(), ttl_ms);
        self.record(
            ctx,
            EtcdEvent::LeaseGranted {
                lease: self.lease as u64,
                ttl_ms,
            },
        );
        ctx.set_timer(KEEPALIVE, self.etcd.keepalive_ns);
        self.phase = Phase::Acquiring;
        self.ask(ctx, Request::Acquire { lease: self.lease });
    }

    /// The lock key is put at `my_rev`; `owner_rev` is the oldest key's: hold if it is mine,
    /// else find the key before mine.
    pub(super) fn key_put(&mut self, ctx: &mut ClientCtx<'_>, my_rev: i64, owner_rev: i64) {
        self.my_rev = my_rev;
        if my_rev == owner_rev {
            return self.announce(ctx);
        }
        self.phase = Phase::Finding;
        self.ask(
            ctx,
            Request::Predecessor {
                lease: self.lease,
                my_rev,
            },
        );
    }

    /// The newest key before mine (`pred`: its lease and create revision), as of `revision`:
    /// watch it, or hold when there is none.
    pub(super) fn predecessor_found(
        &mut self,
        ctx: &mut ClientCtx<'_>,
        mine_exists: bool,
        pred: Option<(i64, i64)>,
        revision: i64,
    ) {
        match pred {
            Some((pred_lease, pred_rev)) => {
                self.record(
                    ctx,
                    EtcdEvent::Queued {
                        my_rev: self.my_rev,
                        behind_rev: pred_rev,
                    },
                );
                self.watch += 1;
                self.phase = Phase::Waiting;
                self.watched = Some((lock_key(pred_lease), revision));
                self.send_watch(ctx);
            }
            None if self.etcd.waiter_recheck && !mine_exists => {
                self.give_up(ctx, "its own key is gone: its session expired while it queued")
            }
            None => self.announce(ctx),
        }
    }
}
