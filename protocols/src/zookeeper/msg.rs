//! What the ZooKeeper world's nodes say: a client's session and recipe requests to the leader
//! and their answers, watch notifications, the leader's proposals and the followers' acks, and
//! the fenced resource's requests.

use std::fmt;

use super::tree::{EventType, SessionId, Zxid};
use crate::lock::obs::short_lease;
use crate::lock::resource::{ResourceOp, ResourceReply};

/// The lock's parent node: the recipe's children live under it.
pub const LOCK_PATH: &str = "/locks/l";

/// The path prefix of a lock node of acquisition `lease`: Curator's protected mode puts the
/// client's id in the name (`_c_<id>-lock-`), so a client that lost the answer to its create
/// can find its node among the children rather than create a second one.
pub fn node_prefix(lease: u64) -> String {
    format!("{LOCK_PATH}/_c_{lease:016x}-lock-")
}

/// A lock node's sequence number and the acquisition it belongs to, from its name.
pub fn parse_child(name: &str) -> Option<(u32, u64)> {
    let rest = name.strip_prefix("_c_")?;
    let (lease, seq) = rest.split_once("-lock-")?;
    Some((seq.parse().ok()?, u64::from_str_radix(lease, 16).ok()?))
}

/// A request a client's session makes of the leader. Each touches the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Create an ephemeral sequential node `node_prefix(lease)`.
    Create { lease: u64 },
    /// `getChildren(LOCK_PATH, watch)`.
    Children { watch: bool },
    /// `exists(LOCK_PATH/name, watch)`.
    Exists { name: String, watch: bool },
    /// `delete(LOCK_PATH/name)`.
    Delete { name: String },
}

/// The leader's answer to an [`Op`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Created {
        name: String,
        czxid: Zxid,
    },
    Children {
        names: Vec<String>,
    },
    /// The node's `czxid` if it exists.
    Exists {
        czxid: Option<Zxid>,
    },
    /// Deleted, or already gone: the release is done either way.
    Deleted,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// Open a session (`session: None`) or reconnect to one.
    Connect {
        session: Option<SessionId>,
        timeout_ms: u64,
    },
    /// The session is live, with the timeout the server negotiated.
    Connected {
        session: SessionId,
        timeout_ms: u64,
        epoch: u32,
    },
    /// The session is expired (or closed): the client must start a new one.
    Expired {
        session: SessionId,
    },
    Ping {
        session: SessionId,
    },
    /// The answer to a ping, with what a TCP connection would let the client notice: the
    /// leader's epoch (a new one: the server restarted and the connection was reset) and how
    /// many watch notifications it has sent on this connection (more than arrived: the stream
    /// broke, since TCP loses nothing silently).
    Pong {
        epoch: u32,
        notified: u64,
    },
    Request {
        req: u64,
        session: SessionId,
        op: Op,
    },
    Answer {
        req: u64,
        answer: Answer,
    },
    /// A one-shot watch fired.
    Watch {
        kind: EventType,
        path: String,
    },
    /// Leader to followers: log this transaction.
    Propose {
        zxid: Zxid,
    },
    /// Follower to leader: logged.
    Ack {
        zxid: Zxid,
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

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Create { lease } => write!(f, "create -e -s {LOCK_PATH}/_c_{}..-lock-", short_lease(*lease)),
            Op::Children { watch: false } => write!(f, "ls {LOCK_PATH}"),
            Op::Children { watch: true } => write!(f, "ls -w {LOCK_PATH}"),
            Op::Exists { name, watch: true } => write!(f, "stat -w {}", short_name(name)),
            Op::Exists { name, watch: false } => write!(f, "stat {}", short_name(name)),
            Op::Delete { name } => write!(f, "delete {}", short_name(name)),
        }
    }
}

/// A lock node's name shown short: its acquisition and its sequence number.
pub fn short_name(name: &str) -> String {
    match parse_child(name) {
        Some((seq, lease)) => format!("{}#{seq}", short_lease(lease)),
        None => name.to_string(),
    }
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Created { name, czxid } => write!(f, "created {} czxid {czxid:#x}", short_name(name)),
            Answer::Children { names } => {
                let names: Vec<String> = names.iter().map(|n| short_name(n)).collect();
                write!(f, "[{}]", names.join(", "))
            }
            Answer::Exists { czxid: Some(z) } => write!(f, "exists, czxid {z:#x}"),
            Answer::Exists { czxid: None } => f.write_str("no node"),
            Answer::Deleted => f.write_str("deleted"),
        }
    }
}

impl fmt::Display for Msg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Msg::Connect {
                session: None,
                timeout_ms,
            } => write!(f, "Connect (new session, {timeout_ms} ms)"),
            Msg::Connect {
                session: Some(s),
                timeout_ms,
            } => write!(f, "Connect session {s:#x} ({timeout_ms} ms)"),
            Msg::Connected {
                session,
                timeout_ms,
                epoch,
            } => write!(f, "Connected session {session:#x}, {timeout_ms} ms (epoch {epoch})"),
            Msg::Expired { session } => write!(f, "SESSION {session:#x} EXPIRED"),
            Msg::Ping { session } => write!(f, "ping {session:#x}"),
            Msg::Pong { epoch, notified } => write!(f, "pong (epoch {epoch}, {notified} notified)"),
            Msg::Request { req, op, .. } => write!(f, "#{req} {op}"),
            Msg::Answer { req, answer } => write!(f, "#{req} {answer}"),
            Msg::Watch { kind, path } => write!(
                f,
                "WATCH {kind:?} {}",
                short_name(path.rsplit('/').next().unwrap_or(path))
            ),
            Msg::Propose { zxid } => write!(f, "PROPOSAL {zxid:#x}"),
            Msg::Ack { zxid } => write!(f, "ACK {zxid:#x}"),
            Msg::Resource { req, op } => write!(f, "#{req} {op}"),
            Msg::ResourceReply { req, reply } => write!(f, "#{req} {reply}"),
        }
    }
}
