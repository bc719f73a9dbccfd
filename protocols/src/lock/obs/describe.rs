//! A lock fact as one line of the timeline: the words a reader of the Kleppmann/antirez
//! stories sees, kept apart from the facts' definitions.

use std::fmt::{self, Write};

use locksim_sim::time::SignedSecs;
use locksim_sim::{Names, NodeId};

use super::{ClockKind, Deadline, DeleteCause, Expiry, LockObs, ShortLease};

/// Appends what the timeline prints for `obs` to `out`: in place, so a trace line takes it
/// without a `String` per fact.
pub(super) fn write_line(obs: &LockObs, names: &Names, out: &mut String) {
    let written = match obs {
        LockObs::AcquireStarted { lease: l, attempt } => {
            write!(out, "tries to acquire (lease {}, attempt {attempt})", ShortLease(*l))
        }
        LockObs::AcquireReplies { granted, answered } => write!(
            out,
            "answers in: granted by {}, answered by {}",
            ServerSet(*granted),
            ServerSet(*answered)
        ),
        LockObs::AcquireFailed {
            lease: l,
            why,
            validity_ns,
        } => write!(
            out,
            "did not acquire (lease {}): {why} (validity {})",
            ShortLease(*l),
            SignedSecs(*validity_ns)
        ),
        LockObs::Acquired {
            lease: l,
            token: t,
            validity_ns,
            deadline_mono_ns,
            servers,
        } => acquired(out, *l, *t, *validity_ns, deadline_mono_ns, *servers),
        LockObs::ReadDone { value } => write!(out, "read counter = {value}"),
        LockObs::DeadlineChecked { remaining_ns, ok: true } => {
            write!(out, "checks its deadline: {} left, goes on", SignedSecs(*remaining_ns))
        }
        LockObs::DeadlineChecked {
            remaining_ns,
            ok: false,
        } => {
            write!(
                out,
                "checks its deadline: passed {} ago, stops",
                SignedSecs(-*remaining_ns)
            )
        }
        LockObs::WriteSent { token: t, value } => write!(out, "sends write counter := {value} ({})", Token(*t)),
        LockObs::WriteAccepted { value } => write!(out, "write of {value} acknowledged"),
        LockObs::WriteRejected { token: t, max } => write!(out, "write rejected ({} < max {max})", Token(*t)),
        LockObs::WriteTimedOut => out.write_str("write unanswered: timed out (it may still land)"),
        LockObs::Released { lease: l } => write!(out, "releases lease {}", ShortLease(*l)),
        LockObs::LockLost { why } => write!(out, "LOCK LOST: {why}"),
        LockObs::Renewed { deadline_mono_ns } => {
            write!(
                out,
                "renewed: deadline now mono {}",
                SignedSecs(*deadline_mono_ns as i64)
            )
        }
        LockObs::KeySet { lease: l, expiry: e } => {
            write!(out, "lock key := lease {} ({})", ShortLease(*l), ExpiryAt(e))
        }
        LockObs::KeyExtended { lease: l, expiry: e } => {
            write!(out, "lock key (lease {}) extended: {}", ShortLease(*l), ExpiryAt(e))
        }
        LockObs::KeyDeleted { lease: l, cause } => {
            let how = match cause {
                DeleteCause::Release => "released by its owner",
                DeleteCause::PlainDel => "deleted by a plain DEL",
                DeleteCause::Crash => "lost in the crash",
            };
            write!(out, "lock key (lease {}) {how}", ShortLease(*l))
        }
        LockObs::KeyExpired { lease: l } => write!(out, "lock key (lease {}) EXPIRED", ShortLease(*l)),
        LockObs::TokenIssued { token: t, .. } => write!(out, "issued fencing token {t}"),
        LockObs::RoleChanged { authoritative, role } => {
            let serves = if *authoritative {
                "serves the lock"
            } else {
                "does not serve the lock"
            };
            write!(out, "{} — {serves}", role.to_uppercase())
        }
        LockObs::WriteApplied {
            client,
            token: t,
            value,
            based_on,
            prev_value,
            ..
        } => write_applied(out, names, *client, *t, *value, *based_on, *prev_value),
        LockObs::WriteRefused { client, token: t, max } => {
            write!(
                out,
                "REJECTED write from {} ({} < max {max})",
                names.of(*client),
                Token(*t)
            )
        }
        LockObs::FenceForgotten { was } => write!(out, "forgot its max fencing token {was} in the crash"),
    };
    written.expect("a String takes any text");
}

/// An acquisition: its lease, on which servers when more than one granted it, its token, and
/// the deadline the client keeps (if it keeps one).
fn acquired(
    out: &mut String,
    lease: u64,
    t: Option<u64>,
    validity_ns: i64,
    deadline: &Deadline,
    servers: u32,
) -> fmt::Result {
    let on = if servers.count_ones() > 1 {
        format!(" on servers {}", ServerSet(servers))
    } else {
        String::new()
    };
    let Deadline::Mono(deadline_mono_ns) = deadline else {
        return write!(
            out,
            "ACQUIRED lease {}{on}, {}, no deadline tracked",
            ShortLease(lease),
            Token(t)
        );
    };
    write!(
        out,
        "ACQUIRED lease {}{on}, {}, validity {} (deadline mono {})",
        ShortLease(lease),
        Token(t),
        SignedSecs(validity_ns),
        SignedSecs(*deadline_mono_ns as i64)
    )
}

/// A write the resource applied; one computed from a value the counter no longer had is a
/// lost update, and says so.
fn write_applied(
    out: &mut String,
    names: &Names,
    client: NodeId,
    t: Option<u64>,
    value: u64,
    based_on: u64,
    prev_value: u64,
) -> fmt::Result {
    let stale = if based_on != prev_value {
        format!(" — computed from {based_on}, but the counter was {prev_value}")
    } else {
        String::new()
    };
    write!(
        out,
        "ACCEPTED write {prev_value} -> {value} from {} ({}){stale}",
        names.of(client),
        Token(t)
    )
}

/// A lock key's expiry, on the clock that runs it.
struct ExpiryAt<'a>(&'a Option<Expiry>);

impl fmt::Display for ExpiryAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("NO expiry"),
            Some(Expiry {
                clock: ClockKind::Wall,
                at_ns,
            }) => write!(f, "expires at wall {}", SignedSecs(*at_ns)),
            Some(Expiry {
                clock: ClockKind::Mono,
                at_ns,
            }) => write!(f, "expires at mono {}", SignedSecs(*at_ns)),
        }
    }
}

/// A server bit set as `{0,1,2}`.
struct ServerSet(u32);

/// The set bits only, each index (below 32) written as its one or two digits: an acquisition's
/// fact has two sets, and a loop over all 32 bits formatting each index cost more than the
/// rest of its trace line.
impl fmt::Display for ServerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('{')?;
        let mut rest = self.0;
        while rest != 0 {
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            if i >= 10 {
                f.write_char(char::from(b'0' + i / 10))?;
            }
            f.write_char(char::from(b'0' + i % 10))?;
            if rest != 0 {
                f.write_char(',')?;
            }
        }
        f.write_char('}')
    }
}

/// A write's fencing token, or that it carries none.
struct Token(Option<u64>);

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(t) => write!(f, "token {t}"),
            None => f.write_str("no token"),
        }
    }
}
