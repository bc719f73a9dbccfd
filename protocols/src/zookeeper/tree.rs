//! ZooKeeper's data tree as the leader applies it: znodes with the `Stat` fields the lock recipe
//! reads, sessions and their ephemeral nodes, and one-shot watches. A pure structure, so
//! `tests/conformance_zookeeper.rs` can drive it step by step beside a real server.
//!
//! What it does as ZooKeeper 3.8 does (`DataTree`, `PrepRequestProcessor`, `WatchManager`):
//! - every write transaction takes the next zxid, a failed one too (an `ErrorTxn`): session
//!   creation and closing, create, delete;
//! - a sequential node's name is the requested path plus, as ten digits (`%010d`), how many
//!   children the parent has had created — the `cversion` ZooKeeper keeps internally, which
//!   only a creation increments; the `cversion` a `Stat` reports counts deletions too (the
//!   server reports `2 x internal - children`). So a number is never handed out twice and
//!   numbers do not skip after a delete (the conformance test found this: the Recipes page's
//!   "parent's cversion" is the internal one);
//! - a watch fires once and is gone: an `exists` watch (set whether or not the node exists)
//!   fires on its creation or deletion, a `getChildren` watch on a child's creation or deletion
//!   or its own node's deletion; a watcher holding both on a deleted node is told once;
//! - closing a session (asked, or expired by the leader) drops the watches its connection set
//!   and deletes its ephemeral nodes, which fires other sessions' watches.

use std::collections::{BTreeMap, BTreeSet};

/// A session id, as the leader hands it out.
pub type SessionId = u64;
/// A transaction id: the epoch in the high 32 bits, a counter in the low.
pub type Zxid = u64;

/// The fields of a znode's `Stat` the recipe and the conformance test read.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// The zxid of the transaction that created it: the lock's fencing token.
    pub czxid: Zxid,
    pub mzxid: Zxid,
    /// The zxid that last changed its children.
    pub pzxid: Zxid,
    pub cversion: i32,
    /// The owning session of an ephemeral node, 0 otherwise.
    pub ephemeral_owner: SessionId,
    pub num_children: i32,
    pub data_length: i32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CreateMode {
    Persistent,
    Ephemeral,
    PersistentSequential,
    EphemeralSequential,
}

impl CreateMode {
    fn ephemeral(self) -> bool {
        matches!(self, CreateMode::Ephemeral | CreateMode::EphemeralSequential)
    }

    fn sequential(self) -> bool {
        matches!(self, CreateMode::PersistentSequential | CreateMode::EphemeralSequential)
    }
}

/// A request the tree refuses, with ZooKeeper's name for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ZkError {
    NoNode,
    NodeExists,
    NotEmpty,
    NoChildrenForEphemerals,
    SessionExpired,
}

/// What a watch tells its watcher.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventType {
    NodeCreated,
    NodeDeleted,
    NodeChildrenChanged,
}

/// A watch that fired: whom it tells, what, about which path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fired {
    pub watcher: SessionId,
    pub kind: EventType,
    pub path: String,
}

#[derive(Clone, Debug)]
struct Znode {
    stat: Stat,
    /// Children ever created under it: the next sequence number.
    creations: i32,
    data: Vec<u8>,
    children: BTreeSet<String>,
}

#[derive(Clone, Debug)]
pub struct Tree {
    nodes: BTreeMap<String, Znode>,
    /// Live sessions and the paths of their ephemeral nodes.
    sessions: BTreeMap<SessionId, BTreeSet<String>>,
    data_watches: BTreeMap<String, BTreeSet<SessionId>>,
    child_watches: BTreeMap<String, BTreeSet<SessionId>>,
    last_zxid: Zxid,
}

/// The parent path and the last name of `path` (`/` for a top-level node).
fn split(path: &str) -> (&str, &str) {
    match path.rfind('/') {
        Some(0) => ("/", &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => ("/", path),
    }
}

impl Tree {
    /// An empty tree (the root only) whose first transaction is zxid `epoch << 32 | 1`.
    pub fn new(epoch: u32) -> Self {
        let root = Znode {
            stat: Stat {
                czxid: 0,
                mzxid: 0,
                pzxid: 0,
                cversion: 0,
                ephemeral_owner: 0,
                num_children: 0,
                data_length: 0,
            },
            data: Vec::new(),
            children: BTreeSet::new(),
            creations: 0,
        };
        Tree {
            nodes: BTreeMap::from([("/".to_string(), root)]),
            sessions: BTreeMap::new(),
            data_watches: BTreeMap::new(),
            child_watches: BTreeMap::new(),
            last_zxid: u64::from(epoch) << 32,
        }
    }

    /// A new leader's epoch: its zxids continue above every earlier one.
    pub fn new_epoch(&mut self, epoch: u32) {
        self.last_zxid = self.last_zxid.max(u64::from(epoch) << 32);
    }

    pub fn last_zxid(&self) -> Zxid {
        self.last_zxid
    }

    fn next_zxid(&mut self) -> Zxid {
        self.last_zxid += 1;
        self.last_zxid
    }

    pub fn is_live(&self, session: SessionId) -> bool {
        self.sessions.contains_key(&session)
    }

    /// The `createSession` transaction.
    pub fn create_session(&mut self, session: SessionId) -> Zxid {
        self.sessions.insert(session, BTreeSet::new());
        self.next_zxid()
    }

    /// The `closeSession` transaction: the session's watches go, then its ephemeral nodes
    /// (in path order), each deletion firing the others' watches.
    pub fn close_session(&mut self, session: SessionId) -> (Zxid, Vec<String>, Vec<Fired>) {
        let zxid = self.next_zxid();
        for watches in [&mut self.data_watches, &mut self.child_watches] {
            for watchers in watches.values_mut() {
                watchers.remove(&session);
            }
            watches.retain(|_, w| !w.is_empty());
        }
        let ephemerals = self.sessions.remove(&session).unwrap_or_default();
        let mut fired = Vec::new();
        for path in &ephemerals {
            fired.extend(self.remove(path, zxid));
        }
        (zxid, ephemerals.into_iter().collect(), fired)
    }

    /// `create`: the node's path (with its sequence number) and stat, and the watches it fired.
    pub fn create(
        &mut self,
        path: &str,
        data: &[u8],
        mode: CreateMode,
        session: SessionId,
    ) -> Result<(String, Stat, Vec<Fired>), ZkError> {
        let zxid = self.next_zxid();
        if mode.ephemeral() && !self.is_live(session) {
            return Err(ZkError::SessionExpired);
        }
        let (parent_path, _) = split(path);
        let parent = self.nodes.get(parent_path).ok_or(ZkError::NoNode)?;
        if parent.stat.ephemeral_owner != 0 {
            return Err(ZkError::NoChildrenForEphemerals);
        }
        let path = if mode.sequential() {
            format!("{path}{:010}", parent.creations)
        } else {
            path.to_string()
        };
        if self.nodes.contains_key(&path) {
            return Err(ZkError::NodeExists);
        }
        let owner = if mode.ephemeral() { session } else { 0 };
        let stat = Stat {
            czxid: zxid,
            mzxid: zxid,
            pzxid: zxid,
            cversion: 0,
            ephemeral_owner: owner,
            num_children: 0,
            data_length: data.len() as i32,
        };
        let (parent_path, name) = split(&path);
        let parent = self.nodes.get_mut(parent_path).ok_or(ZkError::NoNode)?;
        parent.children.insert(name.to_string());
        parent.creations += 1;
        parent.stat.cversion += 1;
        parent.stat.pzxid = zxid;
        parent.stat.num_children += 1;
        let parent_path = parent_path.to_string();
        self.nodes.insert(
            path.clone(),
            Znode {
                stat,
                data: data.to_vec(),
                children: BTreeSet::new(),
                creations: 0,
            },
        );
        if owner != 0 {
            self.sessions.entry(owner).or_default().insert(path.clone());
        }
        let mut fired = self.trigger(&path, EventType::NodeCreated);
        fired.extend(self.trigger_children(&parent_path));
        Ok((path, stat, fired))
    }

    /// `delete` (any version): the watches it fired.
    pub fn delete(&mut self, path: &str) -> Result<Vec<Fired>, ZkError> {
        let zxid = self.next_zxid();
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        if !node.children.is_empty() {
            return Err(ZkError::NotEmpty);
        }
        let owner = node.stat.ephemeral_owner;
        if let Some(ephemerals) = self.sessions.get_mut(&owner) {
            ephemerals.remove(path);
        }
        Ok(self.remove(path, zxid))
    }

    /// Removes a childless node at `zxid` and fires its watches and its parent's.
    fn remove(&mut self, path: &str, zxid: Zxid) -> Vec<Fired> {
        self.nodes.remove(path);
        let (parent_path, name) = split(path);
        if let Some(parent) = self.nodes.get_mut(parent_path) {
            parent.children.remove(name);
            parent.stat.cversion += 1;
            parent.stat.pzxid = zxid;
            parent.stat.num_children -= 1;
        }
        let mut fired = self.trigger(path, EventType::NodeDeleted);
        let told: BTreeSet<SessionId> = fired.iter().map(|f| f.watcher).collect();
        if let Some(watchers) = self.child_watches.remove(path) {
            fired.extend(watchers.difference(&told).map(|&watcher| Fired {
                watcher,
                kind: EventType::NodeDeleted,
                path: path.to_string(),
            }));
        }
        fired.extend(self.trigger_children(parent_path));
        fired
    }

    /// Fires and forgets the data watches on `path`.
    fn trigger(&mut self, path: &str, kind: EventType) -> Vec<Fired> {
        let watchers = self.data_watches.remove(path).unwrap_or_default();
        watchers
            .into_iter()
            .map(|watcher| Fired {
                watcher,
                kind,
                path: path.to_string(),
            })
            .collect()
    }

    fn trigger_children(&mut self, parent: &str) -> Vec<Fired> {
        let watchers = self.child_watches.remove(parent).unwrap_or_default();
        watchers
            .into_iter()
            .map(|watcher| Fired {
                watcher,
                kind: EventType::NodeChildrenChanged,
                path: parent.to_string(),
            })
            .collect()
    }

    /// `exists`, setting a watch for `watcher` if given — on a missing node too (it fires on
    /// the node's creation).
    pub fn exists(&mut self, path: &str, watcher: Option<SessionId>) -> Option<Stat> {
        if let Some(w) = watcher {
            self.data_watches.entry(path.to_string()).or_default().insert(w);
        }
        self.nodes.get(path).map(|n| n.stat)
    }

    /// `getChildren`, in name order, setting a child watch for `watcher` if the node exists.
    pub fn children(&mut self, path: &str, watcher: Option<SessionId>) -> Result<Vec<String>, ZkError> {
        let node = self.nodes.get(path).ok_or(ZkError::NoNode)?;
        let names = node.children.iter().cloned().collect();
        if let Some(w) = watcher {
            self.child_watches.entry(path.to_string()).or_default().insert(w);
        }
        Ok(names)
    }

    /// A node's data, if it exists.
    pub fn data(&self, path: &str) -> Option<&[u8]> {
        self.nodes.get(path).map(|n| n.data.as_slice())
    }

    /// Every node but the root, in path order, with its stat: what the conformance test
    /// compares after each step.
    pub fn dump(&self) -> Vec<(String, Stat)> {
        self.nodes
            .iter()
            .filter(|(p, _)| p.as_str() != "/")
            .map(|(p, n)| (p.clone(), n.stat))
            .collect()
    }

    /// Drops every watch: a server that restarts has none (they live in its memory, not in
    /// its log; clients set them again when they reconnect).
    pub fn forget_watches(&mut self) {
        self.data_watches.clear();
        self.child_watches.clear();
    }
}

#[cfg(test)]
mod tests;
