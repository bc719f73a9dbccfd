//! The transactions clients opened before their reads (`begin = "before-read"`), each with
//! its start on the server's clock: what `now()` returns inside it (PostgreSQL 15 manual,
//! 9.9.5 "Current Date/Time": the start time of the current transaction). One per client: a
//! client that reconnects leaves its old transaction to a backend whose statements never come
//! again, holding no row (only a guard locks the row, and a guard's transaction is the
//! server's row lock), so forgetting it changes no answer.

use std::collections::BTreeMap;

use locksim_sim::NodeId;

#[derive(Default)]
pub struct Begun {
    by_client: BTreeMap<NodeId, (u64, i64)>,
}

impl Begun {
    /// `client` opened a transaction on `session` at `start_ns` (the server's wall clock).
    pub fn begin(&mut self, client: NodeId, session: u64, start_ns: i64) {
        self.by_client.insert(client, (session, start_ns));
    }

    /// The start of the transaction open on `client`'s `session`, if one is.
    pub fn start_of(&self, client: NodeId, session: u64) -> Option<i64> {
        match self.by_client.get(&client) {
            Some(&(s, start_ns)) if s == session => Some(start_ns),
            _ => None,
        }
    }

    /// The transaction on `client`'s `session` ended.
    pub fn end(&mut self, client: NodeId, session: u64) {
        if self.start_of(client, session).is_some() {
            self.by_client.remove(&client);
        }
    }

    /// A crash ends them all.
    pub fn clear(&mut self) {
        self.by_client.clear();
    }
}
