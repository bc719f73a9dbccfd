//! What the ZooKeeper world records: the lock world's facts (so the generic checkers judge it)
//! plus what only ZooKeeper has — sessions opened and expired, the client's connection state, a
//! waiter queueing behind its predecessor, a watch notification.

use locksim_sim::check::count;
use locksim_sim::{Names, Observation, Salience};
use serde::Serialize;

use super::msg::short_name;
use crate::lock::obs::{Text, short_lease};
use crate::lock::{AsLock, LockObs};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ZkObs {
    Lock(LockObs),
    Zk(ZkEvent),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ZkEvent {
    /// A client's session is open, with the timeout the server negotiated.
    SessionStarted { session: u64, timeout_ms: u64 },
    /// The client's connection state changed (Curator's names): `suspended` when it has heard
    /// nothing from its server for the read timeout (2/3 of the session timeout),
    /// `reconnected` when the server answers again, `lost` when it is told its session expired.
    Connection { state: Text },
    /// A waiter's node sits behind `behind`; it watches that node (or, watching the parent,
    /// the whole lock path).
    Queued { mine: String, behind: String },
    /// A watch notification reached the client: `what` is ZooKeeper's event type.
    WatchFired { what: Text, path: String },
    /// The leader expired a session on its own clock and deleted its ephemeral nodes.
    SessionExpired { session: u64, nodes: u32 },
}

pub const CLIENT_EVENTS: &[&str] = &[
    "session_started",
    "connection",
    "acquire_started",
    "queued",
    "watch_fired",
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
    "key_deleted",
    "key_expired",
    "token_issued",
    "role_changed",
    "session_expired",
];

impl From<LockObs> for ZkObs {
    fn from(o: LockObs) -> Self {
        ZkObs::Lock(o)
    }
}

impl From<ZkEvent> for ZkObs {
    fn from(e: ZkEvent) -> Self {
        ZkObs::Zk(e)
    }
}

impl AsLock for ZkObs {
    fn as_lock(&self) -> Option<&LockObs> {
        match self {
            ZkObs::Lock(o) => Some(o),
            ZkObs::Zk(_) => None,
        }
    }
}

impl Observation for ZkObs {
    fn kind(&self) -> &'static str {
        match self {
            ZkObs::Lock(o) => o.kind(),
            ZkObs::Zk(e) => match e {
                ZkEvent::SessionStarted { .. } => "session_started",
                ZkEvent::Connection { .. } => "connection",
                ZkEvent::Queued { .. } => "queued",
                ZkEvent::WatchFired { .. } => "watch_fired",
                ZkEvent::SessionExpired { .. } => "session_expired",
            },
        }
    }

    fn salience(&self) -> Salience {
        match self {
            // The lowest node changing hands is the recipe working, not an alarm.
            ZkObs::Lock(LockObs::KeySet { .. }) => Salience::Routine,
            ZkObs::Lock(o) => o.salience(),
            ZkObs::Zk(ZkEvent::SessionStarted { .. } | ZkEvent::Queued { .. } | ZkEvent::WatchFired { .. }) => {
                Salience::Routine
            }
            ZkObs::Zk(_) => Salience::Salient,
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            // A lock node has no expiry of its own: it lasts as long as its session.
            ZkObs::Lock(LockObs::KeySet { lease, .. }) => {
                format!("lock node of lease {} is the lowest: it holds", short_lease(*lease))
            }
            ZkObs::Lock(o) => o.describe(names),
            ZkObs::Zk(e) => match e {
                ZkEvent::SessionStarted { session, timeout_ms } => {
                    format!("session {session:#x} open, timeout {timeout_ms} ms")
                }
                ZkEvent::Connection { state } => format!("connection {}", state.to_uppercase()),
                ZkEvent::Queued { mine, behind } => {
                    format!("queued: {} waits for {}", short_name(mine), short_name(behind))
                }
                ZkEvent::WatchFired { what, path } => {
                    format!(
                        "watch fired: {what} {}",
                        short_name(path.rsplit('/').next().unwrap_or(path))
                    )
                }
                ZkEvent::SessionExpired { session, nodes } => format!(
                    "SESSION {session:#x} EXPIRED (leader's clock): {} deleted",
                    count(*nodes as usize, "ephemeral node")
                ),
            },
        }
    }
}
