//! How the server learns that a client's host is gone. A process that exits has its kernel
//! close the connection (the server reads end-of-file at once); a host that crashed or was cut
//! off sends nothing, and the server, idle on the socket, notices only through TCP keepalive:
//! after `tcp_keepalives_idle` without traffic it probes every `tcp_keepalives_interval`, and
//! after `tcp_keepalives_count` unanswered probes it drops the connection, ending the session
//! and what it held — an advisory lock, an open transaction's row lock. PostgreSQL's defaults
//! (0) take the operating system's: on Linux 7200 s, 75 s and 9 probes, 2 h 11 min 15 s in all
//! (PostgreSQL 15 manual, 20.3.1 "Connection Settings"; Linux `tcp(7)`).
//! `client_connection_check_interval` (PostgreSQL 14+) checks only while a query runs, and no
//! statement of this model runs long, so it is not modelled.
//!
//! Only a client whose session holds something is watched (bounded by the clients). A probe
//! is answered by the client's kernel: for its current connection with an ACK, for one it
//! closed with a reset, which ends the session at once. The model answers from the client
//! node, so a paused process (whose kernel would still ACK) answers only when it resumes: a
//! keepalive tuned shorter than a pause ends that session too.

use std::collections::BTreeMap;

use locksim_sim::{NodeId, TimerTag};

/// The server's keepalive timer for client `c` is `FIRST_TAG + c`.
const FIRST_TAG: TimerTag = 1;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KeepaliveConfig {
    pub idle_ns: u64,
    pub interval_ns: u64,
    pub count: u32,
}

/// Linux's defaults, which PostgreSQL's `tcp_keepalives_* = 0` take.
pub const LINUX_DEFAULTS: KeepaliveConfig = KeepaliveConfig {
    idle_ns: 7_200 * 1_000_000_000,
    interval_ns: 75 * 1_000_000_000,
    count: 9,
};

/// One watched client: the session whose connection is watched, when the server last heard
/// from the client (its monotonic clock), and the probes sent since.
#[derive(Copy, Clone, Debug)]
struct Watch {
    session: u64,
    heard_mono_ns: u64,
    missed: u32,
}

/// What a keepalive timer asks of the server.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Due {
    /// Set this timer again after this long.
    Rearm(TimerTag, u64),
    /// Send a probe to the client for this session, and set the timer after the interval.
    Probe(NodeId, u64, TimerTag, u64),
    /// Enough probes went unanswered: the connection of this session is dropped.
    Dead(NodeId, u64),
    /// Nothing is watched for this client any more.
    Idle,
}

pub struct Keepalive {
    cfg: KeepaliveConfig,
    watched: BTreeMap<NodeId, Watch>,
}

impl Keepalive {
    pub fn new(cfg: KeepaliveConfig) -> Self {
        Keepalive {
            cfg,
            watched: BTreeMap::new(),
        }
    }

    pub fn tag_of(client: NodeId) -> TimerTag {
        FIRST_TAG + client.0
    }

    fn client_of(tag: TimerTag) -> Option<NodeId> {
        tag.checked_sub(FIRST_TAG).map(NodeId)
    }

    /// Starts watching `client`'s `session`, which now holds something; the timer to set, if
    /// that connection was not watched yet.
    pub fn watch(&mut self, client: NodeId, session: u64, now_mono_ns: u64) -> Option<(TimerTag, u64)> {
        if self.watched.get(&client).is_some_and(|w| w.session == session) {
            return None;
        }
        let w = Watch {
            session,
            heard_mono_ns: now_mono_ns,
            missed: 0,
        };
        self.watched.insert(client, w);
        Some((Self::tag_of(client), self.cfg.idle_ns))
    }

    /// Anything from `client` on `session`'s connection (a probe's ACK too) is traffic on it;
    /// the client's other connections are not.
    pub fn heard(&mut self, client: NodeId, session: u64, now_mono_ns: u64) {
        if let Some(w) = self.watched.get_mut(&client).filter(|w| w.session == session) {
            w.heard_mono_ns = now_mono_ns;
            w.missed = 0;
        }
    }

    /// Whether `tag` is a keepalive timer.
    pub fn is_keepalive(tag: TimerTag) -> bool {
        tag >= FIRST_TAG
    }

    /// A keepalive timer fired; `holds` says whether a client's session still holds anything
    /// (one that holds nothing is no longer watched).
    pub fn due(&mut self, tag: TimerTag, now_mono_ns: u64, holds: impl Fn(NodeId, u64) -> bool) -> Due {
        let Some(client) = Self::client_of(tag) else {
            return Due::Idle;
        };
        let Some(w) = self.watched.get_mut(&client) else {
            return Due::Idle;
        };
        if !holds(client, w.session) {
            self.watched.remove(&client);
            return Due::Idle;
        }
        let quiet_ns = now_mono_ns.saturating_sub(w.heard_mono_ns);
        if w.missed == 0 && quiet_ns < self.cfg.idle_ns {
            return Due::Rearm(tag, self.cfg.idle_ns - quiet_ns);
        }
        if w.missed >= self.cfg.count {
            let session = w.session;
            self.watched.remove(&client);
            return Due::Dead(client, session);
        }
        w.missed += 1;
        Due::Probe(client, w.session, tag, self.cfg.interval_ns)
    }

    pub fn clear(&mut self) {
        self.watched.clear();
    }
}
