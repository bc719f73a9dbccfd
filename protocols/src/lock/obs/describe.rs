//! A lock fact as one line of the timeline: the words a reader of the Kleppmann/antirez
//! stories sees, kept apart from the facts' definitions.

use locksim_sim::time::fmt_signed_secs;
use locksim_sim::{Names, NodeId};

use super::{ClockKind, Deadline, DeleteCause, Expiry, LockObs, short_lease};

/// What the timeline prints for `obs`.
pub(super) fn line(obs: &LockObs, names: &Names) -> String {
    match obs {
        LockObs::AcquireStarted { lease: l, attempt } => {
            format!("tries to acquire (lease {}, attempt {attempt})", short_lease(*l))
        }
        LockObs::AcquireReplies { granted, answered } => format!(
            "answers in: granted by {}, answered by {}",
            server_set(*granted),
            server_set(*answered)
        ),
        LockObs::AcquireFailed {
            lease: l,
            why,
            validity_ns,
        } => format!(
            "did not acquire (lease {}): {why} (validity {})",
            short_lease(*l),
            fmt_signed_secs(*validity_ns)
        ),
        LockObs::Acquired {
            lease: l,
            token: t,
            validity_ns,
            deadline_mono_ns,
            servers,
        } => acquired(*l, *t, *validity_ns, deadline_mono_ns, *servers),
        LockObs::ReadDone { value } => format!("read counter = {value}"),
        LockObs::DeadlineChecked { remaining_ns, ok: true } => {
            format!("checks its deadline: {} left, goes on", fmt_signed_secs(*remaining_ns))
        }
        LockObs::DeadlineChecked {
            remaining_ns,
            ok: false,
        } => {
            format!(
                "checks its deadline: passed {} ago, stops",
                fmt_signed_secs(-*remaining_ns)
            )
        }
        LockObs::WriteSent { token: t, value } => format!("sends write counter := {value} ({})", token(*t)),
        LockObs::WriteAccepted { value } => format!("write of {value} acknowledged"),
        LockObs::WriteRejected { token: t, max } => format!("write rejected ({} < max {max})", token(*t)),
        LockObs::WriteTimedOut => "write unanswered: timed out (it may still land)".to_string(),
        LockObs::Released { lease: l } => format!("releases lease {}", short_lease(*l)),
        LockObs::LockLost { why } => format!("LOCK LOST: {why}"),
        LockObs::Renewed { deadline_mono_ns } => {
            format!(
                "renewed: deadline now mono {}",
                fmt_signed_secs(*deadline_mono_ns as i64)
            )
        }
        LockObs::KeySet { lease: l, expiry: e } => format!("lock key := lease {} ({})", short_lease(*l), expiry(e)),
        LockObs::KeyExtended { lease: l, expiry: e } => {
            format!("lock key (lease {}) extended: {}", short_lease(*l), expiry(e))
        }
        LockObs::KeyDeleted { lease: l, cause } => {
            let how = match cause {
                DeleteCause::Release => "released by its owner",
                DeleteCause::PlainDel => "deleted by a plain DEL",
                DeleteCause::Crash => "lost in the crash",
            };
            format!("lock key (lease {}) {how}", short_lease(*l))
        }
        LockObs::KeyExpired { lease: l } => format!("lock key (lease {}) EXPIRED", short_lease(*l)),
        LockObs::TokenIssued { token: t, .. } => format!("issued fencing token {t}"),
        LockObs::RoleChanged { authoritative, role } => {
            let serves = if *authoritative {
                "serves the lock"
            } else {
                "does not serve the lock"
            };
            format!("{} — {serves}", role.to_uppercase())
        }
        LockObs::WriteApplied {
            client,
            token: t,
            value,
            based_on,
            prev_value,
            ..
        } => write_applied(names, *client, *t, *value, *based_on, *prev_value),
        LockObs::WriteRefused { client, token: t, max } => {
            format!("REJECTED write from {} ({} < max {max})", names.of(*client), token(*t))
        }
        LockObs::FenceForgotten { was } => format!("forgot its max fencing token {was} in the crash"),
    }
}

/// An acquisition: its lease, on which servers when more than one granted it, its token, and
/// the deadline the client keeps (if it keeps one).
fn acquired(lease: u64, t: Option<u64>, validity_ns: i64, deadline: &Deadline, servers: u32) -> String {
    let on = if servers.count_ones() > 1 {
        format!(" on servers {}", server_set(servers))
    } else {
        String::new()
    };
    let Deadline::Mono(deadline_mono_ns) = deadline else {
        return format!(
            "ACQUIRED lease {}{on}, {}, no deadline tracked",
            short_lease(lease),
            token(t)
        );
    };
    format!(
        "ACQUIRED lease {}{on}, {}, validity {} (deadline mono {})",
        short_lease(lease),
        token(t),
        fmt_signed_secs(validity_ns),
        fmt_signed_secs(*deadline_mono_ns as i64)
    )
}

/// A write the resource applied; one computed from a value the counter no longer had is a
/// lost update, and says so.
fn write_applied(names: &Names, client: NodeId, t: Option<u64>, value: u64, based_on: u64, prev_value: u64) -> String {
    let stale = if based_on != prev_value {
        format!(" — computed from {based_on}, but the counter was {prev_value}")
    } else {
        String::new()
    };
    format!(
        "ACCEPTED write {prev_value} -> {value} from {} ({}){stale}",
        names.of(client),
        token(t)
    )
}

/// A lock key's expiry, on the clock that runs it.
fn expiry(e: &Option<Expiry>) -> String {
    match e {
        None => "NO expiry".to_string(),
        Some(Expiry {
            clock: ClockKind::Wall,
            at_ns,
        }) => format!("expires at wall {}", fmt_signed_secs(*at_ns)),
        Some(Expiry {
            clock: ClockKind::Mono,
            at_ns,
        }) => format!("expires at mono {}", fmt_signed_secs(*at_ns)),
    }
}

/// A server bit set as `{0,1,2}`.
fn server_set(bits: u32) -> String {
    let list: Vec<String> = (0..32)
        .filter(|i| bits & (1 << i) != 0)
        .map(|i| i.to_string())
        .collect();
    format!("{{{}}}", list.join(","))
}

fn token(t: Option<u64>) -> String {
    t.map_or("no token".to_string(), |t| format!("token {t}"))
}
