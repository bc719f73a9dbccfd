//! The job store process (`resource`): [`JobStore`]'s tables behind the workers' requests, and
//! the facts `exactly_once` reads — one `effect_applied` per committed effect. It is a
//! database: what it committed survives a crash.

use locksim_sim::{Ctx, NodeId};

use super::obs::{JOB, SchedMsg, SchedObs};
use super::store::{Applied, JobStore};

#[derive(Default)]
pub struct Database {
    store: JobStore,
}

type DbCtx<'a> = Ctx<'a, SchedMsg, SchedObs>;

impl Database {
    fn applied(ctx: &mut DbCtx<'_>, worker: NodeId, slot: i64, a: Applied) {
        ctx.record(SchedObs::EffectApplied {
            job: JOB,
            slot,
            worker,
            nth: a.nth,
            counter: a.counter,
        });
    }

    pub fn on_msg(&mut self, ctx: &mut DbCtx<'_>, from: NodeId, msg: SchedMsg) {
        let reply = match msg {
            SchedMsg::Tx { req, slot } => {
                let applied = self.store.effect_in_tx(slot);
                match applied {
                    Some(a) => Self::applied(ctx, from, slot, a),
                    None => ctx.record(SchedObs::DuplicateSuppressed {
                        job: JOB,
                        slot,
                        worker: from,
                    }),
                }
                SchedMsg::TxReply {
                    req,
                    applied: applied.is_some(),
                }
            }
            SchedMsg::CheckMark { req, slot } => SchedMsg::MarkState {
                req,
                done: self.store.is_marked(slot),
            },
            SchedMsg::Effect { req, slot } => {
                let a = self.store.effect(slot);
                Self::applied(ctx, from, slot, a);
                SchedMsg::EffectReply { req }
            }
            SchedMsg::Mark { req, slot } => {
                if self.store.mark(slot) {
                    ctx.record(SchedObs::MarkWritten {
                        job: JOB,
                        slot,
                        worker: from,
                    });
                }
                SchedMsg::MarkReply { req }
            }
            _ => return,
        };
        ctx.send(from, reply);
    }
}
