//! The session store process (`server-0`): [`SessionStore`]'s semantics on the store's own wall
//! clock (`clock_timestamp()` in the seed's SQL), the lazy cleanup job, and the facts the
//! checkers read. It is a database: everything it committed survives a crash.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::obs::{SessionMsg, SessionObs};
use super::store::{SaveOutcome, SessionStore};

const CLEANUP: TimerTag = 0;

pub struct StoreServer {
    store: SessionStore,
    /// 0: no cleanup job.
    cleanup_every_ns: u64,
}

type StoreCtx<'a> = Ctx<'a, SessionMsg, SessionObs>;

impl StoreServer {
    pub fn new(store: SessionStore, cleanup_every_ns: u64) -> Self {
        StoreServer {
            store,
            cleanup_every_ns,
        }
    }

    pub fn on_start(&mut self, ctx: &mut StoreCtx<'_>) {
        if self.cleanup_every_ns > 0 {
            ctx.set_timer(CLEANUP, self.cleanup_every_ns);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut StoreCtx<'_>, tag: TimerTag) {
        if tag != CLEANUP {
            return;
        }
        if let Some(record) = self.store.cleanup(ctx.wall_ns()) {
            ctx.record(SessionObs::SessionCleaned { record });
        }
        ctx.set_timer(CLEANUP, self.cleanup_every_ns);
    }

    pub fn on_msg(&mut self, ctx: &mut StoreCtx<'_>, from: NodeId, msg: SessionMsg) {
        let now = ctx.wall_ns();
        let reply = match msg {
            SessionMsg::Login { req } => {
                let record = self.store.login(now);
                ctx.record(SessionObs::SessionCreated {
                    record,
                    idle_ns: self.store.policy.idle_ns,
                    absolute_ns: self.store.policy.absolute_ns,
                });
                SessionMsg::LoginReply { req, record }
            }
            SessionMsg::Read { req } => {
                let answer = self.store.read(now);
                ctx.record(SessionObs::SessionRead {
                    client: from,
                    req,
                    answer,
                });
                SessionMsg::ReadReply { req, answer }
            }
            SessionMsg::Save { req, observed } => match self.store.save(observed, now) {
                SaveOutcome::Saved { record, prior } => {
                    ctx.record(SessionObs::SessionSaved {
                        client: from,
                        req,
                        record,
                        prior,
                    });
                    SessionMsg::SaveReply { req, saved: Ok(record) }
                }
                SaveOutcome::Refused { refusals } => {
                    ctx.record(SessionObs::SaveRefused {
                        client: from,
                        req,
                        refusals: refusals.clone(),
                    });
                    SessionMsg::SaveReply {
                        req,
                        saved: Err(refusals),
                    }
                }
            },
            SessionMsg::Logout { req } => {
                let revoked = self.store.logout();
                ctx.record(SessionObs::SessionRevoked { record: revoked });
                SessionMsg::LogoutReply { req, revoked }
            }
            _ => return,
        };
        ctx.send(from, reply);
    }
}
