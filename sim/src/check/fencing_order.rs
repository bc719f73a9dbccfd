//! `fencing_order`: the resource never accepts a write whose token is below the max token it
//! accepted before. The max is the checker's own, over the whole history: a resource that
//! forgot its max in a crash does not get to forget it here.

use crate::history::History;
use crate::lock_obs::LockObs;
use crate::time::fmt_secs;

use super::{LockFacts, Status, Violation};

pub(super) fn check<M, O>(h: &History<M, O>, facts: &LockFacts) -> Status {
    let mut max: Option<(u64, usize)> = None;
    let (mut writes, mut fenced) = (0, 0);
    for f in &facts.all {
        let LockObs::WriteApplied { client, token, .. } = f.obs else {
            continue;
        };
        writes += 1;
        let Some(token) = *token else { continue };
        fenced += 1;
        if let Some((m, _)) = max
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
        if max.is_none_or(|(m, _)| token > m) {
            max = Some((token, f.index));
        }
    }
    match (writes, fenced) {
        (0, _) => Status::NotApplicable("no write was accepted".into()),
        (_, 0) => Status::NotApplicable("no accepted write carried a fencing token".into()),
        _ => Status::Held(format!("{fenced} fenced writes accepted in token order")),
    }
}
