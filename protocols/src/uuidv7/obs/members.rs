//! A UUIDv7 fact's members as its trace line has them, written by hand: a run records an
//! `id_issued` per UUID, and through serde each cost more than the rest of its line. The bytes
//! are serde's (`tests.rs` compares every fact with it): keys sorted, nested ones too, the tags
//! `event`, `kind` and `reason` among them (constants, copied unescaped), a missing counter as
//! `null`, the UUID as its canonical text. Each arm names every field, so a field added to a
//! fact does not compile until it is written.

use locksim_sim::Members;

use super::{Blocked, IssueNote, UuidObs};

pub(super) fn write(obs: &UuidObs, m: &mut Members<'_>) {
    // The serde tag `event` holds the fact's kind.
    let event = |m: &mut Members<'_>| m.kind("event");
    match *obs {
        UuidObs::IdIssued {
            uuid,
            ms,
            counter,
            note,
        } => {
            m.opt_uint("counter", counter);
            event(m);
            m.uint("ms", ms);
            m.object("note", |m| write_note(note, m));
            uuid.write_member("uuid", m);
        }
        UuidObs::IdRefused { why, requests } => {
            event(m);
            m.uint("requests", requests);
            m.object("why", |m| write_blocked(why, m));
        }
        UuidObs::IdWaiting { why, wait_ns, requests } => {
            event(m);
            m.uint("requests", requests);
            m.uint("wait_ns", wait_ns);
            m.object("why", |m| write_blocked(why, m));
        }
        UuidObs::GeneratorRestarted => event(m),
    }
}

fn write_note(note: IssueNote, m: &mut Members<'_>) {
    let kind = match note {
        IssueNote::Plain => "plain",
        IssueNote::First => "first",
        IssueNote::AfterWait => "after_wait",
        IssueNote::Wrapped => "wrapped",
        IssueNote::KeptTimestamp { clock_ms } => {
            m.uint("clock_ms", clock_ms);
            "kept_timestamp"
        }
        IssueNote::Advanced { clock_ms } => {
            m.uint("clock_ms", clock_ms);
            "advanced"
        }
        IssueNote::Behind { last_ms } => {
            m.tag("kind", "behind");
            m.uint("last_ms", last_ms);
            return;
        }
    };
    m.tag("kind", kind);
}

fn write_blocked(why: Blocked, m: &mut Members<'_>) {
    match why {
        Blocked::ClockBehind { now_ms, last_ms } => {
            m.uint("last_ms", last_ms);
            m.uint("now_ms", now_ms);
            m.tag("reason", "clock_behind");
        }
        Blocked::CounterExhausted { ms } => {
            m.uint("ms", ms);
            m.tag("reason", "counter_exhausted");
        }
        Blocked::BeforeUnixEpoch { wall_ms } => {
            m.tag("reason", "before_unix_epoch");
            m.int("wall_ms", wall_ms);
        }
    }
}
