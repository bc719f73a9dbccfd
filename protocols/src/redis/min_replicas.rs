//! `min-replicas-to-write` / `min-replicas-max-lag` (redis.conf, "REPLICATION"): a primary
//! refuses writes with `NOREPLICAS` while fewer than N of its replicas are *good*. The rule is
//! replication.c's: every replica sends `REPLCONF ACK` once a second; the primary keeps the
//! second of the last one (`repl_ack_time = server.unixtime`, its wall clock in whole
//! seconds), and a replica is good while `server.unixtime - repl_ack_time <= max_lag`. The
//! count is refreshed by the once-a-second replication cron (`refreshGoodSlavesCount`), and
//! at once when a replica comes online — so a primary cut off from its replicas notices it
//! between `max_lag` and `max_lag + 1` seconds after their last ack, and grants until then.
//!
//! What is refused (`checkGoodReplicasStatus`): a write command, before it runs — `SET NX` on
//! a key that exists included; and a script without flags (the seeds' `EVAL`) only when it
//! reaches a write call — the compare-and-delete of a key that is not ours writes nothing and
//! answers 0 as usual.

use locksim_sim::NodeId;

use super::cmd::{Cmd, Key, Reply, Value};
use super::store::Store;

/// What redis-server 7 answers a refused write.
pub const NOREPLICAS: Reply = Reply::Error("NOREPLICAS Not enough good replicas to write.");

const SECOND_NS: i64 = 1_000_000_000;

/// The two settings; either at 0 turns the check off, as in Redis.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MinReplicasConfig {
    pub to_write: u32,
    pub max_lag_s: u64,
}

impl MinReplicasConfig {
    /// Redis's defaults: `min-replicas-to-write 0` (off), `min-replicas-max-lag 10`.
    pub const OFF: MinReplicasConfig = MinReplicasConfig {
        to_write: 0,
        max_lag_s: 10,
    };

    pub fn active(&self) -> bool {
        self.to_write > 0 && self.max_lag_s > 0
    }
}

/// `server.unixtime`: the wall clock in whole seconds.
pub fn unix_s(wall_ns: i64) -> i64 {
    wall_ns.div_euclid(SECOND_NS)
}

/// A primary's view of its replicas' acks and the count of good ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoodReplicas {
    cfg: MinReplicasConfig,
    /// Each replica and the second of its last ack (`None`: not online).
    acked_s: Vec<(NodeId, Option<i64>)>,
    good: u32,
}

impl GoodReplicas {
    pub fn new(cfg: MinReplicasConfig) -> Self {
        GoodReplicas {
            cfg,
            acked_s: Vec::new(),
            good: 0,
        }
    }

    /// `replica` is online and in sync as of `now_s` (a replica put online sets its ack time).
    pub fn online(&mut self, replica: NodeId, now_s: i64) {
        match self.acked_s.iter_mut().find(|(r, _)| *r == replica) {
            Some((_, at)) => *at = Some(now_s),
            None => self.acked_s.push((replica, Some(now_s))),
        }
        self.refresh(now_s);
    }

    /// `REPLCONF ACK` from `replica`. A replica that was not online is put online, which
    /// refreshes the count; otherwise only the next cron does.
    pub fn ack(&mut self, replica: NodeId, now_s: i64) {
        match self.acked_s.iter_mut().find(|(r, _)| *r == replica) {
            Some((_, at @ Some(_))) => *at = Some(now_s),
            _ => self.online(replica, now_s),
        }
    }

    /// `refreshGoodSlavesCount`.
    pub fn refresh(&mut self, now_s: i64) {
        let max_lag_s = self.cfg.max_lag_s as i64;
        self.good = self
            .acked_s
            .iter()
            .filter(|(_, at)| at.is_some_and(|at| now_s - at <= max_lag_s))
            .count() as u32;
    }

    /// A crash drops every replica's connection: none is online until it acks again.
    pub fn forget(&mut self) {
        self.acked_s.clear();
        self.good = 0;
    }

    /// Whether writes are refused now (too few good replicas).
    pub fn refusing(&self) -> bool {
        self.cfg.active() && self.good < self.cfg.to_write
    }

    /// The refusal `cmd` gets now, if any.
    pub fn refusal(&self, cmd: Cmd, store: &Store) -> Option<Reply> {
        (self.refusing() && writes(cmd, store)).then_some(NOREPLICAS)
    }
}

/// Whether `cmd` would reach a write on `store` (already purged of expired keys): a write
/// command always; a script only past its `GET` comparison; the one-script acquire at its
/// first call, `SET`.
pub fn writes(cmd: Cmd, store: &Store) -> bool {
    let ours = |key: Key, value: Value| store.get(key).is_some_and(|e| e.value == value);
    match cmd {
        Cmd::SetNxPx { .. }
        | Cmd::SetNx { .. }
        | Cmd::PExpire { .. }
        | Cmd::Del { .. }
        | Cmd::Incr { .. }
        | Cmd::AcquireWithToken { .. } => true,
        Cmd::Get { .. } | Cmd::Pttl { .. } => false,
        Cmd::DelIfEq { key, value } | Cmd::PExpireIfEq { key, value, .. } => ours(key, value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: NodeId = NodeId(7);
    const SET: Cmd = Cmd::SetNxPx {
        key: Key::Lock,
        value: Value::Lease(1),
        px_ms: 10_000,
    };

    fn on(to_write: u32, max_lag_s: u64) -> GoodReplicas {
        GoodReplicas::new(MinReplicasConfig { to_write, max_lag_s })
    }

    #[test]
    fn a_replica_is_good_while_its_last_ack_is_at_most_max_lag_seconds_old() {
        let mut g = on(1, 10);
        let store = Store::default();
        g.online(R, 100);
        g.refresh(110);
        assert_eq!(g.refusal(SET, &store), None, "lag 10 <= 10");
        g.refresh(111);
        assert_eq!(g.refusal(SET, &store), Some(NOREPLICAS), "lag 11 > 10");
        g.ack(R, 112);
        assert_eq!(g.refusal(SET, &store), Some(NOREPLICAS), "an ack waits for the cron");
        g.refresh(112);
        assert_eq!(g.refusal(SET, &store), None);
    }

    #[test]
    fn a_replica_coming_online_counts_at_once_and_a_crash_forgets_them_all() {
        let mut g = on(1, 10);
        let store = Store::default();
        assert_eq!(g.refusal(SET, &store), Some(NOREPLICAS), "no replica yet");
        g.ack(R, 5);
        assert_eq!(g.refusal(SET, &store), None);
        g.forget();
        assert_eq!(g.refusal(SET, &store), Some(NOREPLICAS));
    }

    #[test]
    fn either_setting_at_zero_turns_the_check_off() {
        let store = Store::default();
        assert_eq!(on(0, 10).refusal(SET, &store), None);
        assert_eq!(on(1, 0).refusal(SET, &store), None);
        assert_eq!(
            on(2, 10).refusal(Cmd::Get { key: Key::Lock }, &store),
            None,
            "reads pass"
        );
    }

    #[test]
    fn a_script_is_refused_only_when_it_reaches_its_write() {
        let mut store = Store::default();
        store.exec(SET, 0);
        let unlock = |lease| Cmd::DelIfEq {
            key: Key::Lock,
            value: Value::Lease(lease),
        };
        assert!(writes(unlock(1), &store), "our key: the script calls DEL");
        assert!(!writes(unlock(2), &store), "not ours: GET, then return 0");
        assert!(
            writes(SET, &store),
            "SET NX is a write command even when the key exists"
        );
    }

    #[test]
    fn unix_seconds_floor_below_zero_too() {
        assert_eq!(unix_s(1_999_999_999), 1);
        assert_eq!(unix_s(-1), -1);
    }
}
