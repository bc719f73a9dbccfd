//! `token_monotonic`: fencing tokens are granted in strictly increasing order. A failover to a
//! replica that missed the last `INCR`, or a restore from an old snapshot, breaks it.
//!
//! Kept: the last token, how many were issued, the first violation, and every grant tied to a
//! lock key (token and lease, 16 bytes each). The grants grow with the run's grants, not its
//! events, and cannot be forgotten exactly: a newly elected leader announces again every
//! entry it applies, however old, and only a token seen before *for the same key* is the same
//! grant rather than a second one. They arrive in increasing token order (a token not above
//! the last is a violation, and judging stops there), so they are a sorted list searched in
//! O(log n).

use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{Names, NodeId};

use super::At;
use crate::lock::obs::LockObs;

#[derive(Default)]
pub(super) struct TokenMonotonic {
    last: Option<u64>,
    issued: usize,
    /// Grants tied to a lock key, by increasing token: the same token for the same key again is
    /// the same grant, announced by a later leader applying the same log entry (a counter's
    /// value, with no key, is never announced twice: a repeated one is a second grant).
    keyed: Vec<(u64, u64)>,
    /// The first token not above the last: where, by whom, the token and the last.
    repeated: Option<(At, NodeId, u64, u64)>,
}

impl TokenMonotonic {
    pub fn fact(&mut self, at: At, obs: &LockObs) {
        let LockObs::TokenIssued { token, lease } = obs else {
            return;
        };
        if self.repeated.is_some() {
            return;
        }
        let token = *token;
        if let Some(lease) = *lease
            && self.keyed.binary_search(&(token, lease)).is_ok()
        {
            return;
        }
        self.issued += 1;
        if let Some(prev) = self.last
            && token <= prev
        {
            self.repeated = Some((at, at.node, token, prev));
            return;
        }
        // Past the check, the token is above every earlier one, so the list stays sorted.
        self.last = Some(token);
        if let Some(lease) = *lease {
            self.keyed.push((token, lease));
        }
    }

    pub fn status(&self, names: &Names) -> Status {
        if let Some((at, node, token, prev)) = self.repeated {
            return Status::Violated(Violation {
                event: at.index,
                t_ns: at.t_ns,
                why: format!(
                    "{} issued token {token} at {} after token {prev} had been issued",
                    names.of(node),
                    fmt_secs(at.t_ns)
                ),
            });
        }
        if self.issued == 0 {
            Status::NotApplicable("no fencing token was issued".into())
        } else {
            Status::Held(format!("{} issued in increasing order", count(self.issued, "token")))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lock::check::TOKEN_MONOTONIC;
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
        judge(&h.build(), &setup(&[S0], 1), TOKEN_MONOTONIC)
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
        assert_eq!(
            not_applicable(judge(&h, &setup(&[S0], 1), TOKEN_MONOTONIC)),
            "no fencing token was issued"
        );
    }
}
