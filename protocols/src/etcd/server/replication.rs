//! The replicated log: a leader appends a command and sends it to every follower, a follower
//! accepts entries that continue its log and truncates a conflicting suffix (log repair), the
//! leader commits the newest entry of its term that a majority holds — or, with
//! `commit = "leader-only"`, at once — and every member applies committed entries in order.

use locksim_sim::NodeId;

use super::{Commit, EtcdCtx, EtcdServer, Role};
use crate::etcd::kv::Kv;
use crate::etcd::msg::{Command, Entry, Msg};

impl EtcdServer {
    pub(super) fn majority(&self) -> usize {
        self.peers.len() / 2 + 1
    }

    pub(super) fn last_index(&self) -> usize {
        self.log.len()
    }

    pub(super) fn term_at(&self, index: usize) -> u64 {
        if index == 0 { 0 } else { self.log[index - 1].term }
    }

    /// Appends a command as leader, and replicates (or, leader-only, commits) it.
    pub(super) fn propose(&mut self, ctx: &mut EtcdCtx<'_>, command: Command, reply_to: Option<(NodeId, u64)>) {
        self.log.push(Entry {
            term: self.term,
            command,
        });
        let index = self.last_index();
        self.matched[self.me] = index;
        if let Some(r) = reply_to {
            self.pending.insert(index, r);
        }
        match self.cfg.commit {
            Commit::LeaderOnly => {
                self.commit = index;
                self.apply(ctx);
            }
            Commit::Majority => {
                self.send_appends(ctx);
                self.advance_commit(ctx);
            }
        }
    }

    pub(super) fn send_appends(&mut self, ctx: &mut EtcdCtx<'_>) {
        for i in 0..self.peers.len() {
            if i != self.me {
                self.send_append(ctx, i);
            }
        }
    }

    fn send_append(&mut self, ctx: &mut EtcdCtx<'_>, i: usize) {
        let prev_index = self.next[i] - 1;
        ctx.send(
            self.peers[i],
            Msg::Append {
                term: self.term,
                prev_index,
                prev_term: self.term_at(prev_index),
                entries: self.log[prev_index..].to_vec(),
                commit: self.commit,
                sent_ns: ctx.mono_ns(),
            },
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_append(
        &mut self,
        ctx: &mut EtcdCtx<'_>,
        from: NodeId,
        term: u64,
        (prev_index, prev_term): (usize, u64),
        entries: Vec<Entry>,
        commit: usize,
        sent_ns: u64,
    ) {
        let Some(leader) = self.peer_index(from) else { return };
        if term < self.term {
            return ctx.send(
                from,
                Msg::Appended {
                    term: self.term,
                    success: false,
                    match_index: 0,
                    sent_ns,
                },
            );
        }
        if term > self.term || self.role != Role::Follower {
            self.become_follower(ctx, term, Some(leader));
        } else {
            self.leader = Some(leader);
            self.reset_election(ctx);
        }
        if prev_index > self.last_index() || self.term_at(prev_index) != prev_term {
            return ctx.send(
                from,
                Msg::Appended {
                    term: self.term,
                    success: false,
                    match_index: prev_index.saturating_sub(1).min(self.last_index()),
                    sent_ns,
                },
            );
        }
        let count = entries.len();
        self.merge_entries(prev_index, entries);
        let last_new = prev_index + count;
        if commit > self.commit {
            self.commit = commit.min(last_new).max(self.commit);
        }
        self.apply(ctx);
        ctx.send(
            from,
            Msg::Appended {
                term: self.term,
                success: true,
                match_index: last_new,
                sent_ns,
            },
        );
    }

    /// Writes the leader's `entries` after `prev_index`: an entry the log already has (same
    /// term) stays, and the first conflicting one cuts the log there before the rest is added.
    fn merge_entries(&mut self, prev_index: usize, entries: Vec<Entry>) {
        for (k, entry) in entries.into_iter().enumerate() {
            let index = prev_index + 1 + k;
            if index <= self.last_index() {
                if self.log[index - 1].term == entry.term {
                    continue;
                }
                self.log.truncate(index - 1);
                if self.applied > self.last_index() {
                    // Only a leader-only commit can have applied what the new leader never had:
                    // the state is rebuilt from the log that survives.
                    self.kv = Kv::default();
                    self.applied = 0;
                    self.commit = self.commit.min(self.last_index());
                }
            }
            self.log.push(entry);
        }
    }

    pub(super) fn on_appended(
        &mut self,
        ctx: &mut EtcdCtx<'_>,
        from: NodeId,
        term: u64,
        (success, match_index): (bool, usize),
        sent_ns: u64,
    ) {
        if term > self.term {
            return self.become_follower(ctx, term, None);
        }
        let Some(i) = self.peer_index(from) else { return };
        if self.role != Role::Leader || term != self.term {
            return;
        }
        self.last_ack_ns[i] = self.last_ack_ns[i].max(sent_ns);
        if !self.followed(ctx) {
            // Answers to appends sent before a pause: a newer leader may have been elected
            // since, so this one no longer speaks for the lock (it would record late what that
            // leader already acted on).
            let term = self.term;
            return self.become_follower(ctx, term, None);
        }
        if success {
            self.matched[i] = self.matched[i].max(match_index);
            self.next[i] = self.matched[i] + 1;
            self.advance_commit(ctx);
        } else {
            self.next[i] = (match_index + 1).min(self.next[i].saturating_sub(1)).max(1);
            self.send_append(ctx, i);
        }
    }

    /// Commits the newest entry of this term that a majority has (Raft's rule: never count
    /// replicas for an older term's entry).
    fn advance_commit(&mut self, ctx: &mut EtcdCtx<'_>) {
        if self.cfg.commit != Commit::Majority {
            return;
        }
        for n in (self.commit + 1..=self.last_index()).rev() {
            if self.log[n - 1].term == self.term && self.matched.iter().filter(|m| **m >= n).count() >= self.majority()
            {
                self.commit = n;
                self.apply(ctx);
                return;
            }
        }
    }

    fn apply(&mut self, ctx: &mut EtcdCtx<'_>) {
        while self.applied < self.commit {
            self.applied += 1;
            let command = self.log[self.applied - 1].command.clone();
            self.execute(ctx, self.applied, command);
        }
        self.fire_watches(ctx);
    }
}
