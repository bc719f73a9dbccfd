//! The session checkers, judging the run's facts as they are recorded ([`SessionJudge`]).
//!
//! **Served.** A request is served as the session when its app server records
//! `request_served`, which it does exactly when the store answered its read with a valid
//! session. The instant that counts is the store's read — the authorisation decision — so each
//! `request_served` is paired with the store's `session_read` of the same app server and
//! request number, and judged by the store's wall clock and state at that read (a reply in
//! flight while a deadline passes is not a violation; a read after it is).
//!
//! - `session_revocation`: once the store has recorded a logout (`session_revoked`), no request
//!   whose read came after it is served, and no save commits a record that is not revoked.
//! - `session_deadline`: the session's deadline is `min(last refresh + idle, created +
//!   absolute)` by the store's clock, with `idle` and `absolute` from the policy the store
//!   recorded at creation — not from what it wrote into the record, so a wrong refresh cannot
//!   hide itself. A committed save before the deadline refreshes it; once it has passed, the
//!   session is over for good (a later save does not bring it back). No request whose read
//!   came at or after the deadline is served.
//!
//! **The deadline instant.** One rule for reads and saves: the session ends *at* its
//! deadline, as the store's own SQL has it (valid while `idle_until > now`): a read at the
//! deadline reads an ended session, and a save at the deadline refreshes nothing.

use locksim_sim::{ClockTrack, Event, Invariant, Names, NodeId, RunEnd, Verdict, Violation, What};

use super::obs::{SessionMsg, SessionObs};
use crate::judge::Judge;

mod deadline;
mod revocation;

use deadline::Deadline;
use revocation::Revocation;

pub const SESSION_REVOCATION: Invariant = Invariant::new(
    "session_revocation",
    "after a logout commits, no request is served as that session and no save revives it",
);
pub const SESSION_DEADLINE: Invariant = Invariant::new(
    "session_deadline",
    "no request is served after the session's idle or absolute deadline (store clock)",
);

/// What [`SessionJudge`] judges, in its verdicts' order.
pub const SESSION_INVARIANTS: &[Invariant] = &[SESSION_REVOCATION, SESSION_DEADLINE];

/// Both session checkers, fed one event at a time. What each keeps, and why it is bounded,
/// is on [`Revocation`] and [`Deadline`].
#[derive(Default)]
pub struct SessionJudge {
    revocation: Revocation,
    deadline: Deadline,
}

impl Judge<SessionMsg, SessionObs> for SessionJudge {
    fn see(&mut self, index: usize, e: &Event<SessionMsg, SessionObs>, _clocks: &[ClockTrack]) {
        let What::Observe(o) = &e.what else { return };
        self.revocation.see(index, e, o);
        self.deadline.see(index, e, o);
    }

    fn verdicts(self, end: &RunEnd) -> Vec<Verdict> {
        vec![
            Verdict {
                invariant: SESSION_REVOCATION,
                status: self.revocation.status(&end.names),
            },
            Verdict {
                invariant: SESSION_DEADLINE,
                status: self.deadline.status(&end.names),
            },
        ]
    }
}

/// A violation found during the run. Node names are known only once it ends, and every
/// session violation's text starts with one: `why` is the text after it.
struct Found {
    event: usize,
    t_ns: u64,
    who: NodeId,
    why: String,
}

impl Found {
    fn violation(self, names: &Names) -> Violation {
        Violation {
            event: self.event,
            t_ns: self.t_ns,
            why: format!("{}{}", names.of(self.who), self.why),
        }
    }
}

#[cfg(test)]
mod tests;
