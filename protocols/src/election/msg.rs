//! The election world's wire: Raft's RequestVote and AppendEntries (Ongaro & Ousterhout, "In
//! Search of an Understandable Consensus Algorithm", figure 2) between servers, a register's
//! reads and writes between clients and servers, the bully algorithm's ELECTION, OK and
//! COORDINATOR (seed 004, 9.5.1), and the leader's writes to the external resource.

use std::fmt;

/// One log entry: a leader's no-op (appended on election, so it can commit an entry of its
/// own term) or a client's register write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub term: u64,
    /// The value written; `None`: the leader's no-op.
    pub value: Option<u64>,
}

/// A client's operation on the register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegOp {
    Read,
    Write(u64),
}

#[derive(Clone, Debug)]
pub enum Msg {
    Vote {
        term: u64,
        last_index: u64,
        last_term: u64,
    },
    Voted {
        term: u64,
        granted: bool,
    },
    /// Entries from `prev_index + 1` (none: a heartbeat). `round` numbers the leader's
    /// broadcasts, so an answer says which round it acknowledges (ReadIndex and the lease
    /// count rounds acknowledged by a majority).
    Append {
        term: u64,
        prev_index: u64,
        prev_term: u64,
        entries: Vec<Entry>,
        commit: u64,
        round: u64,
    },
    /// `ok`: the follower's log now matches up to `matched`; otherwise `matched` is its last
    /// index (where the leader should look for agreement).
    Appended {
        term: u64,
        ok: bool,
        matched: u64,
        round: u64,
    },
    Request {
        req: u64,
        op: RegOp,
    },
    /// The operation's answer: a read's value (`None`: never written), or a write's success.
    Reply {
        req: u64,
        value: Option<u64>,
    },
    /// Not served here: try `hint` (the leader this server knows, if any).
    NotLeader {
        req: u64,
        hint: Option<usize>,
    },
    /// Bully: "I am electing; are you, a higher id, alive?" Every bully message carries the
    /// sender's coordinator epoch, so a coordinator learns when a newer one was announced.
    Election {
        epoch: u64,
    },
    /// Bully's OK: a higher id is alive and takes the election over.
    Answer {
        epoch: u64,
    },
    /// Bully: the sender is coordinator of `epoch` (announced on winning, then repeated every
    /// heartbeat as its sign of life).
    Coordinator {
        epoch: u64,
    },
    /// A leader on an external lease: a candidate asks the store for the key.
    KeyAcquire,
    /// The key's holder renews its lease of `epoch`.
    KeyRenew {
        epoch: u64,
    },
    /// The key is the asker's, as `epoch`, for the store's TTL from now.
    KeyGranted {
        epoch: u64,
    },
    /// Held by another, or (a renewal) no longer the asker's.
    KeyRefused,
    /// The leader's write to the external resource, carrying its term (the epoch a fenced
    /// resource checks).
    Act {
        term: u64,
        seq: u64,
    },
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Vote {
                term,
                last_index,
                last_term,
            } => write!(f, "RequestVote term {term} (log {last_index}@{last_term})"),
            Msg::Voted { term, granted } => {
                write!(f, "vote {} (term {term})", if *granted { "granted" } else { "refused" })
            }
            Msg::Append {
                term,
                prev_index,
                entries,
                commit,
                round,
                ..
            } => write!(
                f,
                "AppendEntries term {term} after {prev_index} +{} commit {commit} round {round}",
                entries.len()
            ),
            Msg::Appended { term, ok, matched, .. } => {
                write!(
                    f,
                    "append {} at {matched} (term {term})",
                    if *ok { "ok" } else { "refused" }
                )
            }
            Msg::Request { op: RegOp::Read, .. } => f.write_str("READ"),
            Msg::Request {
                op: RegOp::Write(v), ..
            } => write!(f, "WRITE {v}"),
            Msg::Reply { value: Some(v), .. } => write!(f, "-> {v}"),
            Msg::Reply { value: None, .. } => f.write_str("-> nil"),
            Msg::NotLeader { hint: Some(h), .. } => write!(f, "not leader (try server-{h})"),
            Msg::NotLeader { hint: None, .. } => f.write_str("not leader"),
            Msg::Election { epoch } => write!(f, "ELECTION (epoch {epoch})"),
            Msg::Answer { epoch } => write!(f, "OK (epoch {epoch})"),
            Msg::Coordinator { epoch } => write!(f, "COORDINATOR of epoch {epoch}"),
            Msg::KeyAcquire => f.write_str("ACQUIRE the leader key"),
            Msg::KeyRenew { epoch } => write!(f, "RENEW the leader key (epoch {epoch})"),
            Msg::KeyGranted { epoch } => write!(f, "key granted (epoch {epoch})"),
            Msg::KeyRefused => f.write_str("key refused"),
            Msg::Act { term, seq } => write!(f, "ACT #{seq} as leader of term {term}"),
        }
    }
}
