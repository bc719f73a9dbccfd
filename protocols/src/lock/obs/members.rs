//! A lock fact's members as its trace line has them, written by hand: every lock model's runs
//! record these facts by the thousand, and through serde each cost as much as the rest of its
//! line. The bytes are serde's (`tests.rs` compares every fact with it): keys sorted, the tag
//! `event` among them, an `Option` as `null`, a missing `TokenIssued` lease left out. Each
//! arm names every field, so a field added to a fact does not compile until it is written.

use locksim_sim::{Members, Observation, member_key};

use super::{ClockKind, DeleteCause, Expiry, LockObs};

pub(super) fn write(obs: &LockObs, m: &mut Members<'_>) {
    // The serde tag `event` holds the fact's kind (snake_case words: no escape).
    let event = |m: &mut Members<'_>| m.plain_kind(member_key!("event"), obs.kind());
    match *obs {
        LockObs::AcquireStarted { lease, attempt } => {
            m.uint(member_key!("attempt"), u64::from(attempt));
            event(m);
            m.recurring(member_key!("lease"), lease);
        }
        LockObs::AcquireReplies { granted, answered } => {
            m.uint(member_key!("answered"), u64::from(answered));
            event(m);
            m.uint(member_key!("granted"), u64::from(granted));
        }
        LockObs::AcquireFailed {
            lease,
            why,
            validity_ns,
        } => {
            event(m);
            m.recurring(member_key!("lease"), lease);
            m.int(member_key!("validity_ns"), validity_ns);
            m.str(member_key!("why"), &why);
        }
        LockObs::Acquired {
            lease,
            token,
            validity_ns,
            deadline_mono_ns,
            servers,
        } => {
            m.uint(
                member_key!("deadline_mono_ns"),
                deadline_mono_ns.mono_ns().unwrap_or(u64::MAX),
            );
            event(m);
            m.recurring(member_key!("lease"), lease);
            m.uint(member_key!("servers"), u64::from(servers));
            m.opt_uint(member_key!("token"), token);
            m.int(member_key!("validity_ns"), validity_ns);
        }
        LockObs::ReadDone { value } | LockObs::WriteAccepted { value } => {
            event(m);
            m.uint(member_key!("value"), value);
        }
        LockObs::DeadlineChecked { remaining_ns, ok } => {
            event(m);
            m.bool(member_key!("ok"), ok);
            m.int(member_key!("remaining_ns"), remaining_ns);
        }
        LockObs::WriteSent { token, value } => {
            event(m);
            m.opt_uint(member_key!("token"), token);
            m.uint(member_key!("value"), value);
        }
        LockObs::WriteRejected { token, max } => {
            event(m);
            m.uint(member_key!("max"), max);
            m.opt_uint(member_key!("token"), token);
        }
        LockObs::WriteTimedOut => event(m),
        LockObs::Released { lease } | LockObs::KeyExpired { lease } => {
            event(m);
            m.recurring(member_key!("lease"), lease);
        }
        LockObs::LockLost { why } => {
            event(m);
            m.str(member_key!("why"), &why);
        }
        LockObs::Renewed { deadline_mono_ns } => {
            m.uint(member_key!("deadline_mono_ns"), deadline_mono_ns);
            event(m);
        }
        LockObs::KeySet { lease, expiry } | LockObs::KeyExtended { lease, expiry } => {
            event(m);
            match expiry {
                Some(expiry) => m.object(member_key!("expiry"), |m| write_expiry(expiry, m)),
                None => m.null(member_key!("expiry")),
            }
            m.recurring(member_key!("lease"), lease);
        }
        LockObs::KeyDeleted { lease, cause } => {
            m.str(
                member_key!("cause"),
                match cause {
                    DeleteCause::Release => "release",
                    DeleteCause::PlainDel => "plain_del",
                    DeleteCause::Crash => "crash",
                },
            );
            event(m);
            m.recurring(member_key!("lease"), lease);
        }
        LockObs::TokenIssued { token, lease } => {
            event(m);
            if let Some(lease) = lease {
                m.recurring(member_key!("lease"), lease);
            }
            m.uint(member_key!("token"), token);
        }
        LockObs::RoleChanged { authoritative, role } => {
            m.bool(member_key!("authoritative"), authoritative);
            event(m);
            m.str(member_key!("role"), &role);
        }
        LockObs::WriteApplied {
            client,
            lease,
            token,
            value,
            based_on,
            prev_value,
        } => {
            m.uint(member_key!("based_on"), based_on);
            m.uint(member_key!("client"), u64::from(client.0));
            event(m);
            m.recurring(member_key!("lease"), lease);
            m.uint(member_key!("prev_value"), prev_value);
            m.opt_uint(member_key!("token"), token);
            m.uint(member_key!("value"), value);
        }
        LockObs::WriteRefused { client, token, max } => {
            m.uint(member_key!("client"), u64::from(client.0));
            event(m);
            m.uint(member_key!("max"), max);
            m.opt_uint(member_key!("token"), token);
        }
        LockObs::FenceForgotten { was } => {
            event(m);
            m.uint(member_key!("was"), was);
        }
    }
}

fn write_expiry(Expiry { clock, at_ns }: Expiry, m: &mut Members<'_>) {
    m.int(member_key!("at_ns"), at_ns);
    m.str(
        member_key!("clock"),
        match clock {
            ClockKind::Wall => "wall",
            ClockKind::Mono => "mono",
        },
    );
}
