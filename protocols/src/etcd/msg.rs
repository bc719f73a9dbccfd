//! What etcd's nodes say to each other: client requests and their answers, lease keep-alives,
//! watches, Raft's two RPCs, and the fenced resource's requests.

use std::fmt;

use locksim_sim::NodeId;

use crate::lock::obs::short_lease;
use crate::lock::resource::{ResourceOp, ResourceReply};

/// The lock key of a lease: `/lock/l/<lease in hex>`.
pub fn lock_key(lease: i64) -> String {
    format!("/lock/l/{lease:016x}")
}

/// The counter the `etcd-txn` resource keeps in the store.
pub const COUNTER_KEY: &str = "/counter";

/// A client request, carried through the Raft log (reads too: they are linearizable).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    LeaseGrant {
        lease: i64,
        ttl_ms: i64,
    },
    LeaseRevoke {
        lease: i64,
    },
    /// The Mutex's `tryAcquire`: put my key with my lease unless it exists; answer my key's
    /// create revision and the owner's (the lowest create revision under the prefix).
    Acquire {
        lease: i64,
    },
    /// `waitDeletes`' query: the newest key created before `my_rev` (the one to wait for), and
    /// whether my own key still exists (what the fixed recipe checks).
    Predecessor {
        lease: i64,
        my_rev: i64,
    },
    ReadCounter,
    /// The seed's transaction: write the counter if my lock key still has `my_rev` as its
    /// create revision.
    WriteCounter {
        lease: i64,
        my_rev: i64,
        value: u64,
        based_on: u64,
    },
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::LeaseGrant { lease, ttl_ms } => {
                write!(f, "LeaseGrant {} ttl {ttl_ms} ms", short_lease(*lease as u64))
            }
            Request::LeaseRevoke { lease } => write!(f, "LeaseRevoke {}", short_lease(*lease as u64)),
            Request::Acquire { lease } => write!(
                f,
                "Txn(if create_rev(my key)=0 put my key {}) + get owner",
                short_lease(*lease as u64)
            ),
            Request::Predecessor { my_rev, .. } => write!(f, "Get /lock/l/ last-create max-create-rev {}", my_rev - 1),
            Request::ReadCounter => f.write_str("Get /counter"),
            Request::WriteCounter { my_rev, value, .. } => {
                write!(f, "Txn(if create_rev(my key)={my_rev} put /counter {value})")
            }
        }
    }
}

/// The answer to a [`Request`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Not the leader: ask `hint` (if it knows one).
    NotLeader {
        hint: Option<NodeId>,
    },
    /// The lease exists, with the TTL the cluster granted (never below its minimum).
    Granted {
        ttl_ms: i64,
    },
    Revoked,
    LeaseNotFound,
    Acquired {
        my_rev: i64,
        owner_rev: i64,
        revision: i64,
    },
    Predecessor {
        mine_exists: bool,
        pred: Option<(i64, i64)>,
        revision: i64,
    },
    Counter {
        value: u64,
    },
    Written {
        ok: bool,
    },
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::NotLeader { .. } => f.write_str("not the leader"),
            Answer::Granted { ttl_ms } => write!(f, "granted, TTL {ttl_ms} ms"),
            Answer::Revoked => f.write_str("revoked"),
            Answer::LeaseNotFound => f.write_str("lease not found"),
            Answer::Acquired { my_rev, owner_rev, .. } => write!(f, "my key at rev {my_rev}, owner at rev {owner_rev}"),
            Answer::Predecessor {
                pred: Some((l, rev)), ..
            } => write!(f, "wait for {} (rev {rev})", short_lease(*l as u64)),
            Answer::Predecessor { mine_exists, .. } => write!(f, "no predecessor (my key exists: {mine_exists})"),
            Answer::Counter { value } => write!(f, "counter = {value}"),
            Answer::Written { ok } => write!(f, "txn succeeded: {ok}"),
        }
    }
}

/// What a Raft log entry does when applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Commits everything before it (a new leader's first entry).
    NoOp,
    Client {
        client: NodeId,
        req: u64,
        request: Request,
    },
    /// The leader's lessor found the lease expired.
    Expire {
        lease: i64,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub term: u64,
    pub command: Command,
}

#[derive(Clone, Debug)]
pub enum Msg {
    Request {
        req: u64,
        request: Request,
    },
    Answer {
        req: u64,
        answer: Answer,
    },
    KeepAlive {
        lease: i64,
    },
    /// `ttl_ms` -1: the lease is gone.
    KeptAlive {
        lease: i64,
        ttl_ms: i64,
    },
    KeepAliveNotLeader {
        hint: Option<NodeId>,
    },
    /// Tell me when `key` is gone, judged on a store at least at `from_revision`.
    Watch {
        key: String,
        from_revision: i64,
        watch: u64,
    },
    Deleted {
        watch: u64,
    },
    Append {
        term: u64,
        prev_index: usize,
        prev_term: u64,
        entries: Vec<Entry>,
        commit: usize,
        /// The leader's monotonic clock when it sent this, echoed in the answer.
        sent_ns: u64,
    },
    Appended {
        term: u64,
        success: bool,
        match_index: usize,
        /// The answered append's `sent_ns`: the member followed the leader at that instant.
        sent_ns: u64,
    },
    Vote {
        term: u64,
        last_index: usize,
        last_term: u64,
    },
    Voted {
        term: u64,
        granted: bool,
    },
    Resource {
        req: u64,
        op: ResourceOp,
    },
    ResourceReply {
        req: u64,
        reply: ResourceReply,
    },
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Request { request, .. } => write!(f, "{request}"),
            Msg::Answer { answer, .. } => write!(f, "{answer}"),
            Msg::KeepAlive { lease } => write!(f, "LeaseKeepAlive {}", short_lease(*lease as u64)),
            Msg::KeptAlive { ttl_ms, .. } if *ttl_ms < 0 => f.write_str("lease not found (TTL -1)"),
            Msg::KeptAlive { ttl_ms, .. } => write!(f, "kept alive, TTL {ttl_ms} ms"),
            Msg::KeepAliveNotLeader { .. } => f.write_str("not the leader"),
            Msg::Watch { key, from_revision, .. } => write!(f, "Watch {key} from rev {from_revision}"),
            Msg::Deleted { .. } => f.write_str("watch: DELETE"),
            Msg::Append {
                term, entries, commit, ..
            } => {
                write!(
                    f,
                    "AppendEntries term {term}, {} entries, commit {commit}",
                    entries.len()
                )
            }
            Msg::Appended {
                success, match_index, ..
            } => write!(f, "appended: {success}, match {match_index}"),
            Msg::Vote { term, .. } => write!(f, "RequestVote term {term}"),
            Msg::Voted { granted, .. } => write!(f, "vote granted: {granted}"),
            Msg::Resource { op, .. } => write!(f, "{op}"),
            Msg::ResourceReply { reply, .. } => write!(f, "{reply}"),
        }
    }
}
