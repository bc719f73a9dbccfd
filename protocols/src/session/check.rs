//! The session checkers, reading only the history.
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

use std::collections::BTreeMap;

use locksim_sim::check::count;
use locksim_sim::time::{fmt_duration, fmt_secs, fmt_signed_secs};
use locksim_sim::{History, Invariant, NodeId, Status, Verdict, Violation};

use super::obs::{SessionMsg, SessionObs};
use super::store::{Prior, ReadAnswer};

type SessionHistory = History<SessionMsg, SessionObs>;

pub const SESSION_REVOCATION: Invariant = Invariant::new(
    "session_revocation",
    "after a logout commits, no request is served as that session and no save revives it",
);
pub const SESSION_DEADLINE: Invariant = Invariant::new(
    "session_deadline",
    "no request is served after the session's idle or absolute deadline (store clock)",
);

/// What [`check_sessions`] judges, in its verdicts' order.
pub const SESSION_INVARIANTS: &[Invariant] = &[SESSION_REVOCATION, SESSION_DEADLINE];

/// Both session checkers.
pub fn check_sessions(h: &SessionHistory) -> Vec<Verdict> {
    vec![
        Verdict {
            invariant: SESSION_REVOCATION,
            status: revocation(h),
        },
        Verdict {
            invariant: SESSION_DEADLINE,
            status: deadline(h),
        },
    ]
}

fn prior_text(prior: &Prior) -> String {
    match prior {
        Prior::Current => "over the version it read".into(),
        Prior::Newer { version } => format!("over version {version}"),
        Prior::Revoked { version } => format!("over the revoked version {version}"),
        Prior::Missing => "re-creating the deleted row".into(),
        Prior::Expired { version } => format!("over the expired version {version}"),
    }
}

fn revocation(h: &SessionHistory) -> Status {
    let mut logout: Option<u64> = None;
    // Reads the store answered after the logout, by (app server, request).
    let mut late_reads: BTreeMap<(NodeId, u64), u64> = BTreeMap::new();
    let (mut reads_refused, mut saves_refused) = (0, 0);
    for (index, e, o) in h.observations() {
        match (o, logout) {
            (SessionObs::SessionRevoked { .. }, None) => logout = Some(e.t_ns),
            (SessionObs::SessionRead { client, req, answer }, Some(_)) => {
                late_reads.insert((*client, *req), e.t_ns);
                if matches!(answer, ReadAnswer::Invalid { .. }) {
                    reads_refused += 1;
                }
            }
            (SessionObs::RequestServed { req, .. }, Some(out_ns)) => {
                if let Some(read_ns) = late_reads.get(&(e.node, *req)) {
                    return Status::Violated(Violation {
                        event: index,
                        t_ns: e.t_ns,
                        why: format!(
                            "{} served request #{req} as the session at {}: the store read it at {}, after the logout committed at {}",
                            h.names.of(e.node),
                            fmt_secs(e.t_ns),
                            fmt_secs(*read_ns),
                            fmt_secs(out_ns)
                        ),
                    });
                }
            }
            (
                SessionObs::SessionSaved {
                    client,
                    req,
                    record,
                    prior,
                },
                Some(out_ns),
            ) if !record.revoked => {
                return Status::Violated(Violation {
                    event: index,
                    t_ns: e.t_ns,
                    why: format!(
                        "{}'s save (request #{req}) at {} made the session valid again ({}) after the logout committed at {}",
                        h.names.of(*client),
                        fmt_secs(e.t_ns),
                        prior_text(prior),
                        fmt_secs(out_ns)
                    ),
                });
            }
            (SessionObs::SaveRefused { .. }, Some(_)) => saves_refused += 1,
            _ => {}
        }
    }
    match logout {
        None => Status::NotApplicable("the session was never logged out".into()),
        Some(out_ns) if late_reads.is_empty() && saves_refused == 0 => Status::NotApplicable(format!(
            "nothing reached the store after the logout at {}",
            fmt_secs(out_ns)
        )),
        Some(out_ns) => Status::Held(format!(
            "logout committed at {}; after it {reads_refused} of {} refused and {} refused; none served or revived",
            fmt_secs(out_ns),
            count(late_reads.len(), "read"),
            count(saves_refused, "late save")
        )),
    }
}

/// The session's life by the store's clock.
struct Life {
    idle_ns: u64,
    absolute_at_ns: i64,
    /// When it ends: `min(last refresh + idle, absolute_at_ns)`.
    ends_at_ns: i64,
}

impl Life {
    /// The life the store set up at creation, at its wall clock `wall_ns`.
    fn created(wall_ns: i64, idle_ns: u64, absolute_ns: u64) -> Self {
        let absolute_at_ns = wall_ns.saturating_add(absolute_ns as i64);
        Life {
            idle_ns,
            absolute_at_ns,
            ends_at_ns: wall_ns.saturating_add(idle_ns as i64).min(absolute_at_ns),
        }
    }

    /// A committed save at `wall_ns`: before the end it pushes the idle deadline on; at or
    /// after it, the session is over for good.
    fn refresh(&mut self, wall_ns: i64) {
        if wall_ns < self.ends_at_ns {
            self.ends_at_ns = wall_ns.saturating_add(self.idle_ns as i64).min(self.absolute_at_ns);
        }
    }

    fn which(&self) -> &'static str {
        if self.ends_at_ns == self.absolute_at_ns {
            "absolute"
        } else {
            "idle"
        }
    }
}

/// What the store's read of a request saw.
struct ReadAt {
    t_ns: u64,
    wall_ns: i64,
    /// The session's end and which deadline it is, at the read.
    ends: Option<(i64, &'static str)>,
}

fn deadline(h: &SessionHistory) -> Status {
    let mut life: Option<Life> = None;
    let mut reads: BTreeMap<(NodeId, u64), ReadAt> = BTreeMap::new();
    let (mut served, mut refused_late) = (0, 0);
    for (index, e, o) in h.observations() {
        let wall = e.wall_ns;
        match o {
            SessionObs::SessionCreated {
                idle_ns, absolute_ns, ..
            } => life = Some(Life::created(wall, *idle_ns, *absolute_ns)),
            SessionObs::SessionSaved { .. } => {
                if let Some(l) = life.as_mut() {
                    l.refresh(wall);
                }
            }
            SessionObs::SessionRead { client, req, answer } => {
                let ends = life.as_ref().map(|l| (l.ends_at_ns, l.which()));
                if matches!(answer, ReadAnswer::Invalid { .. }) && ends.is_some_and(|(end, _)| wall >= end) {
                    refused_late += 1;
                }
                reads.insert(
                    (*client, *req),
                    ReadAt {
                        t_ns: e.t_ns,
                        wall_ns: wall,
                        ends,
                    },
                );
            }
            SessionObs::RequestServed { req, .. } => {
                let Some(read) = reads.get(&(e.node, *req)) else {
                    continue;
                };
                served += 1;
                if let Some(v) = served_after_end(h, index, e.t_ns, e.node, *req, read) {
                    return Status::Violated(v);
                }
            }
            _ => {}
        }
    }
    if life.is_none() {
        return Status::NotApplicable("no session was created".into());
    }
    if reads.is_empty() {
        return Status::NotApplicable("no request read the session".into());
    }
    Status::Held(format!(
        "{} served, each read before the session's deadlines; {} after a deadline refused",
        count(served, "request"),
        count(refused_late, "read")
    ))
}

/// The violation when `node` served request `req` on a read that came at or after the
/// session's end.
fn served_after_end(
    h: &SessionHistory,
    index: usize,
    t_ns: u64,
    node: NodeId,
    req: u64,
    read: &ReadAt,
) -> Option<Violation> {
    let (end, which) = read.ends.filter(|(end, _)| read.wall_ns >= *end)?;
    Some(Violation {
        event: index,
        t_ns,
        why: format!(
            "{} served request #{req}: the store read the session at {} (its clock {}), {} past the session's {which} deadline {}",
            h.names.of(node),
            fmt_secs(read.t_ns),
            fmt_signed_secs(read.wall_ns),
            fmt_duration((read.wall_ns - end) as u64),
            fmt_signed_secs(end)
        ),
    })
}

#[cfg(test)]
mod tests;
