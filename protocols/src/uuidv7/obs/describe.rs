//! A UUIDv7 fact as one line of the timeline, appended piece by piece ([`push!`]), not through
//! `format!`: most of a run's trace lines are an issued UUID's, and a `String` per fact (and
//! one per piece of it) cost more than the text.

use locksim_sim::pieces::Piece;
use locksim_sim::push;

use super::{Blocked, IssueNote, UuidObs};
use crate::ids::Requests;

/// Appends what the timeline prints for `obs` to `out`.
pub(super) fn write_line(obs: &UuidObs, out: &mut String) {
    match *obs {
        UuidObs::IdIssued {
            uuid,
            ms,
            counter,
            note,
        } => {
            push!(out, "issues UUID ", uuid, " (ms ", ms);
            if let Some(c) = counter {
                push!(out, ", counter ", c);
            }
            out.push(')');
            issue_note(out, note, ms);
        }
        UuidObs::IdRefused { why, requests } => push!(out, "REFUSES ", Requests(requests), ": ", Why(why)),
        UuidObs::IdWaiting { why, wait_ns, requests } => {
            let us = wait_ns / 1_000 % 1_000;
            let fraction = [b'.', digit(us / 100), digit(us / 10 % 10), digit(us % 10)];
            push!(
                out,
                Why(why),
                ": WAITS ",
                wait_ns / 1_000_000,
                std::str::from_utf8(&fraction).expect("ASCII"),
                " ms (",
                Requests(requests),
                " waiting)"
            )
        }
        UuidObs::GeneratorRestarted => out.push_str("restarts with its last ms and counter FORGOTTEN (in memory only)"),
    }
}

/// What the timeline adds after an issued UUID: why this one is worth a look, if it is.
fn issue_note(out: &mut String, note: IssueNote, ms: u64) {
    match note {
        IssueNote::Plain => {}
        IssueNote::First => out.push_str(" — its first"),
        IssueNote::AfterWait => out.push_str(" — the first after waiting"),
        IssueNote::KeptTimestamp { clock_ms } => push!(
            out,
            " — its clock reads ms ",
            clock_ms,
            ": KEEPS ms ",
            ms,
            " and counts on"
        ),
        IssueNote::Advanced { clock_ms } => push!(
            out,
            " — counter used up: timestamp ADVANCED to ms ",
            ms,
            ", clock at ms ",
            clock_ms
        ),
        IssueNote::Wrapped => push!(out, " — counter used up: WRAPPED to 0 within ms ", ms),
        IssueNote::Behind { last_ms } => push!(
            out,
            " — its clock is ",
            last_ms - ms,
            " ms behind its last UUID's ms ",
            last_ms,
            ": step back IGNORED"
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
                "its wall clock reads Unix ms ",
                now_ms,
                ", ",
                last_ms - now_ms,
                " ms behind its last UUID's ms ",
                last_ms
            ),
            Blocked::CounterExhausted { ms } => push!(out, "its counter has no value left in ms ", ms),
            Blocked::BeforeUnixEpoch { wall_ms } => push!(out, "its wall clock reads ", wall_ms, " ms, before 1970"),
        }
    }
}

/// The ASCII digit of `d`, less than ten.
fn digit(d: u64) -> u8 {
    b'0' + d as u8
}
