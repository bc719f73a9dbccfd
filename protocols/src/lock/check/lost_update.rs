//! `lost_update`: every accepted counter write was computed from the value current at
//! acceptance. A write computed from an older value silently drops whatever was written since.
//!
//! Kept: how many writes were accepted and the first lost update — each write is judged by
//! its own fact alone (the resource records the value it wrote over).

use locksim_sim::check::{Status, Violation, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{Names, NodeId};

use super::At;
use crate::lock::obs::LockObs;

/// A lost update: where, whose, the value written, what it was computed from, and the value
/// it was written over.
type Lost = (At, NodeId, u64, u64, u64);

#[derive(Default)]
pub(super) struct LostUpdate {
    writes: usize,
    lost: Option<Lost>,
}

impl LostUpdate {
    pub fn fact(&mut self, at: At, obs: &LockObs) {
        let LockObs::WriteApplied {
            client,
            value,
            based_on,
            prev_value,
            ..
        } = obs
        else {
            return;
        };
        if self.lost.is_some() {
            return;
        }
        self.writes += 1;
        if based_on != prev_value {
            self.lost = Some((at, *client, *value, *based_on, *prev_value));
        }
    }

    pub fn status(&self, names: &Names) -> Status {
        if let Some((at, client, value, based_on, prev_value)) = self.lost {
            return Status::Violated(Violation {
                event: at.index,
                t_ns: at.t_ns,
                why: format!(
                    "the resource accepted {}'s write of {value} at {}, computed from {based_on}, over the current value {prev_value}: an update was lost",
                    names.of(client),
                    fmt_secs(at.t_ns)
                ),
            });
        }
        if self.writes == 0 {
            Status::NotApplicable("no write was accepted".into())
        } else {
            Status::Held(format!(
                "{}, each from the current value",
                count(self.writes, "accepted write")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lock::check::LOST_UPDATE;
    use crate::lock::check::test_history::*;
    use locksim_sim::check::Status;

    fn judged(h: Hist) -> Status {
        judge(&h.build(), &setup(&[S0], 1), LOST_UPDATE)
    }

    #[test]
    fn writes_from_the_current_value_hold() {
        let h = Hist::new().write(S, C0, None, 0, 0);
        assert_eq!(held(judged(h)), "1 accepted write, each from the current value");
        let h = Hist::new().write(S, C0, None, 0, 0).write(2 * S, C1, Some(2), 1, 1);
        assert_eq!(held(judged(h)), "2 accepted writes, each from the current value");
    }

    #[test]
    fn a_write_from_an_older_value_loses_the_update_in_between() {
        let h = Hist::new()
            .write(S, C0, None, 0, 0)
            .write(2 * S, C1, None, 0, 1)
            .write(3 * S, C0, None, 5, 1);
        let v = violated(judged(h));
        assert_eq!((v.event, v.t_ns), (1, 2 * S));
        assert_eq!(
            v.why,
            "the resource accepted client-1's write of 1 at 2.000 s, computed from 0, over the current value 1: an update was lost"
        );
    }

    #[test]
    fn no_accepted_write_is_not_applicable() {
        let h = Hist::new().acquired(0, C0, 1, 10 * S);
        assert_eq!(not_applicable(judged(h)), "no write was accepted");
    }
}
