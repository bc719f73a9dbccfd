//! The lock world's vocabulary: what lock clients, lock servers and the protected resource
//! record. The generic checkers (`check`) read only these facts, so every lock protocol —
//! single Redis, Redlock, an etcd-style lease, a user's own — is judged by the same code.

use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use locksim_sim::pieces::Piece;
use locksim_sim::{Members, Names, NodeId, Observation, Salience};
use serde::{Deserialize, Deserializer, Serialize};

pub use super::deadline::Deadline;

/// Which of a server's clocks a key's expiry follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    Wall,
    Mono,
}

/// When a lock key expires, on the server's own clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expiry {
    pub clock: ClockKind,
    pub at_ns: i64,
}

/// Why a server's lock key went away.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeleteCause {
    /// A compare-and-delete by the lease's owner.
    Release,
    /// A plain `DEL`, whoever sent it.
    PlainDel,
    /// The server crashed and its persistence did not keep the key.
    Crash,
}

/// A lease value shown short: enough to match a client's line with a server's.
pub fn short_lease(l: u64) -> String {
    let mut text = String::with_capacity(4);
    ShortLease(l).push_to(&mut text);
    text
}

/// [`short_lease`] as a [`Piece`], written in place (a trace writes one per lock message).
pub struct ShortLease(pub u64);

/// The lease's top 16 bits as four hex digits (`{:04x}`): its two bytes' pairs of digits cut
/// from [`HEX_PAIRS`] and pushed as they are. A trace writes one per lock message and most lock
/// facts; four `char`s pushed one by one cost twice as much, and the formatter's `{:04x}`
/// several times more.
impl Piece for ShortLease {
    fn push_to(&self, out: &mut String) {
        for shift in [56, 48] {
            let byte = (self.0 >> shift) as usize & 0xff;
            out.push_str(&HEX_PAIRS[2 * byte..2 * byte + 2]);
        }
    }
}

/// Every byte's two hex digits, `000102…feff`, made at compile time.
const HEX_PAIRS: &str = {
    const DIGITS: [u8; 512] = {
        let hex = b"0123456789abcdef";
        let mut digits = [0; 512];
        let mut byte = 0;
        while byte < 256 {
            digits[2 * byte] = hex[byte >> 4];
            digits[2 * byte + 1] = hex[byte & 15];
            byte += 1;
        }
        digits
    };
    match std::str::from_utf8(&DIGITS) {
        Ok(pairs) => pairs,
        Err(_) => panic!("hex digits are ASCII"),
    }
};

/// One fact of the lock world.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LockObs {
    // ---- a lock client (DESIGN section 4b) ----
    /// A new acquisition attempt with a fresh random lease value.
    AcquireStarted {
        lease: u64,
        attempt: u32,
    },
    /// Every server answered, or the per-node timeout passed (bit i: server-i). The client
    /// computes its validity in the next step, so a pause placed after this event comes
    /// between the last answer and that computation.
    AcquireReplies {
        granted: u32,
        answered: u32,
    },
    /// The attempt did not get the lock (with the validity it computed); the client retries
    /// after a backoff.
    AcquireFailed {
        lease: u64,
        why: Text,
        validity_ns: i64,
    },
    /// The client holds the lock until `deadline_mono_ns`.
    /// `servers` is the set (bit i = server-i) that granted it.
    Acquired {
        lease: u64,
        token: Option<u64>,
        validity_ns: i64,
        deadline_mono_ns: Deadline,
        servers: u32,
    },
    ReadDone {
        value: u64,
    },
    DeadlineChecked {
        remaining_ns: i64,
        ok: bool,
    },
    WriteSent {
        token: Option<u64>,
        value: u64,
    },
    WriteAccepted {
        value: u64,
    },
    WriteRejected {
        token: Option<u64>,
        max: u64,
    },
    /// No answer within the request timeout; the write may still land.
    WriteTimedOut,
    Released {
        lease: u64,
    },
    LockLost {
        why: Text,
    },
    /// A renewal succeeded; the deadline moves to `deadline_mono_ns`.
    Renewed {
        deadline_mono_ns: u64,
    },

    // ---- a lock server ----
    /// The lock key now holds `lease`.
    KeySet {
        lease: u64,
        expiry: Option<Expiry>,
    },
    /// The lock key's expiry was moved.
    KeyExtended {
        lease: u64,
        expiry: Option<Expiry>,
    },
    KeyDeleted {
        lease: u64,
        cause: DeleteCause,
    },
    KeyExpired {
        lease: u64,
    },
    /// A fencing token handed out. `lease` names the lock key it was granted to where a token
    /// is tied to one (an etcd create revision): a new leader applying a log entry an earlier
    /// leader already applied announces the same grant again, and that is no new grant.
    TokenIssued {
        token: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        lease: Option<u64>,
    },
    /// The server starts or stops being one whose key state decides who holds the lock: a
    /// replica is not, a promoted replica is, a demoted primary is not, a server kept
    /// unavailable after a restart is not until it serves again. A server that never records
    /// this is authoritative throughout.
    RoleChanged {
        authoritative: bool,
        role: Text,
    },

    // ---- the protected resource ----
    /// A write was accepted: the counter went from `prev_value` to `value`, computed by the
    /// client from `based_on`.
    WriteApplied {
        client: NodeId,
        lease: u64,
        token: Option<u64>,
        value: u64,
        based_on: u64,
        prev_value: u64,
    },
    WriteRefused {
        client: NodeId,
        token: Option<u64>,
        max: u64,
    },
    /// A crash lost the resource's record of the highest token it accepted.
    FenceForgotten {
        was: u64,
    },
}

/// A text a lock fact carries (why an attempt failed, a server's new role): one of the models'
/// own literals, so recording a fact allocates nothing and dropping one costs nothing on the
/// engine's hot path. A trace read back interns each distinct text once for the life of the
/// process (a model has a handful: "no quorum", "replica", ...).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Text(&'static str);

impl Text {
    /// Whether the text holds no character a JSON string escapes.
    fn is_plain(self) -> bool {
        self.0.bytes().all(|c| c >= 0x20 && c != b'"' && c != b'\\')
    }
}

impl From<&'static str> for Text {
    fn from(text: &'static str) -> Self {
        Text(text)
    }
}

impl std::ops::Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.0
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Piece for Text {
    fn push_to(&self, out: &mut String) {
        out.push_str(self.0);
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        static TEXTS: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
        let text = String::deserialize(d)?;
        let mut texts = TEXTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = texts.get(text.as_str()) {
            return Ok(Text(known));
        }
        let leaked: &'static str = Box::leak(text.into_boxed_str());
        texts.insert(leaked);
        Ok(Text(leaked))
    }
}

/// Event names a fault can be triggered `after`, by role.
pub const CLIENT_EVENTS: &[&str] = &[
    "acquire_started",
    "acquire_replies",
    "acquire_failed",
    "acquired",
    "read_done",
    "deadline_checked",
    "write_sent",
    "write_accepted",
    "write_rejected",
    "write_timed_out",
    "released",
    "lock_lost",
    "renewed",
];
pub const SERVER_EVENTS: &[&str] = &[
    "key_set",
    "key_extended",
    "key_deleted",
    "key_expired",
    "token_issued",
    "role_changed",
];
pub const RESOURCE_EVENTS: &[&str] = &["write_applied", "write_refused", "fence_forgotten"];

impl Observation for LockObs {
    fn kind(&self) -> &'static str {
        match self {
            LockObs::AcquireStarted { .. } => "acquire_started",
            LockObs::AcquireReplies { .. } => "acquire_replies",
            LockObs::AcquireFailed { .. } => "acquire_failed",
            LockObs::Acquired { .. } => "acquired",
            LockObs::ReadDone { .. } => "read_done",
            LockObs::DeadlineChecked { .. } => "deadline_checked",
            LockObs::WriteSent { .. } => "write_sent",
            LockObs::WriteAccepted { .. } => "write_accepted",
            LockObs::WriteRejected { .. } => "write_rejected",
            LockObs::WriteTimedOut => "write_timed_out",
            LockObs::Released { .. } => "released",
            LockObs::LockLost { .. } => "lock_lost",
            LockObs::Renewed { .. } => "renewed",
            LockObs::KeySet { .. } => "key_set",
            LockObs::KeyExtended { .. } => "key_extended",
            LockObs::KeyDeleted { .. } => "key_deleted",
            LockObs::KeyExpired { .. } => "key_expired",
            LockObs::TokenIssued { .. } => "token_issued",
            LockObs::RoleChanged { .. } => "role_changed",
            LockObs::WriteApplied { .. } => "write_applied",
            LockObs::WriteRefused { .. } => "write_refused",
            LockObs::FenceForgotten { .. } => "fence_forgotten",
        }
    }

    fn salience(&self) -> Salience {
        match self {
            // A quorum thrown away for lack of validity is the story (antirez's pause); a busy
            // key is a retry.
            LockObs::AcquireFailed { why, .. } if why.contains("validity") => Salience::Salient,
            // One server's answer says no more than the `acquired` that follows it.
            LockObs::AcquireReplies { granted, answered } if *granted != 0 && answered.count_ones() > 1 => {
                Salience::Routine
            }
            LockObs::AcquireStarted { .. }
            | LockObs::AcquireReplies { .. }
            | LockObs::AcquireFailed { .. }
            | LockObs::TokenIssued { .. } => Salience::Chatter,
            LockObs::RoleChanged { .. } => Salience::Salient,
            LockObs::DeadlineChecked { ok: false, .. }
            | LockObs::WriteRejected { .. }
            | LockObs::WriteTimedOut
            | LockObs::LockLost { .. }
            | LockObs::KeyExpired { .. }
            | LockObs::KeySet { expiry: None, .. }
            | LockObs::KeyDeleted {
                cause: DeleteCause::PlainDel | DeleteCause::Crash,
                ..
            }
            | LockObs::WriteRefused { .. }
            | LockObs::FenceForgotten { .. } => Salience::Salient,
            LockObs::WriteApplied {
                based_on, prev_value, ..
            } if based_on != prev_value => Salience::Salient,
            _ => Salience::Routine,
        }
    }

    fn describe(&self, names: &Names) -> String {
        let mut line = String::new();
        describe::write_line(self, names, &mut line);
        line
    }

    fn describe_into(&self, names: &Names, out: &mut String) {
        describe::write_line(self, names, out);
    }

    fn write_members(&self, m: &mut Members<'_>) -> bool {
        members::write(self, m);
        true
    }

    /// The kinds are snake_case words and the lines the model's literals, numbers and node
    /// names, and a [`Text`], which may come from a trace read back: tested (a few bytes,
    /// where the scan it saves covers the whole line).
    fn plain_text(&self) -> bool {
        match self {
            LockObs::AcquireFailed { why, .. } | LockObs::LockLost { why } => why.is_plain(),
            LockObs::RoleChanged { role, .. } => role.is_plain(),
            _ => true,
        }
    }
}

mod describe;
mod members;
#[cfg(test)]
mod tests;
