//! What the etcd world records: the lock world's facts (so the generic checkers judge it) plus
//! what only etcd has — leases granted and expired, a waiter queueing behind its predecessor,
//! a watch firing, a leader elected.

use locksim_sim::check::count;
use locksim_sim::{Names, NodeId, Observation, Salience};
use serde::Serialize;

use crate::lock::obs::short_lease;
use crate::lock::{AsLock, LockObs};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum EtcdObs {
    Lock(LockObs),
    Etcd(EtcdEvent),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EtcdEvent {
    /// A client's lease was granted.
    LeaseGranted { lease: u64, ttl_ms: i64 },
    /// A client learned its lease is gone (keep-alive answered TTL -1).
    LeaseLost { lease: u64 },
    /// A waiter's key sits behind the key created at `behind_rev`; it watches that key.
    Queued { my_rev: i64, behind_rev: i64 },
    /// The watched predecessor was deleted.
    WatchFired,
    /// The leader's lessor expired a lease and deleted its keys, in one revision.
    LeaseExpired { lease: u64, keys: u32, revision: i64 },
    /// This leader applied the first entry of its term and promoted its lessor: every live
    /// lease now runs until now + election timeout + TTL (etcd `lessor.Promote`).
    LeaderElected { term: u64, leases_extended: u32 },
    /// A counter write's transaction found the writer's lock key gone (or re-created): nothing
    /// was written. The event a fault can follow is `write_refused`, as at a fenced resource.
    CompareFailed { client: NodeId, lock_rev: i64 },
}

pub const CLIENT_EVENTS: &[&str] = &[
    "acquire_started",
    "lease_granted",
    "queued",
    "watch_fired",
    "lease_lost",
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
    "lease_expired",
    "leader_elected",
    "write_applied",
    "write_refused",
];

impl From<LockObs> for EtcdObs {
    fn from(o: LockObs) -> Self {
        EtcdObs::Lock(o)
    }
}

impl From<EtcdEvent> for EtcdObs {
    fn from(e: EtcdEvent) -> Self {
        EtcdObs::Etcd(e)
    }
}

impl AsLock for EtcdObs {
    fn as_lock(&self) -> Option<&LockObs> {
        match self {
            EtcdObs::Lock(o) => Some(o),
            EtcdObs::Etcd(_) => None,
        }
    }
}

impl Observation for EtcdObs {
    fn kind(&self) -> &'static str {
        match self {
            EtcdObs::Lock(o) => o.kind(),
            EtcdObs::Etcd(e) => match e {
                EtcdEvent::LeaseGranted { .. } => "lease_granted",
                EtcdEvent::LeaseLost { .. } => "lease_lost",
                EtcdEvent::Queued { .. } => "queued",
                EtcdEvent::WatchFired => "watch_fired",
                EtcdEvent::LeaseExpired { .. } => "lease_expired",
                EtcdEvent::LeaderElected { .. } => "leader_elected",
                EtcdEvent::CompareFailed { .. } => "write_refused",
            },
        }
    }

    fn salience(&self) -> Salience {
        match self {
            EtcdObs::Lock(o) => o.salience(),
            EtcdObs::Etcd(EtcdEvent::LeaseGranted { .. } | EtcdEvent::WatchFired | EtcdEvent::Queued { .. }) => {
                Salience::Routine
            }
            EtcdObs::Etcd(_) => Salience::Salient,
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            EtcdObs::Lock(o) => o.describe(names),
            EtcdObs::Etcd(e) => match e {
                EtcdEvent::LeaseGranted { lease, ttl_ms } => {
                    format!("lease {} granted, TTL {ttl_ms} ms", short_lease(*lease))
                }
                EtcdEvent::LeaseLost { lease } => format!("LEASE {} GONE (keep-alive: TTL -1)", short_lease(*lease)),
                EtcdEvent::Queued { my_rev, behind_rev } => {
                    format!("queued: my key at rev {my_rev} waits for the key at rev {behind_rev}")
                }
                EtcdEvent::WatchFired => "watch fired: the predecessor is gone".into(),
                EtcdEvent::LeaseExpired { lease, keys, revision } => format!(
                    "LEASE {} EXPIRED (leader's monotonic clock): {} deleted at rev {revision}",
                    short_lease(*lease),
                    count(*keys as usize, "key")
                ),
                EtcdEvent::LeaderElected { term, leases_extended } => {
                    format!(
                        "LEADER for term {term}; {} extended to now + election timeout + TTL",
                        count(*leases_extended as usize, "lease")
                    )
                }
                EtcdEvent::CompareFailed { client, lock_rev } => format!(
                    "REJECTED counter write from {}: its lock key (rev {lock_rev}) is gone, the transaction's compare failed",
                    names.of(*client)
                ),
            },
        }
    }
}
