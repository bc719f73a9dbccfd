//! `token_monotonic`: fencing tokens are granted in strictly increasing order. A failover to a
//! replica that missed the last `INCR`, or a restore from an old snapshot, breaks it.

use crate::history::History;
use crate::lock_obs::LockObs;
use crate::time::fmt_secs;

use super::{LockFacts, Status, Violation, count};

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts) -> Status {
    let mut last: Option<u64> = None;
    let mut issued = 0;
    for f in &facts.all {
        let LockObs::TokenIssued { token } = f.obs else {
            continue;
        };
        issued += 1;
        if let Some(prev) = last
            && *token <= prev
        {
            return Status::Violated(Violation {
                event: f.index,
                t_ns: f.t_ns,
                why: format!(
                    "{} issued token {token} at {} after token {prev} had been issued",
                    h.names.of(f.node),
                    fmt_secs(f.t_ns)
                ),
            });
        }
        // Past the check, the token is above every earlier one.
        last = Some(*token);
    }
    if issued == 0 {
        Status::NotApplicable("no fencing token was issued".into())
    } else {
        Status::Held(format!("{} issued in increasing order", count(issued, "token")))
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use crate::check::Status;
    use crate::check::test_history::*;
    use crate::lock_obs::LockObs;

    fn issued(tokens: &[(crate::ids::NodeId, u64)]) -> Status {
        let h = tokens.iter().enumerate().fold(Hist::new(), |h, (i, &(node, token))| {
            h.obs(i as u64 * S, node, LockObs::TokenIssued { token })
        });
        judge(&h.build(), check)
    }

    #[test]
    fn increasing_tokens_hold_across_servers() {
        assert_eq!(
            held(issued(&[(S0, 1), (S0, 2), (S1, 5)])),
            "3 tokens issued in increasing order"
        );
        assert_eq!(held(issued(&[(S0, 1)])), "1 token issued in increasing order");
    }

    #[test]
    fn a_token_issued_twice_is_not_increasing() {
        // A promoted replica that missed the last INCR hands out the same number again.
        let v = violated(issued(&[(S0, 1), (S0, 2), (S1, 2)]));
        assert_eq!((v.event, v.t_ns), (2, 2 * S));
        assert_eq!(
            v.why,
            "server-1 issued token 2 at 2.000 s after token 2 had been issued"
        );
        let v = violated(issued(&[(S0, 4), (S0, 9), (S1, 7)]));
        assert!(
            v.why
                .ends_with("issued token 7 at 2.000 s after token 9 had been issued"),
            "{}",
            v.why
        );
    }

    #[test]
    fn no_token_issued_is_not_applicable() {
        let h = Hist::new().write(S, C0, Some(3), 0, 0).build();
        assert_eq!(not_applicable(judge(&h, check)), "no fencing token was issued");
    }
}
