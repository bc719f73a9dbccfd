//! etcd's v3 key-value semantics over an in-memory MVCC store: a global revision that every
//! write (or write transaction) advances by one, keys carrying `create_revision`,
//! `mod_revision` and `version`, transactions with compares, and leases whose revocation
//! deletes every attached key in a single revision. Pure: no node, no clock. Replication,
//! lease expiry and watches live in the server; the conformance test drives this against a
//! real etcd.

use std::collections::{BTreeMap, BTreeSet};

/// A key's stored state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyValue {
    pub key: String,
    pub value: String,
    pub create_revision: i64,
    pub mod_revision: i64,
    pub version: i64,
    /// The lease the key is attached to (0: none).
    pub lease: i64,
}

/// What a compare looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    CreateRevision(i64),
    ModRevision(i64),
    Version(i64),
    Value(String),
}

/// How a compare compares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Equal,
    NotEqual,
    Greater,
    Less,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compare {
    pub key: String,
    pub op: CmpOp,
    pub target: Target,
}

/// Which end of a range to return first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Order {
    ByKey,
    /// Oldest `create_revision` first (`WithFirstCreate`).
    FirstCreate,
    /// Newest `create_revision` first (`WithLastCreate`).
    LastCreate,
}

/// A range read: one key, or every key under `key` as a prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    pub key: String,
    pub prefix: bool,
    /// Only keys created at or before this revision (`WithMaxCreateRev`; 0: any).
    pub max_create_revision: i64,
    pub order: Order,
    /// At most this many (0: all).
    pub limit: usize,
}

impl Range {
    pub fn key(key: impl Into<String>) -> Self {
        Range {
            key: key.into(),
            prefix: false,
            max_create_revision: 0,
            order: Order::ByKey,
            limit: 0,
        }
    }

    pub fn prefix(key: impl Into<String>, order: Order, max_create_revision: i64, limit: usize) -> Self {
        Range {
            key: key.into(),
            prefix: true,
            max_create_revision,
            order,
            limit,
        }
    }
}

/// One operation of a transaction branch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Put { key: String, value: String, lease: i64 },
    Delete { key: String },
    Range(Range),
}

/// What one operation returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpResult {
    Put,
    /// How many keys it deleted.
    Delete(i64),
    Range(Vec<KeyValue>),
}

/// A refused request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KvError {
    LeaseNotFound,
    LeaseExists,
    /// A transaction branch puts a key twice, or puts a key it also deletes (etcd: "duplicate
    /// key given in txn request").
    DuplicateKey,
}

/// The result of a transaction: which branch ran, its results, and the store's revision after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxnResult {
    pub succeeded: bool,
    pub results: Vec<OpResult>,
    pub revision: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Lease {
    ttl_ms: i64,
    keys: BTreeSet<String>,
}

/// The store. A new cluster is at revision 1, as etcd's is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kv {
    revision: i64,
    keys: BTreeMap<String, KeyValue>,
    leases: BTreeMap<i64, Lease>,
}

impl Default for Kv {
    fn default() -> Self {
        Kv {
            revision: 1,
            keys: BTreeMap::new(),
            leases: BTreeMap::new(),
        }
    }
}

impl Kv {
    pub fn revision(&self) -> i64 {
        self.revision
    }

    pub fn get(&self, key: &str) -> Option<&KeyValue> {
        self.keys.get(key)
    }

    /// The TTL a lease was granted with, if it exists.
    pub fn lease_ttl_ms(&self, id: i64) -> Option<i64> {
        self.leases.get(&id).map(|l| l.ttl_ms)
    }

    pub fn lease_ids(&self) -> impl Iterator<Item = i64> + '_ {
        self.leases.keys().copied()
    }

    /// `PUT`: one revision.
    pub fn put(&mut self, key: &str, value: &str, lease: i64) -> Result<i64, KvError> {
        self.txn(
            &[],
            &[Op::Put {
                key: key.into(),
                value: value.into(),
                lease,
            }],
            &[],
        )
        .map(|r| r.revision)
    }

    /// `DELETE`: how many keys it deleted, and the revision after (unchanged if none).
    pub fn delete(&mut self, key: &str) -> (i64, i64) {
        let r = self
            .txn(&[], &[Op::Delete { key: key.into() }], &[])
            .expect("a delete cannot fail");
        match r.results[0] {
            OpResult::Delete(n) => (n, r.revision),
            _ => unreachable!("a delete returns a delete result"),
        }
    }

    /// The keys `r` asks for. Selected, ordered and limited by reference and cloned last: a
    /// lock's waiters each ask for the one key before theirs among a thousand contenders.
    pub fn range(&self, r: &Range) -> Vec<KeyValue> {
        let mut kvs: Vec<&KeyValue> = if r.prefix {
            self.keys
                .range(r.key.clone()..)
                .take_while(|(k, _)| k.starts_with(&r.key))
                .map(|(_, kv)| kv)
                .collect()
        } else {
            self.keys.get(&r.key).into_iter().collect()
        };
        if r.max_create_revision > 0 {
            kvs.retain(|kv| kv.create_revision <= r.max_create_revision);
        }
        match r.order {
            Order::ByKey => {}
            Order::FirstCreate => kvs.sort_by_key(|kv| kv.create_revision),
            Order::LastCreate => kvs.sort_by_key(|kv| std::cmp::Reverse(kv.create_revision)),
        }
        if r.limit > 0 {
            kvs.truncate(r.limit);
        }
        kvs.into_iter().cloned().collect()
    }

    fn compare(&self, c: &Compare) -> bool {
        let kv = self.keys.get(&c.key);
        let ord = match &c.target {
            // A missing key has create, mod revision and version 0 and no value.
            Target::CreateRevision(v) => kv.map_or(0, |k| k.create_revision).cmp(v),
            Target::ModRevision(v) => kv.map_or(0, |k| k.mod_revision).cmp(v),
            Target::Version(v) => kv.map_or(0, |k| k.version).cmp(v),
            Target::Value(v) => match kv {
                Some(k) => k.value.as_str().cmp(v.as_str()),
                None => return false,
            },
        };
        match c.op {
            CmpOp::Equal => ord.is_eq(),
            CmpOp::NotEqual => ord.is_ne(),
            CmpOp::Greater => ord.is_gt(),
            CmpOp::Less => ord.is_lt(),
        }
    }

    /// `TXN`: runs `success` if every compare holds, else `failure`. All its writes share one
    /// new revision; a transaction that writes nothing leaves the revision alone. A put naming
    /// a lease that does not exist fails the whole transaction, as etcd does. Like etcd's API
    /// layer, it refuses a branch that writes one key twice before it looks at the compares, so
    /// a transaction is refused for the branch it would not have taken too.
    pub fn txn(&mut self, compares: &[Compare], success: &[Op], failure: &[Op]) -> Result<TxnResult, KvError> {
        Self::check_no_overlap(success)?;
        Self::check_no_overlap(failure)?;
        let succeeded = compares.iter().all(|c| self.compare(c));
        let ops = if succeeded { success } else { failure };
        for op in ops {
            if let Op::Put { lease, .. } = op
                && *lease != 0
                && !self.leases.contains_key(lease)
            {
                return Err(KvError::LeaseNotFound);
            }
        }
        let writes = ops.iter().any(|op| match op {
            Op::Put { .. } => true,
            Op::Delete { key } => self.keys.contains_key(key),
            Op::Range(_) => false,
        });
        let rev = if writes { self.revision + 1 } else { self.revision };
        let mut results = Vec::with_capacity(ops.len());
        for op in ops {
            results.push(match op {
                Op::Put { key, value, lease } => {
                    self.put_at(key, value, *lease, rev);
                    OpResult::Put
                }
                Op::Delete { key } => OpResult::Delete(i64::from(self.remove(key))),
                Op::Range(r) => OpResult::Range(self.range(r)),
            });
        }
        self.revision = rev;
        Ok(TxnResult {
            succeeded,
            results,
            revision: rev,
        })
    }

    /// etcd's `checkIntervals`: within one branch a key is put at most once and never both put
    /// and deleted; deleting a key twice is allowed (the second delete finds nothing).
    fn check_no_overlap(ops: &[Op]) -> Result<(), KvError> {
        let deleted: BTreeSet<&str> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Delete { key } => Some(key.as_str()),
                _ => None,
            })
            .collect();
        let mut put = BTreeSet::new();
        for op in ops {
            if let Op::Put { key, .. } = op
                && (deleted.contains(key.as_str()) || !put.insert(key.as_str()))
            {
                return Err(KvError::DuplicateKey);
            }
        }
        Ok(())
    }

    fn put_at(&mut self, key: &str, value: &str, lease: i64, rev: i64) {
        let (create_revision, version, old_lease) = match self.keys.get(key) {
            Some(old) => (old.create_revision, old.version + 1, old.lease),
            None => (rev, 1, 0),
        };
        if old_lease != 0
            && old_lease != lease
            && let Some(l) = self.leases.get_mut(&old_lease)
        {
            l.keys.remove(key);
        }
        if lease != 0 {
            self.leases
                .get_mut(&lease)
                .expect("checked")
                .keys
                .insert(key.to_string());
        }
        self.keys.insert(
            key.to_string(),
            KeyValue {
                key: key.to_string(),
                value: value.to_string(),
                create_revision,
                mod_revision: rev,
                version,
                lease,
            },
        );
    }

    fn remove(&mut self, key: &str) -> bool {
        match self.keys.remove(key) {
            Some(old) => {
                if let Some(l) = self.leases.get_mut(&old.lease) {
                    l.keys.remove(key);
                }
                true
            }
            None => false,
        }
    }

    /// `LEASE GRANT` with a client-chosen ID (etcd allows it).
    pub fn lease_grant(&mut self, id: i64, ttl_ms: i64) -> Result<(), KvError> {
        if self.leases.contains_key(&id) {
            return Err(KvError::LeaseExists);
        }
        self.leases.insert(
            id,
            Lease {
                ttl_ms,
                keys: BTreeSet::new(),
            },
        );
        Ok(())
    }

    /// `LEASE REVOKE` (also what an expiry does): deletes every attached key in one revision.
    /// Returns the deleted keys and the revision after.
    pub fn lease_revoke(&mut self, id: i64) -> Result<(Vec<String>, i64), KvError> {
        let lease = self.leases.remove(&id).ok_or(KvError::LeaseNotFound)?;
        let keys: Vec<String> = lease.keys.into_iter().collect();
        if !keys.is_empty() {
            self.revision += 1;
            for key in &keys {
                self.keys.remove(key);
            }
        }
        Ok((keys, self.revision))
    }
}

#[cfg(test)]
mod tests;
