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

use std::collections::BTreeMap;

use locksim_sim::time::{fmt_duration, fmt_secs, fmt_signed_secs};
use locksim_sim::{History, Invariant, NodeId, Status, Verdict, Violation};

use super::obs::{SessionMsg, SessionObs};
use super::store::{Prior, ReadAnswer};

type SessionHistory = History<SessionMsg, SessionObs>;

/// Both session checkers.
pub fn check_sessions(h: &SessionHistory) -> Vec<Verdict> {
    vec![
        Verdict {
            invariant: Invariant::SessionRevocation,
            status: revocation(h),
        },
        Verdict {
            invariant: Invariant::SessionDeadline,
            status: deadline(h),
        },
    ]
}

/// `1 read`, `2 reads`.
fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
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
            } => {
                let absolute_at_ns = wall.saturating_add(*absolute_ns as i64);
                life = Some(Life {
                    idle_ns: *idle_ns,
                    absolute_at_ns,
                    ends_at_ns: wall.saturating_add(*idle_ns as i64).min(absolute_at_ns),
                });
            }
            SessionObs::SessionSaved { .. } => {
                if let Some(l) = life.as_mut().filter(|l| wall < l.ends_at_ns) {
                    l.ends_at_ns = wall.saturating_add(l.idle_ns as i64).min(l.absolute_at_ns);
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
                if let Some((end, which)) = read.ends.filter(|(end, _)| read.wall_ns >= *end) {
                    return Status::Violated(Violation {
                        event: index,
                        t_ns: e.t_ns,
                        why: format!(
                            "{} served request #{req}: the store read the session at {} (its clock {}), {} past the session's {which} deadline {}",
                            h.names.of(e.node),
                            fmt_secs(read.t_ns),
                            fmt_signed_secs(read.wall_ns),
                            fmt_duration((read.wall_ns - end) as u64),
                            fmt_signed_secs(end)
                        ),
                    });
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

#[cfg(test)]
mod tests {
    use locksim_sim::{ClockTrack, Event, Names, Stats, What};

    use super::*;
    use crate::session::store::{Invalid, Record};

    const S: i64 = 1_000_000_000;
    const APP: NodeId = NodeId(0);
    const STORE: NodeId = NodeId(1);

    /// A history of observations `(true seconds x 1000, node, obs)`, every clock exact.
    fn history(obs: Vec<(i64, NodeId, SessionObs)>) -> SessionHistory {
        History {
            names: Names::new(vec!["client-0".into(), "server-0".into()]),
            events: obs
                .into_iter()
                .map(|(ms, node, o)| Event {
                    t_ns: (ms * 1_000_000) as u64,
                    node,
                    wall_ns: ms * 1_000_000,
                    mono_ns: (ms * 1_000_000) as u64,
                    what: What::Observe(o),
                })
                .collect(),
            clocks: vec![ClockTrack::default(), ClockTrack::default()],
            end_ns: 100 * S as u64,
            stats: Stats::default(),
        }
    }

    fn record(version: u64, idle_until_s: i64) -> Record {
        Record {
            version,
            revoked: false,
            idle_until_ns: idle_until_s * S,
            absolute_until_ns: 30 * S,
        }
    }

    fn created() -> (i64, NodeId, SessionObs) {
        let obs = SessionObs::SessionCreated {
            record: record(1, 10),
            idle_ns: 10 * S as u64,
            absolute_ns: 30 * S as u64,
        };
        (0, STORE, obs)
    }

    fn read(ms: i64, req: u64, answer: ReadAnswer) -> (i64, NodeId, SessionObs) {
        let obs = SessionObs::SessionRead {
            client: APP,
            req,
            answer,
        };
        (ms, STORE, obs)
    }

    fn served(ms: i64, req: u64) -> (i64, NodeId, SessionObs) {
        (
            ms,
            APP,
            SessionObs::RequestServed {
                req,
                record: record(1, 10),
            },
        )
    }

    fn status(h: &SessionHistory, i: Invariant) -> Status {
        check_sessions(h).into_iter().find(|v| v.invariant == i).unwrap().status
    }

    #[test]
    fn a_reply_in_flight_across_the_deadline_is_not_a_violation() {
        let valid = ReadAnswer::Valid { record: record(1, 10) };
        let h = history(vec![created(), read(9_999, 1, valid), served(10_003, 1)]);
        assert!(matches!(status(&h, Invariant::SessionDeadline), Status::Held(_)));
        let h = history(vec![created(), read(10_000, 1, valid), served(10_003, 1)]);
        let Status::Violated(v) = status(&h, Invariant::SessionDeadline) else {
            panic!("a read at the deadline serves an ended session")
        };
        assert_eq!(v.event, 2, "reported at the serving");
        assert!(v.why.contains("idle deadline 10.000 s"), "{}", v.why);
    }

    #[test]
    fn a_save_after_the_end_does_not_bring_the_session_back() {
        let valid = ReadAnswer::Valid { record: record(2, 25) };
        let late_save = SessionObs::SessionSaved {
            client: APP,
            req: 1,
            record: record(2, 25),
            prior: Prior::Missing,
        };
        let h = history(vec![
            created(),
            (15_000, STORE, late_save),
            read(16_000, 2, valid),
            served(16_002, 2),
        ]);
        assert!(matches!(status(&h, Invariant::SessionDeadline), Status::Violated(_)));
        // The same save before the end refreshes it: min(9 + 10, 30).
        let on_time = SessionObs::SessionSaved {
            client: APP,
            req: 1,
            record: record(2, 19),
            prior: Prior::Current,
        };
        let h = history(vec![
            created(),
            (9_000, STORE, on_time),
            read(16_000, 2, valid),
            served(16_002, 2),
        ]);
        assert!(matches!(status(&h, Invariant::SessionDeadline), Status::Held(_)));
    }

    #[test]
    fn the_absolute_deadline_bounds_every_refresh() {
        let mut obs = vec![created()];
        for (i, s) in (5..30).step_by(5).enumerate() {
            let save = SessionObs::SessionSaved {
                client: APP,
                req: i as u64,
                record: record(i as u64 + 2, s + 10),
                prior: Prior::Current,
            };
            obs.push((s * 1000, STORE, save));
        }
        obs.push(read(30_500, 99, ReadAnswer::Valid { record: record(7, 35) }));
        obs.push(served(30_502, 99));
        let Status::Violated(v) = status(&history(obs), Invariant::SessionDeadline) else {
            panic!("served after the absolute deadline")
        };
        assert!(v.why.contains("absolute deadline 30.000 s"), "{}", v.why);
    }

    #[test]
    fn revocation_judges_by_the_read_not_by_the_reply() {
        let valid = ReadAnswer::Valid { record: record(1, 10) };
        let logout = SessionObs::SessionRevoked {
            record: Some(Record {
                revoked: true,
                ..record(2, 10)
            }),
        };
        let refused = ReadAnswer::Invalid { why: Invalid::Revoked };
        let h = history(vec![
            created(),
            read(1_000, 1, valid),
            (1_001, STORE, logout.clone()),
            served(1_002, 1),
            read(2_000, 2, refused),
        ]);
        let Status::Held(why) = status(&h, Invariant::SessionRevocation) else {
            panic!("read before the logout")
        };
        assert!(why.contains("1 of 1 read refused"), "{why}");
        let h = history(vec![
            created(),
            (1_001, STORE, logout),
            read(2_000, 2, valid),
            served(2_002, 2),
        ]);
        assert!(matches!(status(&h, Invariant::SessionRevocation), Status::Violated(v) if v.event == 3));
        let h = history(vec![created(), read(1_000, 1, valid), served(1_002, 1)]);
        assert!(matches!(
            status(&h, Invariant::SessionRevocation),
            Status::NotApplicable(_)
        ));
    }
}
