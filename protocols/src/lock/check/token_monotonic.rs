//! `token_monotonic`: fencing tokens are granted in strictly increasing order. A failover to a
//! replica that missed the last `INCR`, or a restore from an old snapshot, breaks it.

use std::collections::BTreeSet;

use locksim_sim::History;
use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;

use super::LockFacts;
use crate::lock::obs::LockObs;

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts) -> Status {
    let mut last: Option<u64> = None;
    let mut issued = 0;
    // Grants tied to a lock key: the same token for the same key again is the same grant,
    // announced by a later leader applying the same log entry (a counter's value, with no key,
    // is never announced twice: a repeated one is a second grant).
    let mut keyed: BTreeSet<(u64, u64)> = BTreeSet::new();
    for f in &facts.all {
        let LockObs::TokenIssued { token, lease } = f.obs else {
            continue;
        };
        if let Some(lease) = lease
            && !keyed.insert((*token, *lease))
        {
            continue;
        }
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
    use crate::lock::check::test_history::*;
    use crate::lock::obs::LockObs;
    use locksim_sim::check::Status;

    fn issued(tokens: &[(locksim_sim::NodeId, u64)]) -> Status {
        let keyless: Vec<_> = tokens.iter().map(|&(node, token)| (node, token, None)).collect();
        issued_to(&keyless)
    }

    /// Tokens with the lock key (lease) each was granted to, if any.
    fn issued_to(tokens: &[(locksim_sim::NodeId, u64, Option<u64>)]) -> Status {
        let h = tokens
            .iter()
            .enumerate()
            .fold(Hist::new(), |h, (i, &(node, token, lease))| {
                h.obs(i as u64 * S, node, LockObs::TokenIssued { token, lease })
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
    fn the_same_grant_announced_again_by_a_new_leader_is_no_new_grant() {
        // etcd: server-1, elected, applies the entries server-0 had applied (revisions 2 and 5
        // for the same keys) and then commits revision 7.
        let announced = [
            (S0, 2, Some(10)),
            (S0, 5, Some(11)),
            (S1, 2, Some(10)),
            (S1, 5, Some(11)),
            (S1, 7, Some(12)),
        ];
        assert_eq!(held(issued_to(&announced)), "3 tokens issued in increasing order");
        // The same revision for another key is a second grant (leader-only commit).
        let v = violated(issued_to(&[(S0, 2, Some(10)), (S0, 5, Some(11)), (S1, 5, Some(12))]));
        assert_eq!(
            v.why,
            "server-1 issued token 5 at 2.000 s after token 5 had been issued"
        );
        // A counter's value carries no key: repeated, it is always a second grant.
        violated(issued_to(&[(S0, 2, None), (S1, 2, None)]));
    }

    #[test]
    fn no_token_issued_is_not_applicable() {
        let h = Hist::new().write(S, C0, Some(3), 0, 0).build();
        assert_eq!(not_applicable(judge(&h, check)), "no fencing token was issued");
    }
}
