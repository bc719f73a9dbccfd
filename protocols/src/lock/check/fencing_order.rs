//! `fencing_order`: the resource never accepts a write whose token is below the max token it
//! accepted before. The max is the checker's own, over the whole run: a resource that forgot
//! its max in a crash does not get to forget it here.
//!
//! Kept: the max token accepted, whether any write was accepted, how many carried a token,
//! and the first violation — a few words, whatever the run's length.

use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{Names, NodeId};

use super::At;
use crate::lock::obs::LockObs;

#[derive(Default)]
pub(super) struct FencingOrder {
    max: Option<u64>,
    any_write: bool,
    fenced: usize,
    /// The first write below the max: where, whose, its token and the max it was below.
    below: Option<(At, NodeId, u64, u64)>,
}

impl FencingOrder {
    pub fn fact(&mut self, at: At, obs: &LockObs) {
        let LockObs::WriteApplied { client, token, .. } = obs else {
            return;
        };
        if self.below.is_some() {
            return;
        }
        self.any_write = true;
        let Some(token) = *token else { return };
        self.fenced += 1;
        if let Some(m) = self.max
            && token < m
        {
            self.below = Some((at, *client, token, m));
            return;
        }
        // Past the check, the token is at least every earlier one.
        self.max = Some(token);
    }

    pub fn status(&self, names: &Names) -> Status {
        if let Some((at, client, token, m)) = self.below {
            return Status::Violated(Violation {
                event: at.index,
                t_ns: at.t_ns,
                why: format!(
                    "the resource accepted {}'s write with token {token} at {} after it had accepted token {m}",
                    names.of(client),
                    fmt_secs(at.t_ns)
                ),
            });
        }
        match (self.any_write, self.fenced) {
            (false, _) => Status::NotApplicable("no write was accepted".into()),
            (true, 0) => Status::NotApplicable("no accepted write carried a fencing token".into()),
            _ => Status::Held(format!(
                "{} accepted in token order",
                count(self.fenced, "fenced write")
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lock::check::FENCING_ORDER;
    use crate::lock::check::test_history::*;
    use crate::lock::obs::LockObs;
    use locksim_sim::check::Status;

    fn judged(h: Hist) -> Status {
        judge(&h.build(), &setup(&[S0], 1), FENCING_ORDER)
    }

    #[test]
    fn an_equal_token_is_not_below_the_max() {
        // A nonstrict resource (token >= max) accepts the same token twice; the order held.
        let h = Hist::new().write(S, C0, Some(5), 0, 0).write(2 * S, C1, Some(5), 1, 1);
        assert_eq!(held(judged(h)), "2 fenced writes accepted in token order");
    }

    #[test]
    fn a_token_below_the_max_is_violated_even_after_the_resource_forgot_its_max() {
        let h = Hist::new()
            .write(S, C0, Some(3), 0, 0)
            .write(2 * S, C1, Some(7), 1, 1)
            .obs(3 * S, RES, LockObs::FenceForgotten { was: 7 })
            .write(4 * S, C0, Some(6), 2, 2);
        let v = violated(judged(h));
        assert_eq!((v.event, v.t_ns), (3, 4 * S));
        assert_eq!(
            v.why,
            "the resource accepted client-0's write with token 6 at 4.000 s after it had accepted token 7"
        );
    }

    #[test]
    fn unfenced_writes_are_not_judged() {
        let h = Hist::new().write(S, C0, Some(4), 0, 0).write(2 * S, C1, None, 1, 1);
        assert_eq!(held(judged(h)), "1 fenced write accepted in token order");
        let h = Hist::new().write(S, C0, None, 0, 0);
        assert_eq!(not_applicable(judged(h)), "no accepted write carried a fencing token");
        // A refused write is not an accepted one.
        let refused = LockObs::WriteRefused {
            client: C0,
            token: Some(1),
            max: 2,
        };
        let h = Hist::new().obs(S, RES, refused);
        assert_eq!(not_applicable(judged(h)), "no write was accepted");
    }
}
