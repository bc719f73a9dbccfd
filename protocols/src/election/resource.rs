//! The external resource the leader acts on (seed 004, 9.5.4: "the external resource only
//! recognises a token/epoch, not 'I am the leader'"). Fenced by term, it refuses a write of a
//! term older than one it already accepted; unfenced, it accepts every write. What it
//! accepted survives a crash (it is a database).

use locksim_sim::{Ctx, NodeId};

use super::msg::Msg;
use super::obs::ElectObs;

pub struct Resource {
    fenced: bool,
    max_term: u64,
}

impl Resource {
    pub fn new(fenced: bool) -> Self {
        Resource { fenced, max_term: 0 }
    }

    pub fn on_msg(&mut self, ctx: &mut Ctx<'_, Msg, ElectObs>, from: NodeId, msg: Msg) {
        let Msg::Act { term, seq } = msg else { return };
        if self.fenced && term < self.max_term {
            return ctx.record(ElectObs::ActRefused {
                leader: from,
                term,
                max: self.max_term,
            });
        }
        self.max_term = self.max_term.max(term);
        ctx.record(ElectObs::ActAccepted {
            leader: from,
            term,
            seq,
        });
    }
}
