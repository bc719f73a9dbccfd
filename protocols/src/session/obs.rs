//! The session world's vocabulary: the messages between app servers and the store, and what
//! each records. The checkers (`check.rs`) read only these facts.

use std::fmt;

use locksim_sim::time::fmt_signed_secs;
use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

use super::store::{Invalid, Prior, ReadAnswer, Record, Refusal};

/// A request carries its sender's request id; the reply echoes it.
#[derive(Clone, Debug)]
pub enum SessionMsg {
    Login {
        req: u64,
    },
    Logout {
        req: u64,
    },
    Read {
        req: u64,
    },
    /// The whole object as the request read it (a CAS save uses only its version).
    Save {
        req: u64,
        observed: Record,
    },
    LoginReply {
        req: u64,
        record: Record,
    },
    LogoutReply {
        req: u64,
        revoked: Option<Record>,
    },
    ReadReply {
        req: u64,
        answer: ReadAnswer,
    },
    SaveReply {
        req: u64,
        saved: Result<Record, Vec<Refusal>>,
    },
}

impl fmt::Display for SessionMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionMsg::Login { .. } => f.write_str("LOGIN"),
            SessionMsg::Logout { .. } => f.write_str("LOGOUT (revoke, version + 1)"),
            SessionMsg::Read { req } => write!(f, "READ session (request #{req})"),
            SessionMsg::Save { req, observed } => {
                write!(f, "SAVE session read at version {} (request #{req})", observed.version)
            }
            SessionMsg::LoginReply { record, .. } => write!(f, "logged in, version {}", record.version),
            SessionMsg::LogoutReply { revoked: Some(r), .. } => write!(f, "revoked, version {}", r.version),
            SessionMsg::LogoutReply { revoked: None, .. } => f.write_str("no session to revoke"),
            SessionMsg::ReadReply { answer, .. } => f.write_str(&answer_text(answer)),
            SessionMsg::SaveReply { saved: Ok(r), .. } => write!(f, "saved, version {}", r.version),
            SessionMsg::SaveReply {
                saved: Err(refusals), ..
            } => {
                write!(f, "0 rows updated: {}", refusals_text(refusals))
            }
        }
    }
}

fn answer_text(a: &ReadAnswer) -> String {
    match a {
        ReadAnswer::Valid { record } => format!(
            "valid, version {}, expiry {}",
            record.version,
            fmt_signed_secs(record.idle_until_ns)
        ),
        ReadAnswer::Invalid { why } => invalid_text(*why).to_string(),
    }
}

/// A save's line, `head`, and what the save overwrote when that is worth a look.
fn saved_over(head: String, prior: &Prior) -> String {
    match prior {
        Prior::Current => head,
        Prior::Newer { version } => format!("{head} — over newer version {version}"),
        Prior::Revoked { version } => {
            format!("{head} — RESURRECTED: overwrote the logged-out version {version}")
        }
        Prior::Missing => format!("{head} — RE-CREATED a deleted session"),
        Prior::Expired { version } => format!("{head} — revived expired version {version}"),
    }
}

fn invalid_text(why: Invalid) -> &'static str {
    match why {
        Invalid::Missing => "no such session",
        Invalid::Revoked => "session revoked (logged out)",
        Invalid::Expired => "session expired",
    }
}

/// `version 3 != 5, revoked`.
pub fn refusals_text(refusals: &[Refusal]) -> String {
    let parts: Vec<String> = refusals
        .iter()
        .map(|r| match r {
            Refusal::Missing => "no row".to_string(),
            Refusal::VersionMoved { observed, current } => format!("version {observed} != {current}"),
            Refusal::Revoked => "revoked".to_string(),
            Refusal::IdleExpired => "idle_until passed".to_string(),
            Refusal::AbsoluteExpired => "absolute_until passed".to_string(),
        })
        .collect();
    parts.join(", ")
}

/// One fact of the session world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionObs {
    // ---- an app server ----
    /// A request for the session arrived; the app server reads the session.
    RequestStarted {
        req: u64,
    },
    /// A request arrived while the previous one was still in progress and was turned away
    /// without touching the session.
    RequestSkipped {
        req: u64,
        busy_with: u64,
    },
    /// The store answered the read with a valid session: the request is served as that
    /// session (this is what the checkers call "served").
    RequestServed {
        req: u64,
        record: Record,
    },
    RequestRefused {
        req: u64,
        why: Invalid,
    },
    SaveSent {
        req: u64,
        version: u64,
    },
    Saved {
        req: u64,
        version: u64,
    },
    SaveRejected {
        req: u64,
        refusals: Vec<Refusal>,
    },
    /// No answer within the request timeout; the request is given up.
    RequestTimedOut {
        req: u64,
    },
    LoginDone {
        version: u64,
    },
    LogoutDone {
        revoked: bool,
    },

    // ---- the store (deadlines are its wall-clock readings) ----
    /// The session exists from now; `idle_ns` and `absolute_ns` are the policy the checkers
    /// judge deadlines by, independently of what the store writes into the record.
    SessionCreated {
        record: Record,
        idle_ns: u64,
        absolute_ns: u64,
    },
    /// A read and the store's answer: the validity decision, at the store's clock.
    SessionRead {
        client: NodeId,
        req: u64,
        answer: ReadAnswer,
    },
    /// A save committed; `prior` is what it overwrote.
    SessionSaved {
        client: NodeId,
        req: u64,
        record: Record,
        prior: Prior,
    },
    /// A CAS save updated no row.
    SaveRefused {
        client: NodeId,
        req: u64,
        refusals: Vec<Refusal>,
    },
    /// The logout committed (`record` is `None` when there was no row to revoke).
    SessionRevoked {
        record: Option<Record>,
    },
    /// The lazy cleanup deleted the expired record.
    SessionCleaned {
        record: Record,
    },
}

/// Event names a fault can be triggered `after`, by role.
pub const APP_EVENTS: &[&str] = &[
    "request_started",
    "request_skipped",
    "request_served",
    "request_refused",
    "save_sent",
    "saved",
    "save_rejected",
    "request_timed_out",
    "login_done",
    "logout_done",
];
pub const STORE_EVENTS: &[&str] = &[
    "session_created",
    "session_read",
    "session_saved",
    "save_refused",
    "session_revoked",
    "session_cleaned",
];

impl Observation for SessionObs {
    fn kind(&self) -> &'static str {
        match self {
            SessionObs::RequestStarted { .. } => "request_started",
            SessionObs::RequestSkipped { .. } => "request_skipped",
            SessionObs::RequestServed { .. } => "request_served",
            SessionObs::RequestRefused { .. } => "request_refused",
            SessionObs::SaveSent { .. } => "save_sent",
            SessionObs::Saved { .. } => "saved",
            SessionObs::SaveRejected { .. } => "save_rejected",
            SessionObs::RequestTimedOut { .. } => "request_timed_out",
            SessionObs::LoginDone { .. } => "login_done",
            SessionObs::LogoutDone { .. } => "logout_done",
            SessionObs::SessionCreated { .. } => "session_created",
            SessionObs::SessionRead { .. } => "session_read",
            SessionObs::SessionSaved { .. } => "session_saved",
            SessionObs::SaveRefused { .. } => "save_refused",
            SessionObs::SessionRevoked { .. } => "session_revoked",
            SessionObs::SessionCleaned { .. } => "session_cleaned",
        }
    }

    /// The story is the store's: logouts, refused saves, saves over a logged-out or deleted
    /// record, cleanups. An app server's own lines are context (its rejected save says no
    /// more than the store's refusal beside it).
    fn salience(&self) -> Salience {
        match self {
            SessionObs::RequestStarted { .. }
            | SessionObs::RequestSkipped { .. }
            | SessionObs::SaveSent { .. }
            | SessionObs::SessionRead { .. } => Salience::Chatter,
            SessionObs::RequestTimedOut { .. }
            | SessionObs::SaveRefused { .. }
            | SessionObs::SessionRevoked { .. }
            | SessionObs::SessionCleaned { .. } => Salience::Salient,
            // A session ending at its deadline is the story; refusals of a revoked or missing
            // session repeat what the logout or the cleanup already said.
            SessionObs::RequestRefused {
                why: Invalid::Expired, ..
            } => Salience::Salient,
            SessionObs::SessionSaved { prior, .. } if !matches!(prior, Prior::Current | Prior::Newer { .. }) => {
                Salience::Salient
            }
            _ => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        let t = |ns: &i64| fmt_signed_secs(*ns);
        match self {
            SessionObs::RequestStarted { req } => format!("request #{req} arrives: reads the session"),
            SessionObs::RequestSkipped { req, busy_with } => {
                format!("request #{req} turned away: still busy with #{busy_with}")
            }
            SessionObs::RequestServed { req, record } => format!(
                "SERVES request #{req} as the session (read version {}, expiry {})",
                record.version,
                t(&record.idle_until_ns)
            ),
            SessionObs::RequestRefused { req, why } => {
                format!("refuses request #{req}: {}", invalid_text(*why))
            }
            SessionObs::SaveSent { req, version } => {
                format!("request #{req} done: saves the session it read at version {version}")
            }
            SessionObs::Saved { req, version } => format!("request #{req}: session saved, now version {version}"),
            SessionObs::SaveRejected { req, refusals } => {
                format!("request #{req}: save rejected ({})", refusals_text(refusals))
            }
            SessionObs::RequestTimedOut { req } => format!("request #{req} unanswered: timed out"),
            SessionObs::LoginDone { version } => format!("user logged in (session version {version})"),
            SessionObs::LogoutDone { revoked } => {
                if *revoked {
                    "user logged out".to_string()
                } else {
                    "user logged out (there was no session left)".to_string()
                }
            }
            SessionObs::SessionCreated { record, .. } => format!(
                "session CREATED, version {}: idle expiry {}, absolute deadline {}",
                record.version,
                t(&record.idle_until_ns),
                t(&record.absolute_until_ns)
            ),
            SessionObs::SessionRead { client, req, answer } => {
                format!(
                    "read by {} (request #{req}): {}",
                    names.of(*client),
                    answer_text(answer)
                )
            }
            SessionObs::SessionSaved {
                client,
                req,
                record,
                prior,
            } => {
                let head = format!(
                    "saved by {} (request #{req}): version {}, expiry {}",
                    names.of(*client),
                    record.version,
                    t(&record.idle_until_ns)
                );
                saved_over(head, prior)
            }
            SessionObs::SaveRefused { client, req, refusals } => format!(
                "REFUSED save by {} (request #{req}): 0 rows ({})",
                names.of(*client),
                refusals_text(refusals)
            ),
            SessionObs::SessionRevoked { record: Some(r) } => {
                format!("LOGOUT committed: session revoked, version {}", r.version)
            }
            SessionObs::SessionRevoked { record: None } => "LOGOUT committed: there was no session row".to_string(),
            SessionObs::SessionCleaned { record } => {
                format!("cleanup DELETED the session (expired at {})", t(&record.idle_until_ns))
            }
        }
    }
}
