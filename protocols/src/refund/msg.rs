//! The refund world's wire: a worker's requests to the lock service, the payment provider
//! (PSP) and the ledger database, and their answers. Requests carry the worker's request
//! number; answers echo it.

use std::fmt;

/// A refund intent's id as the timeline shows it: the refund's own intent is its number; one
/// a retry made up is shown short.
pub fn intent_name(refund: u64, intent: u64) -> String {
    if intent == refund {
        format!("R{refund}")
    } else {
        format!("R{refund}/{:04x}", intent >> 48)
    }
}

#[derive(Clone, Debug)]
pub enum RefundMsg {
    /// `SET lock:refund:<refund> <lease> NX PX ttl` plus `INCR` of the refund's token; a
    /// holder asking again with its own lease gets a new token (re-locking).
    Lock {
        req: u64,
        refund: u64,
        lease: u64,
    },
    /// Compare-and-delete of the refund's lock.
    Unlock {
        refund: u64,
        lease: u64,
    },
    /// `SELECT 1 FROM refund_ledger WHERE refund_id = :refund`.
    LedgerGet {
        req: u64,
        refund: u64,
    },
    /// `POST /refunds` at the provider, with `Idempotency-Key: <intent>` when `key`.
    Charge {
        req: u64,
        refund: u64,
        intent: u64,
        key: bool,
    },
    /// `INSERT INTO refund_ledger (refund_id, intent_id, fence) ...`, fenced when the ledger is.
    Insert {
        req: u64,
        refund: u64,
        intent: u64,
        token: u64,
    },

    Granted {
        req: u64,
        token: Option<u64>,
    },
    LedgerState {
        req: u64,
        done: bool,
    },
    Charged {
        req: u64,
        psp_ref: u64,
    },
    Inserted {
        req: u64,
        ok: bool,
        why: &'static str,
    },
}

impl fmt::Display for RefundMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefundMsg::Lock { refund, .. } => write!(f, "SET lock:refund:{refund} NX PX ttl; INCR token"),
            RefundMsg::Unlock { refund, .. } => write!(f, "compare-and-delete lock:refund:{refund}"),
            RefundMsg::LedgerGet { refund, .. } => write!(f, "SELECT ledger row of refund {refund}"),
            RefundMsg::Charge {
                refund, intent, key, ..
            } => {
                let with = if *key { " with Idempotency-Key" } else { "" };
                write!(f, "POST /refunds {}{with}", intent_name(*refund, *intent))
            }
            RefundMsg::Insert {
                refund, intent, token, ..
            } => write!(
                f,
                "INSERT ledger row ({}, fence {token})",
                intent_name(*refund, *intent)
            ),
            RefundMsg::Granted { token: Some(t), .. } => write!(f, "OK, token {t}"),
            RefundMsg::Granted { token: None, .. } => f.write_str("(nil): locked"),
            RefundMsg::LedgerState { done: true, .. } => f.write_str("1 row: refunded"),
            RefundMsg::LedgerState { done: false, .. } => f.write_str("0 rows"),
            RefundMsg::Charged { psp_ref, .. } => write!(f, "200 refund re_{psp_ref}"),
            RefundMsg::Inserted { ok: true, .. } => f.write_str("INSERT 0 1"),
            RefundMsg::Inserted { why, .. } => write!(f, "ERROR: {why}"),
        }
    }
}
