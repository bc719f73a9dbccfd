//! Redis command semantics over an in-memory keyspace: pure, no node, no time source of its
//! own — the caller passes the server's clock reading. Keys expire lazily on access (every
//! command treats an expired key as absent); the server adds active expiry on top.

use locksim_sim::time::SIGNED_NS_PER_MS;

use super::cmd::{Cmd, Key, Reply, Value};

/// A key's value and its expiry instant on the server's clock (ns).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub value: Value,
    pub expires_at_ns: Option<i64>,
}

/// The keyspace: one cell per [`Key`], in key order (`Lock`, `Fence`), which is the order a
/// sorted map would visit them. A fixed table rather than a map because the server scans it
/// for expiry on every command; with two keys that scan is two loads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Store {
    entries: [Option<Entry>; 2],
}

/// Every key, in the table's order.
const KEYS: [Key; 2] = [Key::Lock, Key::Fence];

/// The table cell of `key` (exhaustive: a new key must get a cell).
fn cell(key: Key) -> usize {
    match key {
        Key::Lock => 0,
        Key::Fence => 1,
    }
}

/// Redis keeps a key alive while its clock still reads the expiry instant and expires it only
/// after (`if (now <= when) return 0` in `keyIsExpired`).
fn is_expired(e: &Entry, now_ns: i64) -> bool {
    e.expires_at_ns.is_some_and(|at| at < now_ns)
}

/// Redis's answer to `SET ... PX 0` (it checks the expire time before `NX`), also from a
/// script's `SET`.
const BAD_SET_EXPIRE: &str = "ERR invalid expire time in 'set' command";

impl Store {
    pub fn get(&self, key: Key) -> Option<&Entry> {
        self.entries[cell(key)].as_ref()
    }

    /// Puts `entry` at `key` as it is (a replica applying its primary's stream), or removes it.
    pub fn put(&mut self, key: Key, entry: Option<Entry>) {
        self.entries[cell(key)] = entry;
    }

    fn remove(&mut self, key: Key) {
        self.entries[cell(key)] = None;
    }

    /// Removes every key whose expiry has passed at `now_ns`, reporting each, in key order.
    pub fn purge_expired(&mut self, now_ns: i64, mut expired: impl FnMut(Key, Entry)) {
        for key in KEYS {
            let slot = &mut self.entries[cell(key)];
            if let Some(entry) = *slot
                && is_expired(&entry, now_ns)
            {
                *slot = None;
                expired(key, entry);
            }
        }
    }

    /// The earliest expiry of any key.
    pub fn earliest_expiry(&self) -> Option<i64> {
        self.entries.iter().flatten().filter_map(|e| e.expires_at_ns).min()
    }

    /// The live entry at `key`: an expired one counts as absent (and is dropped).
    fn live(&mut self, key: Key, now_ns: i64) -> Option<Entry> {
        let slot = &mut self.entries[cell(key)];
        match slot {
            Some(e) if is_expired(e, now_ns) => {
                *slot = None;
                None
            }
            other => *other,
        }
    }

    fn set(&mut self, key: Key, value: Value, expires_at_ns: Option<i64>) {
        self.entries[cell(key)] = Some(Entry { value, expires_at_ns });
    }

    /// Runs one command at server time `now_ns`.
    pub fn exec(&mut self, cmd: Cmd, now_ns: i64) -> Reply {
        match cmd {
            Cmd::SetNxPx { key, value, px_ms } => {
                if px_ms == 0 {
                    return Reply::Error(BAD_SET_EXPIRE);
                }
                if self.live(key, now_ns).is_some() {
                    return Reply::Nil;
                }
                self.set(key, value, Some(now_ns + px_ms as i64 * SIGNED_NS_PER_MS));
                Reply::Ok
            }
            Cmd::SetNx { key, value } => {
                if self.live(key, now_ns).is_some() {
                    return Reply::Int(0);
                }
                self.set(key, value, None);
                Reply::Int(1)
            }
            Cmd::PExpire { key, ms } => match self.live(key, now_ns) {
                None => Reply::Int(0),
                Some(e) => {
                    self.set(key, e.value, Some(now_ns + ms as i64 * SIGNED_NS_PER_MS));
                    Reply::Int(1)
                }
            },
            Cmd::Get { key } => self.live(key, now_ns).map_or(Reply::Nil, |e| Reply::Bulk(e.value)),
            Cmd::Del { key } => {
                let existed = self.live(key, now_ns).is_some();
                self.remove(key);
                Reply::Int(i64::from(existed))
            }
            Cmd::Incr { key } => self.incr(key, now_ns),
            Cmd::Pttl { key } => self.pttl(key, now_ns),
            Cmd::DelIfEq { key, value } => match self.live(key, now_ns) {
                Some(e) if e.value == value => {
                    self.remove(key);
                    Reply::Int(1)
                }
                _ => Reply::Int(0),
            },
            Cmd::PExpireIfEq { key, value, ms } => match self.live(key, now_ns) {
                Some(e) if e.value == value => self.exec(Cmd::PExpire { key, ms }, now_ns),
                _ => Reply::Int(0),
            },
            Cmd::AcquireWithToken {
                key,
                value,
                px_ms,
                fence,
            } => self.acquire_with_token(key, value, px_ms, fence, now_ns),
        }
    }

    /// `PTTL`: -2 for a missing key, -1 for one without a TTL, else the milliseconds left,
    /// rounded to the nearest.
    fn pttl(&mut self, key: Key, now_ns: i64) -> Reply {
        match self.live(key, now_ns) {
            None => Reply::Int(-2),
            Some(Entry {
                expires_at_ns: None, ..
            }) => Reply::Int(-1),
            Some(Entry {
                expires_at_ns: Some(at),
                ..
            }) => Reply::Int((at - now_ns + SIGNED_NS_PER_MS / 2) / SIGNED_NS_PER_MS),
        }
    }

    /// The acquire script: `SET key value NX [PX ms]`, and only when it set the key, `INCR fence`.
    fn acquire_with_token(&mut self, key: Key, value: Value, px_ms: Option<u64>, fence: Key, now_ns: i64) -> Reply {
        if px_ms == Some(0) {
            return Reply::Error(BAD_SET_EXPIRE);
        }
        if self.live(key, now_ns).is_some() {
            return Reply::Nil;
        }
        self.set(key, value, px_ms.map(|ms| now_ns + ms as i64 * SIGNED_NS_PER_MS));
        self.incr(fence, now_ns)
    }

    fn incr(&mut self, key: Key, now_ns: i64) -> Reply {
        match self.live(key, now_ns) {
            None => {
                self.set(key, Value::Int(1), None);
                Reply::Int(1)
            }
            Some(Entry {
                value: Value::Int(n),
                expires_at_ns,
            }) => match n.checked_add(1) {
                Some(next) => {
                    self.set(key, Value::Int(next), expires_at_ns);
                    Reply::Int(next)
                }
                None => Reply::Error("ERR increment or decrement would overflow"),
            },
            Some(_) => Reply::Error("ERR value is not an integer or out of range"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;
    const A: Value = Value::Lease(0xaaaa << 48);
    const B: Value = Value::Lease(0xbbbb << 48);

    #[test]
    fn set_nx_px_grants_once_until_expiry() {
        let mut s = Store::default();
        let set = |value| Cmd::SetNxPx {
            key: Key::Lock,
            value,
            px_ms: 10_000,
        };
        assert_eq!(s.exec(set(A), 0), Reply::Ok);
        assert_eq!(s.exec(set(B), 9 * S), Reply::Nil);
        assert_eq!(s.exec(Cmd::Pttl { key: Key::Lock }, 9 * S), Reply::Int(1000));
        assert_eq!(s.exec(set(B), 10 * S), Reply::Nil, "still alive at the deadline itself");
        assert_eq!(s.exec(set(B), 10 * S + 1), Reply::Ok, "expired just after it");
        assert_eq!(s.exec(Cmd::Get { key: Key::Lock }, 10 * S + 1), Reply::Bulk(B));
    }

    #[test]
    fn compare_and_delete_spares_the_next_holder_plain_del_does_not() {
        let mut s = Store::default();
        s.exec(
            Cmd::SetNxPx {
                key: Key::Lock,
                value: B,
                px_ms: 10_000,
            },
            0,
        );
        assert_eq!(
            s.exec(
                Cmd::DelIfEq {
                    key: Key::Lock,
                    value: A
                },
                S
            ),
            Reply::Int(0)
        );
        assert_eq!(s.exec(Cmd::Get { key: Key::Lock }, S), Reply::Bulk(B));
        assert_eq!(s.exec(Cmd::Del { key: Key::Lock }, S), Reply::Int(1));
        assert_eq!(s.exec(Cmd::Get { key: Key::Lock }, S), Reply::Nil);
    }

    #[test]
    fn setnx_leaves_no_ttl_and_pttl_says_so() {
        let mut s = Store::default();
        assert_eq!(
            s.exec(
                Cmd::SetNx {
                    key: Key::Lock,
                    value: A
                },
                0
            ),
            Reply::Int(1)
        );
        assert_eq!(s.exec(Cmd::Pttl { key: Key::Lock }, 1000 * S), Reply::Int(-1));
        assert_eq!(s.exec(Cmd::Pttl { key: Key::Fence }, 0), Reply::Int(-2));
    }

    #[test]
    fn checked_renew_only_extends_own_key() {
        let mut s = Store::default();
        s.exec(
            Cmd::SetNxPx {
                key: Key::Lock,
                value: B,
                px_ms: 10_000,
            },
            0,
        );
        let renew = |value| Cmd::PExpireIfEq {
            key: Key::Lock,
            value,
            ms: 10_000,
        };
        assert_eq!(s.exec(renew(A), S), Reply::Int(0));
        assert_eq!(s.exec(renew(B), S), Reply::Int(1));
        assert_eq!(s.get(Key::Lock).unwrap().expires_at_ns, Some(11 * S));
        assert_eq!(
            s.exec(
                Cmd::PExpire {
                    key: Key::Lock,
                    ms: 10_000
                },
                2 * S
            ),
            Reply::Int(1),
            "blind"
        );
    }

    #[test]
    fn incr_counts_keeps_ttl_and_refuses_strings() {
        let mut s = Store::default();
        assert_eq!(s.exec(Cmd::Incr { key: Key::Fence }, 0), Reply::Int(1));
        assert_eq!(s.exec(Cmd::Incr { key: Key::Fence }, 0), Reply::Int(2));
        s.exec(
            Cmd::SetNx {
                key: Key::Lock,
                value: A,
            },
            0,
        );
        assert!(matches!(s.exec(Cmd::Incr { key: Key::Lock }, 0), Reply::Error(_)));
        let acquire = Cmd::AcquireWithToken {
            key: Key::Lock,
            value: B,
            px_ms: Some(10),
            fence: Key::Fence,
        };
        assert_eq!(s.exec(acquire, 0), Reply::Nil);
        s.exec(Cmd::Del { key: Key::Lock }, 0);
        assert_eq!(s.exec(acquire, 0), Reply::Int(3));
    }

    #[test]
    fn px_0_is_refused_as_redis_does() {
        let mut s = Store::default();
        let set = Cmd::SetNxPx {
            key: Key::Lock,
            value: A,
            px_ms: 0,
        };
        assert!(matches!(s.exec(set, 0), Reply::Error(e) if e.starts_with("ERR invalid expire")));
        let acquire = Cmd::AcquireWithToken {
            key: Key::Lock,
            value: A,
            px_ms: Some(0),
            fence: Key::Fence,
        };
        assert!(matches!(s.exec(acquire, 0), Reply::Error(_)));
        assert_eq!(
            (s.get(Key::Lock), s.get(Key::Fence)),
            (None, None),
            "nothing set, no token taken"
        );
    }

    #[test]
    fn purge_reports_expired_keys() {
        let mut s = Store::default();
        s.exec(
            Cmd::SetNxPx {
                key: Key::Lock,
                value: A,
                px_ms: 10,
            },
            0,
        );
        let mut gone = Vec::new();
        s.purge_expired(10 * 1_000_000 + 1, |k, _| gone.push(k));
        assert_eq!(gone, [Key::Lock]);
        assert_eq!(s.earliest_expiry(), None);
    }
}
