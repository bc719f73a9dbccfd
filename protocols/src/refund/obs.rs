//! What the refund world records. `single_charge` reads the provider's charges and
//! `single_ledger_row` the ledger's rows; the workers' and the lock service's facts tell the
//! story around them.

use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

use super::msg::intent_name;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RefundObs {
    // ---- a worker ----
    /// It holds the refund's lock with `token`.
    LockAcquired {
        refund: u64,
        token: u64,
    },
    LockBusy {
        refund: u64,
    },
    /// The ledger already has (`done`) the refund's row, or not.
    LedgerChecked {
        refund: u64,
        done: bool,
    },
    PspCalled {
        refund: u64,
        intent: u64,
        attempt: u32,
    },
    PspAnswered {
        refund: u64,
        psp_ref: u64,
    },
    PspTimedOut {
        refund: u64,
    },
    LedgerWriteSent {
        refund: u64,
        intent: u64,
        token: u64,
    },
    LedgerWritten {
        refund: u64,
        ok: bool,
        why: &'static str,
    },
    LedgerTimedOut {
        refund: u64,
    },
    /// Out of retries: the refund is left to reconciliation.
    GaveUp {
        refund: u64,
    },
    Released {
        refund: u64,
    },

    // ---- the lock service ----
    LockGranted {
        refund: u64,
        token: u64,
        holder: NodeId,
    },

    // ---- the payment provider ----
    /// Money moved: the provider paid out a refund (one more, whatever the ledger says).
    ChargeMade {
        refund: u64,
        intent: u64,
        psp_ref: u64,
        worker: NodeId,
    },
    /// A call with a known idempotency key: the first call's result again, no money moved.
    ChargeReplayed {
        refund: u64,
        intent: u64,
        psp_ref: u64,
        worker: NodeId,
    },

    // ---- the ledger ----
    RowInserted {
        refund: u64,
        intent: u64,
        token: u64,
        worker: NodeId,
    },
    InsertRefused {
        refund: u64,
        token: u64,
        worker: NodeId,
        why: &'static str,
    },
}

pub const WORKER_EVENTS: &[&str] = &[
    "lock_acquired",
    "lock_busy",
    "ledger_checked",
    "psp_called",
    "psp_answered",
    "psp_timed_out",
    "ledger_write_sent",
    "ledger_written",
    "ledger_timed_out",
    "gave_up",
    "released",
];
pub const LOCK_EVENTS: &[&str] = &["lock_granted"];
pub const PSP_EVENTS: &[&str] = &["charge_made", "charge_replayed"];
pub const LEDGER_EVENTS: &[&str] = &["row_inserted", "insert_refused"];

impl Observation for RefundObs {
    fn kind(&self) -> &'static str {
        match self {
            RefundObs::LockAcquired { .. } => "lock_acquired",
            RefundObs::LockBusy { .. } => "lock_busy",
            RefundObs::LedgerChecked { .. } => "ledger_checked",
            RefundObs::PspCalled { .. } => "psp_called",
            RefundObs::PspAnswered { .. } => "psp_answered",
            RefundObs::PspTimedOut { .. } => "psp_timed_out",
            RefundObs::LedgerWriteSent { .. } => "ledger_write_sent",
            RefundObs::LedgerWritten { .. } => "ledger_written",
            RefundObs::LedgerTimedOut { .. } => "ledger_timed_out",
            RefundObs::GaveUp { .. } => "gave_up",
            RefundObs::Released { .. } => "released",
            RefundObs::LockGranted { .. } => "lock_granted",
            RefundObs::ChargeMade { .. } => "charge_made",
            RefundObs::ChargeReplayed { .. } => "charge_replayed",
            RefundObs::RowInserted { .. } => "row_inserted",
            RefundObs::InsertRefused { .. } => "insert_refused",
        }
    }

    /// Money moving and ledger rows are the story, and so is every protection at work (a
    /// replayed call, a refused insert) and every timeout that leads to a retry.
    fn salience(&self) -> Salience {
        match self {
            RefundObs::LockBusy { .. } | RefundObs::LockGranted { .. } => Salience::Chatter,
            RefundObs::ChargeMade { .. }
            | RefundObs::ChargeReplayed { .. }
            | RefundObs::RowInserted { .. }
            | RefundObs::InsertRefused { .. }
            | RefundObs::PspTimedOut { .. }
            | RefundObs::LedgerTimedOut { .. }
            | RefundObs::GaveUp { .. } => Salience::Salient,
            _ => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            RefundObs::LockAcquired { refund, token } => format!("holds the lock of refund {refund}, token {token}"),
            RefundObs::LockBusy { refund } => format!("lock of refund {refund} is taken"),
            RefundObs::LedgerChecked { refund, done: true } => {
                format!("ledger has refund {refund}: nothing to do")
            }
            RefundObs::LedgerChecked { refund, done: false } => format!("ledger has no row for refund {refund}"),
            RefundObs::PspCalled {
                refund,
                intent,
                attempt,
            } => format!(
                "calls the PSP: refund {} (attempt {attempt})",
                intent_name(*refund, *intent)
            ),
            RefundObs::PspAnswered { refund, psp_ref } => format!("PSP answered refund {refund}: re_{psp_ref}"),
            RefundObs::PspTimedOut { refund } => format!("PSP call for refund {refund} TIMED OUT"),
            RefundObs::LedgerWriteSent { refund, intent, token } => format!(
                "writes the ledger row {} with fence {token}",
                intent_name(*refund, *intent)
            ),
            RefundObs::LedgerWritten { refund, ok: true, .. } => format!("ledger row of refund {refund} written"),
            RefundObs::LedgerWritten { refund, why, .. } => {
                format!("ledger write of refund {refund} refused: {why}")
            }
            RefundObs::LedgerTimedOut { refund } => format!("ledger write of refund {refund} TIMED OUT"),
            RefundObs::GaveUp { refund } => format!("GIVES UP refund {refund}: left to reconciliation"),
            RefundObs::Released { refund } => format!("releases the lock of refund {refund}"),
            RefundObs::LockGranted { refund, token, holder } => {
                format!("lock of refund {refund} -> {}, token {token}", names.of(*holder))
            }
            RefundObs::ChargeMade {
                refund,
                intent,
                psp_ref,
                worker,
            } => format!(
                "CHARGE re_{psp_ref}: refund {} paid out for {}",
                intent_name(*refund, *intent),
                names.of(*worker)
            ),
            RefundObs::ChargeReplayed {
                refund,
                intent,
                psp_ref,
                worker,
            } => format!(
                "idempotency key {} seen: replays re_{psp_ref} to {}, no money moves",
                intent_name(*refund, *intent),
                names.of(*worker)
            ),
            RefundObs::RowInserted {
                refund,
                intent,
                token,
                worker,
            } => format!(
                "LEDGER ROW for refund {} (fence {token}) from {}",
                intent_name(*refund, *intent),
                names.of(*worker)
            ),
            RefundObs::InsertRefused {
                refund,
                token,
                worker,
                why,
            } => format!(
                "REFUSED ledger row of refund {refund} (fence {token}) from {}: {why}",
                names.of(*worker)
            ),
        }
    }
}
