//! `fencing_order`: the resource never accepts a write whose token is below the max token it
//! accepted before. The max is the checker's own, over the whole history: a resource that
//! forgot its max in a crash does not get to forget it here.

use locksim_sim::History;
use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;

use super::LockFacts;
use crate::lock::obs::LockObs;

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts) -> Status {
    let mut max: Option<u64> = None;
    let (mut any_write, mut fenced) = (false, 0);
    for f in &facts.all {
        let LockObs::WriteApplied { client, token, .. } = f.obs else {
            continue;
        };
        any_write = true;
        let Some(token) = *token else { continue };
        fenced += 1;
        if let Some(m) = max
            && token < m
        {
            return Status::Violated(Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "the resource accepted {}'s write with token {token} at {} after it had accepted token {m}",
                    h.names.of(*client),
                    fmt_secs(f.t_ns)
                ),
            });
        }
        // Past the check, the token is at least every earlier one.
        max = Some(token);
    }
    match (any_write, fenced) {
        (false, _) => Status::NotApplicable("no write was accepted".into()),
        (true, 0) => Status::NotApplicable("no accepted write carried a fencing token".into()),
        _ => Status::Held(format!("{} accepted in token order", count(fenced, "fenced write"))),
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::lock::check::test_history::*;
    use crate::lock::obs::LockObs;
    use locksim_sim::check::Status;

    fn judged(h: Hist) -> Status {
        judge(&h.build(), check)
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
