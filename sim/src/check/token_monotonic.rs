//! `token_monotonic`: fencing tokens are granted in strictly increasing order. A failover to a
//! replica that missed the last `INCR`, or a restore from an old snapshot, breaks it.

use crate::history::History;
use crate::lock_obs::LockObs;
use crate::time::fmt_secs;

use super::{LockFacts, Status, Violation};

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
        last = Some(last.map_or(*token, |p| p.max(*token)));
    }
    if issued == 0 {
        Status::NotApplicable("no fencing token was issued".into())
    } else {
        Status::Held(format!("{issued} tokens issued in increasing order"))
    }
}
