//! What a UUIDv7 generator records. `id_issued` is what the generic ID checkers read (through
//! [`IssuesIds`], by the UUID's 128 bits); the rest is the story: waits on an exhausted counter
//! or a clock behind, refusals before the Unix epoch, restarts. A plain `id_issued` is chatter;
//! one that means something (a kept or advanced timestamp, a wrapped counter, a clock step
//! back taken as it is) is shown.

use serde::Serialize;

use locksim_sim::{Members, Names, Observation, Salience};

use super::uuid::Uuid;
use crate::ids::IssuesIds;

/// What is worth saying about one issued UUID.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IssueNote {
    Plain,
    /// The first of this process (at start or after a restart).
    First,
    /// The first after a wait.
    AfterWait,
    /// The clock read `clock_ms`, before the last UUID's: the last timestamp was reused.
    KeptTimestamp {
        clock_ms: u64,
    },
    /// The counter ran out: the timestamp runs ahead of the clock's `clock_ms`.
    Advanced {
        clock_ms: u64,
    },
    /// The counter wrapped to 0 within its millisecond (`counter_overflow = "wrap"`).
    Wrapped,
    /// The clock went back from `last_ms` and was used as it is (`clock_back = "ignore"`).
    Behind {
        last_ms: u64,
    },
}

/// Why a generator could not issue a UUID now.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Blocked {
    /// Its wall clock reads Unix ms `now_ms`, before its last UUID's `last_ms`.
    ClockBehind { now_ms: u64, last_ms: u64 },
    /// The counter has no value left in `ms`.
    CounterExhausted { ms: u64 },
    /// Its wall clock reads before 1970 (`wall_ms`, negative): no timestamp to encode.
    BeforeUnixEpoch { wall_ms: i64 },
}

/// One fact of a UUIDv7 world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum UuidObs {
    /// `counter` is absent when the generator has none (random data only).
    IdIssued {
        uuid: Uuid,
        ms: u64,
        counter: Option<u64>,
        note: IssueNote,
    },
    /// `requests` were refused.
    IdRefused { why: Blocked, requests: u64 },
    /// It waits `wait_ns` (its monotonic clock) before issuing again; `requests` wait with it.
    IdWaiting { why: Blocked, wait_ns: u64, requests: u64 },
    /// It came back after a crash, its last millisecond and counter forgotten (held in memory,
    /// as RFC 9562 §6.2 describes them).
    GeneratorRestarted,
}

/// Event names a fault can be triggered `after`.
pub const GENERATOR_EVENTS: &[&str] = &["id_issued", "id_refused", "id_waiting", "generator_restarted"];

impl IssuesIds for UuidObs {
    type Id = Uuid;

    fn issued_id(&self) -> Option<Uuid> {
        match self {
            UuidObs::IdIssued { uuid, .. } => Some(*uuid),
            _ => None,
        }
    }
}

impl Observation for UuidObs {
    fn kind(&self) -> &'static str {
        match self {
            UuidObs::IdIssued { .. } => "id_issued",
            UuidObs::IdRefused { .. } => "id_refused",
            UuidObs::IdWaiting { .. } => "id_waiting",
            UuidObs::GeneratorRestarted => "generator_restarted",
        }
    }

    /// Every text is this model's own literals, numbers and node names: nothing from
    /// outside the model (a fact that ever carries such a text must say `false` for it).
    fn plain_text(&self) -> bool {
        true
    }

    fn salience(&self) -> Salience {
        match self {
            UuidObs::IdIssued {
                note: IssueNote::Plain, ..
            } => Salience::Chatter,
            UuidObs::IdIssued {
                note:
                    IssueNote::First | IssueNote::AfterWait | IssueNote::KeptTimestamp { .. } | IssueNote::Advanced { .. },
                ..
            } => Salience::Routine,
            _ => Salience::Salient,
        }
    }

    fn describe(&self, _: &Names) -> String {
        let mut line = String::new();
        describe::write_line(self, &mut line);
        line
    }

    fn describe_into(&self, _: &Names, out: &mut String) {
        describe::write_line(self, out);
    }

    fn write_members(&self, m: &mut Members<'_>) -> bool {
        members::write(self, m);
        true
    }
}

mod describe;
mod members;
#[cfg(test)]
mod tests;
