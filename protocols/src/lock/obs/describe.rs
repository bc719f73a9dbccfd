//! A lock fact as one line of the timeline: the words a reader of the Kleppmann/antirez
//! stories sees, kept apart from the facts' definitions.

use locksim_sim::pieces::Piece;
use locksim_sim::push;
use locksim_sim::time::SignedSecs;
use locksim_sim::{Names, NodeId};

use super::{ClockKind, Deadline, DeleteCause, Expiry, LockObs, ShortLease};

/// Appends what the timeline prints for `obs` to `out`: in place, so a trace line takes it
/// without a `String` per fact, and piece by piece ([`push!`]), not through `write!`.
pub(super) fn write_line(obs: &LockObs, names: &Names, out: &mut String) {
    match obs {
        LockObs::AcquireStarted { lease: l, attempt } => {
            push!(
                out,
                "tries to acquire (lease ",
                ShortLease(*l),
                ", attempt ",
                *attempt,
                ")"
            )
        }
        LockObs::AcquireReplies { granted, answered } => push!(
            out,
            "answers in: granted by ",
            ServerSet(*granted),
            ", answered by ",
            ServerSet(*answered)
        ),
        LockObs::AcquireFailed {
            lease: l,
            why,
            validity_ns,
        } => push!(
            out,
            "did not acquire (lease ",
            ShortLease(*l),
            "): ",
            *why,
            " (validity ",
            SignedSecs(*validity_ns),
            ")"
        ),
        LockObs::Acquired {
            lease: l,
            token: t,
            validity_ns,
            deadline_mono_ns,
            servers,
        } => acquired(out, *l, *t, *validity_ns, deadline_mono_ns, *servers),
        LockObs::ReadDone { value } => push!(out, "read counter = ", *value),
        LockObs::DeadlineChecked { remaining_ns, ok: true } => {
            push!(
                out,
                "checks its deadline: ",
                SignedSecs(*remaining_ns),
                " left, goes on"
            )
        }
        LockObs::DeadlineChecked {
            remaining_ns,
            ok: false,
        } => push!(
            out,
            "checks its deadline: passed ",
            SignedSecs(-*remaining_ns),
            " ago, stops"
        ),
        LockObs::WriteSent { token: t, value } => {
            push!(out, "sends write counter := ", *value, " (", Token(*t), ")")
        }
        LockObs::WriteAccepted { value } => push!(out, "write of ", *value, " acknowledged"),
        LockObs::WriteRejected { token: t, max } => push!(out, "write rejected (", Token(*t), " < max ", *max, ")"),
        LockObs::WriteTimedOut => out.push_str("write unanswered: timed out (it may still land)"),
        LockObs::Released { lease: l } => push!(out, "releases lease ", ShortLease(*l)),
        LockObs::LockLost { why } => push!(out, "LOCK LOST: ", *why),
        LockObs::Renewed { deadline_mono_ns } => {
            push!(out, "renewed: deadline now mono ", SignedSecs(*deadline_mono_ns as i64))
        }
        LockObs::KeySet { lease: l, expiry: e } => {
            push!(out, "lock key := lease ", ShortLease(*l), " (", ExpiryAt(e), ")")
        }
        LockObs::KeyExtended { lease: l, expiry: e } => {
            push!(out, "lock key (lease ", ShortLease(*l), ") extended: ", ExpiryAt(e))
        }
        LockObs::KeyDeleted { lease: l, cause } => {
            let how = match cause {
                DeleteCause::Release => ") released by its owner",
                DeleteCause::PlainDel => ") deleted by a plain DEL",
                DeleteCause::Crash => ") lost in the crash",
            };
            push!(out, "lock key (lease ", ShortLease(*l), how)
        }
        LockObs::KeyExpired { lease: l } => push!(out, "lock key (lease ", ShortLease(*l), ") EXPIRED"),
        LockObs::TokenIssued { token: t, .. } => push!(out, "issued fencing token ", *t),
        LockObs::RoleChanged { authoritative, role } => {
            let serves = if *authoritative {
                " — serves the lock"
            } else {
                " — does not serve the lock"
            };
            push!(out, role.to_uppercase(), serves)
        }
        LockObs::WriteApplied {
            client,
            token: t,
            value,
            based_on,
            prev_value,
            ..
        } => write_applied(out, names, *client, *t, *value, *based_on, *prev_value),
        LockObs::WriteRefused { client, token: t, max } => push!(
            out,
            "REJECTED write from ",
            names.of(*client),
            " (",
            Token(*t),
            " < max ",
            *max,
            ")"
        ),
        LockObs::FenceForgotten { was } => push!(out, "forgot its max fencing token ", *was, " in the crash"),
    }
}

/// An acquisition: its lease, on which servers when more than one granted it, its token, and
/// the deadline the client keeps (if it keeps one).
fn acquired(out: &mut String, lease: u64, t: Option<u64>, validity_ns: i64, deadline: &Deadline, servers: u32) {
    push!(out, "ACQUIRED lease ", ShortLease(lease));
    if servers.count_ones() > 1 {
        push!(out, " on servers ", ServerSet(servers));
    }
    push!(out, ", ", Token(t));
    match deadline {
        Deadline::Mono(deadline_mono_ns) => push!(
            out,
            ", validity ",
            SignedSecs(validity_ns),
            " (deadline mono ",
            SignedSecs(*deadline_mono_ns as i64),
            ")"
        ),
        Deadline::Untracked => out.push_str(", no deadline tracked"),
    }
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
) {
    push!(
        out,
        "ACCEPTED write ",
        prev_value,
        " -> ",
        value,
        " from ",
        names.of(client),
        " (",
        Token(t),
        ")"
    );
    if based_on != prev_value {
        push!(out, " — computed from ", based_on, ", but the counter was ", prev_value);
    }
}

/// A lock key's expiry, on the clock that runs it.
struct ExpiryAt<'a>(&'a Option<Expiry>);

impl Piece for ExpiryAt<'_> {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            None => out.push_str("NO expiry"),
            Some(Expiry {
                clock: ClockKind::Wall,
                at_ns,
            }) => push!(out, "expires at wall ", SignedSecs(*at_ns)),
            Some(Expiry {
                clock: ClockKind::Mono,
                at_ns,
            }) => push!(out, "expires at mono ", SignedSecs(*at_ns)),
        }
    }
}

/// A server bit set as `{0,1,2}`.
struct ServerSet(u32);

/// The set bits only, each index (below 32) written as its one or two digits: an acquisition's
/// fact has two sets, and a loop over all 32 bits formatting each index cost more than the
/// rest of its trace line.
impl Piece for ServerSet {
    fn push_to(&self, out: &mut String) {
        out.push('{');
        let mut rest = self.0;
        while rest != 0 {
            let i = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            if i >= 10 {
                out.push(char::from(b'0' + i / 10));
            }
            out.push(char::from(b'0' + i % 10));
            if rest != 0 {
                out.push(',');
            }
        }
        out.push('}');
    }
}

/// A write's fencing token, or that it carries none.
struct Token(Option<u64>);

impl Piece for Token {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            Some(t) => push!(out, "token ", t),
            None => out.push_str("no token"),
        }
    }
}
