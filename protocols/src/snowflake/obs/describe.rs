//! A Snowflake fact as one line of the timeline, appended piece by piece ([`push!`]), not
//! through `format!`: half a run's trace lines are an issued ID's, and a `String` per fact and
//! the formatter's walk cost more than the text. An issued ID's own text is spelled on the
//! stack and appended in one piece ([`Spelled`]).

use locksim_sim::Names;
use locksim_sim::pieces::Piece;
use locksim_sim::push;
use locksim_sim::time::SignedSecs;

use super::super::id::SnowflakeId;
use super::{Blocked, IdObs, IssueNote, LostWhy};
use crate::ids::{Requests, Spelled};

/// Appends what the timeline prints for `obs` to `out`.
pub(super) fn write_line(obs: &IdObs, names: &Names, out: &mut String) {
    match *obs {
        IdObs::IdIssued {
            id,
            ms,
            node_id,
            seq,
            note,
        } => {
            // 68 bytes at most, and room past them for a number's 8-byte store.
            let mut text = Spelled::<80>::default();
            text.str("issues ID ");
            SnowflakeId { ms, node: node_id, seq }.spell(id, &mut text);
            text.push_to(out);
            issue_note(out, note, ms, node_id);
        }
        IdObs::IdRefused { why, requests } => {
            push!(out, "REFUSES ", Requests(requests), ": ", Why(why))
        }
        IdObs::IdWaiting { why, wait_ns, requests } => push!(
            out,
            Why(why),
            ": WAITS ",
            Wait(wait_ns),
            " for ",
            WaitsFor(why),
            " (",
            Requests(requests),
            " waiting)"
        ),
        IdObs::GeneratorRestarted {
            last_ms: Some(ms),
            persisted: true,
        } => push!(out, "restarts; reads its last ID's ms ", ms, " back from disk"),
        IdObs::GeneratorRestarted { persisted: true, .. } => {
            out.push_str("restarts; had issued nothing before the crash")
        }
        IdObs::GeneratorRestarted { persisted: false, .. } => {
            out.push_str("restarts with its last ID's ms FORGOTTEN (not persisted)")
        }
        IdObs::NodeIdLeased {
            node_id,
            deadline_mono_ns,
        } => push!(
            out,
            "leased node ID ",
            node_id,
            " (deadline mono ",
            SignedSecs(deadline_mono_ns as i64),
            ")"
        ),
        IdObs::NodeIdWaiting { pool } => push!(
            out,
            "no free node ID (all ",
            pool,
            " leased): waits for one, takes no requests"
        ),
        IdObs::NodeIdRenewed {
            node_id,
            deadline_mono_ns,
        } => push!(
            out,
            "renewed node ID ",
            node_id,
            " (deadline mono ",
            SignedSecs(deadline_mono_ns as i64),
            ")"
        ),
        IdObs::NodeIdLost { node_id, why, dropped } => {
            push!(out, "NODE ID ", node_id, " LOST: ");
            match why {
                LostWhy::DeadlinePassed { by_ns } => push!(
                    out,
                    "its lease deadline passed ",
                    SignedSecs(by_ns as i64),
                    " ago on its monotonic clock"
                ),
                LostWhy::ServerSaysGone => out.push_str("server-0 says the lease is not its own"),
            }
            push!(out, "; stops issuing (", Requests(dropped), " dropped)")
        }
        IdObs::NodeIdGranted {
            node_id,
            to,
            expires_mono_ns,
            previous,
        } => {
            push!(
                out,
                "node ID ",
                node_id,
                " leased to ",
                names.of(to),
                " until mono ",
                SignedSecs(expires_mono_ns as i64)
            );
            if let Some(p) = previous {
                push!(out, " — REUSED: it was ", names.of(p), "'s, whose lease expired")
            }
        }
        IdObs::NodeIdExpired { node_id, holder } => {
            push!(out, "node ID ", node_id, "'s lease (", names.of(holder), ") EXPIRED")
        }
    }
}

/// What the timeline adds after an issued ID: why this one is worth a look, if it is.
pub(super) fn issue_note(out: &mut String, note: IssueNote, ms: u64, node_id: u16) {
    match note {
        IssueNote::Plain => {}
        IssueNote::First => out.push_str(" — its first"),
        IssueNote::AfterWait => out.push_str(" — the first after waiting"),
        IssueNote::AfterRefusing => out.push_str(" — the first since it refused"),
        IssueNote::WithNewNodeId => push!(out, " — the first with node ID ", node_id),
        IssueNote::LastOfMs => push!(out, " — the 4096th in ms ", ms, ": its sequence is used up"),
        IssueNote::Wrapped => push!(out, " — request 4097 of ms ", ms, ": the sequence WRAPPED to 0"),
        IssueNote::Behind { last_ms } => push!(
            out,
            " — its clock is ",
            last_ms - ms,
            " ms behind its last ID's ms ",
            last_ms,
            ": rollback IGNORED"
        ),
    }
}

/// Why a generator is blocked.
struct Why(Blocked);

impl Piece for Why {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            Blocked::ClockBehind { now_ms, last_ms } => push!(
                out,
                "its wall clock reads ms ",
                now_ms,
                ", ",
                last_ms - now_ms,
                " ms behind its last ID's ms ",
                last_ms,
                " (clock rollback)"
            ),
            Blocked::SequenceExhausted { ms } => {
                push!(out, "all 4096 sequence numbers of ms ", ms, " are used")
            }
            Blocked::SequenceUnknown { ms } => push!(
                out,
                "ms ",
                ms,
                " is its last ID's, read back from disk without its sequence numbers"
            ),
            Blocked::BeforeEpoch { wall_ms } => {
                push!(out, "its wall clock reads ", wall_ms, " ms, before the epoch")
            }
            Blocked::PastMaxMs { ms } => push!(out, "ms ", ms, " does not fit in the 41-bit timestamp"),
        }
    }
}

/// What a blocked generator waits for before it can issue again.
struct WaitsFor(Blocked);

impl Piece for WaitsFor {
    fn push_to(&self, out: &mut String) {
        match self.0 {
            Blocked::SequenceExhausted { ms } | Blocked::SequenceUnknown { ms } => push!(out, "ms ", ms + 1),
            Blocked::ClockBehind { last_ms, .. } => push!(out, "its clock to reach ms ", last_ms),
            _ => out.push_str("its clock"),
        }
    }
}

/// A duration on a generator's clock, to the microsecond: waits are often below 1 ms.
struct Wait(u64);

impl Piece for Wait {
    fn push_to(&self, out: &mut String) {
        let us = self.0 / 1_000;
        push!(out, us / 1_000);
        let us = us % 1_000;
        if us != 0 {
            let digits = [b'.', digit(us / 100), digit(us / 10 % 10), digit(us % 10)];
            out.push_str(std::str::from_utf8(&digits).expect("ASCII"));
        }
        out.push_str(" ms");
    }
}

/// The ASCII digit of `d`, less than ten.
fn digit(d: u64) -> u8 {
    b'0' + d as u8
}
