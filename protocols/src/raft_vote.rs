//! Raft's vote rules (paper section 5.2 and 5.4.1), shared by the two models that run Raft —
//! the election model's servers and etcd's members — so that the rule one leader per term
//! rests on is written once: a server grants one vote per term, never while it leads, and
//! only to a candidate whose log is at least as up to date as its own (the log restriction);
//! a candidate with a majority of votes leads. What each model adds around it (CheckQuorum's
//! refusal while a leader is heard, randomised or ranked timeouts, what winning starts) stays
//! in the model.

/// A log's last entry as RequestVote compares logs: its term, then its index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LastEntry {
    pub term: u64,
    pub index: u64,
}

/// What a server knows when a RequestVote of `term` arrives, after stepping up to `term` if
/// it was higher.
#[derive(Copy, Clone, Debug)]
pub struct Voter {
    pub term: u64,
    pub leading: bool,
    pub voted_for: Option<usize>,
    pub last: LastEntry,
}

impl Voter {
    /// Whether `candidate`, campaigning in `term` with a log ending at `candidate_last`, gets
    /// this server's vote. A candidate of this term voted for itself, so it grants no other.
    pub fn grants(&self, candidate: usize, term: u64, candidate_last: LastEntry) -> bool {
        term == self.term
            && !self.leading
            && self.voted_for.is_none_or(|v| v == candidate)
            && candidate_last >= self.last
    }
}

/// A candidate's votes, one bit per server (so at most 64 servers).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally(u64);

impl Tally {
    /// A new campaign: the candidate's own vote.
    pub fn own(me: usize) -> Self {
        Tally(1 << me)
    }

    /// Counts `voter`'s vote (once, however often it arrives) and says whether the votes are
    /// now at least `majority`.
    pub fn add(&mut self, voter: usize, majority: usize) -> bool {
        self.0 |= 1 << voter;
        self.0.count_ones() as usize >= majority
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn voter(voted_for: Option<usize>, leading: bool) -> Voter {
        Voter {
            term: 3,
            leading,
            voted_for,
            last: LastEntry { term: 2, index: 5 },
        }
    }

    #[test]
    fn one_vote_per_term_to_an_up_to_date_candidate() {
        let behind = LastEntry { term: 2, index: 4 };
        let same = LastEntry { term: 2, index: 5 };
        let newer_term = LastEntry { term: 3, index: 1 };
        assert!(voter(None, false).grants(1, 3, same));
        assert!(
            voter(None, false).grants(1, 3, newer_term),
            "a later last term wins over a longer log"
        );
        assert!(!voter(None, false).grants(1, 3, behind), "the log restriction");
        assert!(voter(Some(1), false).grants(1, 3, same), "the same candidate again");
        assert!(!voter(Some(2), false).grants(1, 3, same), "one vote per term");
        assert!(!voter(None, true).grants(1, 3, same), "a leader votes for no one");
        assert!(!voter(None, false).grants(1, 2, same), "an older term");
    }

    #[test]
    fn a_majority_counts_each_voter_once() {
        let mut tally = Tally::own(0);
        assert!(!tally.add(0, 2), "its own vote again");
        assert!(tally.add(2, 2));
        let mut five = Tally::own(4);
        assert!(!five.add(1, 3) && !five.add(1, 3) && five.add(3, 3));
    }
}
