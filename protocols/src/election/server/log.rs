//! Log replication (Raft paper section 5.3 and 5.4.2): the leader sends each follower the
//! entries from where their logs agree; a follower accepts them only after the entry before
//! them matches, dropping a conflicting suffix; the leader commits an entry of its own term
//! once a majority holds it (never an older term's by counting, figure 8), and everyone applies
//! committed entries to the register in order.

use locksim_sim::NodeId;

use super::{Role, Server, ServerCtx};
use crate::election::msg::{Entry, Msg, RegOp};

/// At most this many entries per AppendEntries: a follower far behind catches up over a few
/// rounds rather than in one message the size of the log.
const MAX_BATCH: u64 = 64;

impl Server {
    /// One round of AppendEntries to every follower (a heartbeat when it has nothing new).
    pub(super) fn broadcast(&mut self, ctx: &mut ServerCtx<'_>) {
        self.round += 1;
        self.round_sent.push_back((self.round, ctx.mono_ns()));
        self.acked_round[self.me] = self.round;
        for i in 0..self.peers.len() {
            if i != self.me {
                self.send_append(ctx, i);
            }
        }
    }

    pub(super) fn send_append(&mut self, ctx: &mut ServerCtx<'_>, i: usize) {
        let prev_index = self.next[i] - 1;
        let end = self.last_index().min(prev_index + MAX_BATCH);
        let entries = self.log[prev_index as usize..end as usize].to_vec();
        let msg = Msg::Append {
            term: self.term,
            prev_index,
            prev_term: self.term_at(prev_index),
            entries,
            commit: self.commit,
            round: self.round,
        };
        ctx.send(self.peers[i], msg);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_append(
        &mut self,
        ctx: &mut ServerCtx<'_>,
        from: NodeId,
        term: u64,
        (prev_index, prev_term): (u64, u64),
        entries: Vec<Entry>,
        commit: u64,
        round: u64,
    ) {
        let Some(leader) = self.peer_index(from) else { return };
        if term < self.term {
            let reply = Msg::Appended {
                term: self.term,
                ok: false,
                matched: 0,
                round,
            };
            return ctx.send(from, reply);
        }
        self.become_follower(ctx, term, Some(leader), "saw a leader of its term");
        let matches = prev_index <= self.last_index() && self.term_at(prev_index) == prev_term;
        if !matches {
            let reply = Msg::Appended {
                term: self.term,
                ok: false,
                matched: self.last_index().min(prev_index.saturating_sub(1)),
                round,
            };
            return ctx.send(from, reply);
        }
        for (k, e) in entries.iter().enumerate() {
            let index = prev_index + 1 + k as u64;
            if index <= self.last_index() && self.term_at(index) != e.term {
                self.log.truncate(index as usize - 1);
            }
            if index > self.last_index() {
                self.log.push(*e);
            }
        }
        let matched = prev_index + entries.len() as u64;
        self.commit = self.commit.max(commit.min(matched));
        self.apply();
        let reply = Msg::Appended {
            term: self.term,
            ok: true,
            matched,
            round,
        };
        ctx.send(from, reply);
    }

    pub(super) fn on_appended(
        &mut self,
        ctx: &mut ServerCtx<'_>,
        from: NodeId,
        term: u64,
        ok: bool,
        matched: u64,
        round: u64,
    ) {
        if term > self.term {
            return self.become_follower(ctx, term, None, "saw a higher term");
        }
        let Some(i) = self.peer_index(from) else { return };
        if self.role != Role::Leader || term != self.term {
            return;
        }
        self.acked_round[i] = self.acked_round[i].max(round);
        self.last_ack_ns[i] = ctx.mono_ns();
        if ok {
            self.matched[i] = self.matched[i].max(matched);
            self.next[i] = self.matched[i] + 1;
            self.advance_commit(ctx);
            if self.next[i] <= self.last_index() {
                self.send_append(ctx, i);
            }
        } else if self.next[i] > 1 {
            self.next[i] = (self.next[i] - 1).min(matched + 1).max(1);
            self.send_append(ctx, i);
        }
        self.quorum_acked(ctx);
    }

    /// Commits the newest entry of this term that a majority holds, then answers the writes
    /// it committed (and the reads that waited for the first entry of the term).
    pub(super) fn advance_commit(&mut self, ctx: &mut ServerCtx<'_>) {
        let mut n = self.last_index();
        while n > self.commit && self.term_at(n) == self.term {
            let holders = (0..self.peers.len())
                .filter(|&i| {
                    (if i == self.me {
                        self.last_index()
                    } else {
                        self.matched[i]
                    }) >= n
                })
                .count();
            if holders >= self.majority() {
                self.commit = n;
                break;
            }
            n -= 1;
        }
        self.apply();
        let (done, waiting) = std::mem::take(&mut self.pending_writes)
            .into_iter()
            .partition(|&(index, _, _)| index <= self.commit);
        self.pending_writes = waiting;
        for (index, client, req) in done {
            let value = self.log[index as usize - 1].value;
            ctx.send(client, Msg::Reply { req, value });
        }
        self.quorum_acked(ctx);
    }

    pub(super) fn apply(&mut self) {
        while self.applied < self.commit {
            self.applied += 1;
            if let Some(v) = self.log[self.applied as usize - 1].value {
                self.value = Some(v);
            }
        }
    }

    /// Whether an entry of this leader's term is committed: until then the commit index it
    /// knows may be behind the cluster's, and no read may be served (Raft thesis 6.4).
    pub(super) fn own_term_committed(&self) -> bool {
        self.term_at(self.commit) == self.term
    }

    pub(super) fn on_write(&mut self, ctx: &mut ServerCtx<'_>, client: NodeId, req: u64, value: u64) {
        self.log.push(Entry {
            term: self.term,
            value: Some(value),
        });
        self.matched[self.me] = self.last_index();
        self.pending_writes.push((self.last_index(), client, req));
        self.advance_commit(ctx);
        self.broadcast(ctx);
    }

    pub(super) fn on_request(&mut self, ctx: &mut ServerCtx<'_>, client: NodeId, req: u64, op: RegOp) {
        if self.role != Role::Leader {
            return ctx.send(client, Msg::NotLeader { req, hint: self.leader });
        }
        match op {
            RegOp::Write(value) => self.on_write(ctx, client, req, value),
            RegOp::Read => self.on_read(ctx, client, req),
        }
    }
}
