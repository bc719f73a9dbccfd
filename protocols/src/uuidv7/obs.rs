//! What a UUIDv7 generator records. `id_issued` is what the generic ID checkers read (through
//! [`IssuesIds`], by the UUID's 128 bits); the rest is the story: waits on an exhausted counter
//! or a clock behind, refusals before the Unix epoch, restarts. A plain `id_issued` is chatter;
//! one that means something (a kept or advanced timestamp, a wrapped counter, a clock step
//! back taken as it is) is shown.

use serde::Serialize;

use locksim_sim::{Names, Observation, Salience};

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

fn requests(n: u64) -> String {
    if n == 1 {
        "1 request".into()
    } else {
        format!("{n} requests")
    }
}

fn blocked(why: &Blocked) -> String {
    match why {
        Blocked::ClockBehind { now_ms, last_ms } => format!(
            "its wall clock reads Unix ms {now_ms}, {} ms behind its last UUID's ms {last_ms}",
            last_ms - now_ms
        ),
        Blocked::CounterExhausted { ms } => format!("its counter has no value left in ms {ms}"),
        Blocked::BeforeUnixEpoch { wall_ms } => format!("its wall clock reads {wall_ms} ms, before 1970"),
    }
}

fn note(note: &IssueNote, ms: u64) -> String {
    match note {
        IssueNote::Plain => String::new(),
        IssueNote::First => " — its first".into(),
        IssueNote::AfterWait => " — the first after waiting".into(),
        IssueNote::KeptTimestamp { clock_ms } => {
            format!(" — its clock reads ms {clock_ms}: KEEPS ms {ms} and counts on")
        }
        IssueNote::Advanced { clock_ms } => {
            format!(" — counter used up: timestamp ADVANCED to ms {ms}, clock at ms {clock_ms}")
        }
        IssueNote::Wrapped => format!(" — counter used up: WRAPPED to 0 within ms {ms}"),
        IssueNote::Behind { last_ms } => format!(
            " — its clock is {} ms behind its last UUID's ms {last_ms}: step back IGNORED",
            last_ms - ms
        ),
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

    fn describe(&self, _names: &Names) -> String {
        match self {
            UuidObs::IdIssued {
                uuid,
                ms,
                counter,
                note: n,
            } => {
                let counter = counter.map(|c| format!(", counter {c}")).unwrap_or_default();
                format!("issues UUID {uuid} (ms {ms}{counter}){}", note(n, *ms))
            }
            UuidObs::IdRefused { why, requests: n } => format!("REFUSES {}: {}", requests(*n), blocked(why)),
            UuidObs::IdWaiting {
                why,
                wait_ns,
                requests: n,
            } => format!(
                "{}: WAITS {}.{:03} ms ({} waiting)",
                blocked(why),
                wait_ns / 1_000_000,
                wait_ns / 1_000 % 1_000,
                requests(*n)
            ),
            UuidObs::GeneratorRestarted => "restarts with its last ms and counter FORGOTTEN (in memory only)".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_id_issued_carries_a_uuid_and_plain_ones_are_chatter() {
        let plain = UuidObs::IdIssued {
            uuid: Uuid::v7(5, 1),
            ms: 5,
            counter: Some(1),
            note: IssueNote::Plain,
        };
        assert_eq!(plain.issued_id(), Some(Uuid::v7(5, 1)));
        assert_eq!(plain.salience(), Salience::Chatter);
        let wrapped = UuidObs::IdIssued {
            uuid: Uuid::v7(5, 0),
            ms: 5,
            counter: Some(0),
            note: IssueNote::Wrapped,
        };
        assert_eq!(wrapped.salience(), Salience::Salient);
        let names = Names::new(vec!["client-0".into()]);
        assert_eq!(
            wrapped.describe(&names),
            "issues UUID 00000000-0005-7000-8000-000000000000 (ms 5, counter 0) — counter used up: WRAPPED to 0 within ms 5"
        );
        let waiting = UuidObs::IdWaiting {
            why: Blocked::ClockBehind {
                now_ms: 495,
                last_ms: 499,
            },
            wait_ns: 4_000_000,
            requests: 1,
        };
        assert_eq!(waiting.issued_id(), None);
        assert_eq!(
            waiting.describe(&names),
            "its wall clock reads Unix ms 495, 4 ms behind its last UUID's ms 499: WAITS 4.000 ms (1 request waiting)"
        );
    }

    #[test]
    fn a_trace_line_carries_the_uuid_as_its_canonical_text() {
        let o = UuidObs::IdIssued {
            uuid: Uuid::v7(1, 2),
            ms: 1,
            counter: None,
            note: IssueNote::First,
        };
        assert_eq!(
            serde_json::to_string(&o).unwrap(),
            r#"{"event":"id_issued","uuid":"00000000-0001-7000-8000-000000000002","ms":1,"counter":null,"note":{"kind":"first"}}"#
        );
    }
}
