//! The scheduler world's vocabulary: messages between scheduler instances, workers and the
//! job store, and what each records. `exactly_once` reads only these facts.

use std::fmt;

use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

/// The one job every instance schedules (seed 000's `'settle'`).
pub const JOB: &str = "settle";

/// Store requests carry the worker's request id; replies echo it.
#[derive(Clone, Debug)]
pub enum SchedMsg {
    /// An instance hands slot `slot` of the job to a worker.
    Run {
        slot: i64,
    },
    /// The worker saw the slot's done-mark (or, without dedup, its effect) committed.
    Done {
        slot: i64,
    },
    /// Same-tx: the seed's transaction, key and effect together.
    Tx {
        req: u64,
        slot: i64,
    },
    /// Mark-after: is the slot's done-mark there?
    CheckMark {
        req: u64,
        slot: i64,
    },
    /// The effect alone.
    Effect {
        req: u64,
        slot: i64,
    },
    /// Mark-after: write the done-mark.
    Mark {
        req: u64,
        slot: i64,
    },
    /// `applied`: the row was inserted and the effect committed with it.
    TxReply {
        req: u64,
        applied: bool,
    },
    MarkState {
        req: u64,
        done: bool,
    },
    EffectReply {
        req: u64,
    },
    MarkReply {
        req: u64,
    },
}

impl fmt::Display for SchedMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedMsg::Run { slot } => write!(f, "RUN {JOB} slot {slot}"),
            SchedMsg::Done { slot } => write!(f, "DONE {JOB} slot {slot}"),
            SchedMsg::Tx { slot, .. } => write!(
                f,
                "BEGIN; INSERT executions({JOB}, {slot}) ON CONFLICT DO NOTHING; UPDATE counter if inserted; COMMIT"
            ),
            SchedMsg::CheckMark { slot, .. } => write!(f, "SELECT done-mark ({JOB}, {slot})"),
            SchedMsg::Effect { slot, .. } => write!(f, "UPDATE counter + 1 (for {JOB} slot {slot})"),
            SchedMsg::Mark { slot, .. } => write!(f, "INSERT done-mark ({JOB}, {slot})"),
            SchedMsg::TxReply { applied: true, .. } => f.write_str("1 row inserted, effect committed"),
            SchedMsg::TxReply { applied: false, .. } => f.write_str("0 rows inserted: already ran"),
            SchedMsg::MarkState { done, .. } => f.write_str(if *done { "marked done" } else { "no done-mark" }),
            SchedMsg::EffectReply { .. } => f.write_str("effect committed"),
            SchedMsg::MarkReply { .. } => f.write_str("done-mark written"),
        }
    }
}

/// One fact of the scheduler world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SchedObs {
    // ---- a scheduler instance ----
    /// The instance's wall clock reached the start of `slot`: it fires the job for it and
    /// hands it to `worker`.
    SlotFired {
        job: &'static str,
        slot: i64,
        worker: NodeId,
    },
    /// No done report within the retry interval: the slot is sent again.
    JobResent {
        slot: i64,
        worker: NodeId,
        attempt: u32,
    },
    JobDone {
        slot: i64,
        worker: NodeId,
    },
    GaveUp {
        slot: i64,
        attempts: u32,
    },

    // ---- a worker ----
    JobReceived {
        slot: i64,
        from: NodeId,
    },
    /// Mark-after's check before the effect.
    MarkChecked {
        slot: i64,
        done: bool,
    },
    /// The store acknowledged the effect (same-tx: with its `(job, slot)` key).
    EffectCommitted {
        slot: i64,
        with_key: bool,
    },
    /// The worker saw the slot's done-mark committed (same-tx: in the effect's transaction).
    MarkedDone {
        slot: i64,
        in_tx: bool,
    },
    /// The `(job, slot)` key was already there: nothing ran.
    AlreadyDone {
        slot: i64,
    },
    /// The store did not answer in time; the job is dropped (its instance will re-send it).
    JobAbandoned {
        slot: i64,
    },

    // ---- the job store ----
    /// An effect committed: the slot's `nth` (1 is the only right answer).
    EffectApplied {
        job: &'static str,
        slot: i64,
        worker: NodeId,
        nth: u32,
        counter: u64,
    },
    /// Same-tx: the insert hit the unique key; the transaction changed nothing.
    DuplicateSuppressed {
        job: &'static str,
        slot: i64,
        worker: NodeId,
    },
    MarkWritten {
        job: &'static str,
        slot: i64,
        worker: NodeId,
    },
}

pub const SCHEDULER_EVENTS: &[&str] = &["slot_fired", "job_resent", "job_done", "gave_up"];
pub const WORKER_EVENTS: &[&str] = &[
    "job_received",
    "mark_checked",
    "effect_committed",
    "marked_done",
    "already_done",
    "job_abandoned",
];
pub const STORE_EVENTS: &[&str] = &["effect_applied", "duplicate_suppressed", "mark_written"];

impl Observation for SchedObs {
    fn kind(&self) -> &'static str {
        match self {
            SchedObs::SlotFired { .. } => "slot_fired",
            SchedObs::JobResent { .. } => "job_resent",
            SchedObs::JobDone { .. } => "job_done",
            SchedObs::GaveUp { .. } => "gave_up",
            SchedObs::JobReceived { .. } => "job_received",
            SchedObs::MarkChecked { .. } => "mark_checked",
            SchedObs::EffectCommitted { .. } => "effect_committed",
            SchedObs::MarkedDone { .. } => "marked_done",
            SchedObs::AlreadyDone { .. } => "already_done",
            SchedObs::JobAbandoned { .. } => "job_abandoned",
            SchedObs::EffectApplied { .. } => "effect_applied",
            SchedObs::DuplicateSuppressed { .. } => "duplicate_suppressed",
            SchedObs::MarkWritten { .. } => "mark_written",
        }
    }

    /// A repeated effect is the story; so are re-sends (something went missing) and jobs
    /// given up. The normal round — fire, run, mark — is routine.
    fn salience(&self) -> Salience {
        match self {
            SchedObs::JobDone { .. } | SchedObs::JobReceived { .. } => Salience::Chatter,
            SchedObs::EffectApplied { nth, .. } if *nth > 1 => Salience::Salient,
            SchedObs::JobResent { .. } | SchedObs::GaveUp { .. } | SchedObs::JobAbandoned { .. } => Salience::Salient,
            _ => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            SchedObs::SlotFired { job, slot, worker } => {
                format!("fires {job} slot {slot} -> {}", names.of(*worker))
            }
            SchedObs::JobResent { slot, worker, attempt } => format!(
                "no done report for slot {slot}: re-sends it to {} (attempt {attempt})",
                names.of(*worker)
            ),
            SchedObs::JobDone { slot, worker } => format!("{} reports slot {slot} done", names.of(*worker)),
            SchedObs::GaveUp { slot, attempts } => format!("GIVES UP slot {slot} after {attempts} attempts"),
            SchedObs::JobReceived { slot, from } => format!("slot {slot} from {}", names.of(*from)),
            SchedObs::MarkChecked { slot, done: true } => format!("slot {slot}: done-mark found, skips it"),
            SchedObs::MarkChecked { slot, done: false } => format!("slot {slot}: no done-mark, runs the effect"),
            SchedObs::EffectCommitted { slot, with_key: true } => {
                format!("slot {slot}: effect committed with its (job, slot) key, one transaction")
            }
            SchedObs::EffectCommitted { slot, with_key: false } => format!("slot {slot}: effect committed"),
            SchedObs::MarkedDone { slot, in_tx: true } => format!("slot {slot}: done (the key is the mark)"),
            SchedObs::MarkedDone { slot, in_tx: false } => format!("slot {slot}: done-mark written"),
            SchedObs::AlreadyDone { slot } => format!("slot {slot}: key already there, nothing ran"),
            SchedObs::JobAbandoned { slot } => format!("slot {slot}: the store did not answer, job dropped"),
            SchedObs::EffectApplied {
                job,
                slot,
                worker,
                nth: 1,
                counter,
            } => format!(
                "EFFECT of {job} slot {slot} committed by {} (counter = {counter})",
                names.of(*worker)
            ),
            SchedObs::EffectApplied {
                job,
                slot,
                worker,
                nth,
                counter,
            } => format!(
                "EFFECT of {job} slot {slot} committed AGAIN by {} — effect #{nth} of this slot (counter = {counter})",
                names.of(*worker)
            ),
            SchedObs::DuplicateSuppressed { job, slot, worker } => format!(
                "{job} slot {slot} from {}: key exists, 0 rows inserted, no effect",
                names.of(*worker)
            ),
            SchedObs::MarkWritten { job, slot, worker } => {
                format!("done-mark ({job}, {slot}) written by {}", names.of(*worker))
            }
        }
    }
}
