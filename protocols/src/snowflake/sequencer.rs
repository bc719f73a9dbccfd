//! The heart of a Snowflake generator, with no clock and no I/O: given the current millisecond,
//! which sequence number comes next — or why none may. Kept pure so that the layout's promise
//! (4096 distinct, increasing IDs per millisecond, then wait for the next one) is unit-tested
//! without a simulation.
//!
//! It follows Twitter's IdWorker (seed 001): the same millisecond as the last ID takes the next
//! sequence; a later millisecond starts again at 0; an earlier one is a clock rollback, which
//! the generator's policy handles (`Behind`). When the 4096 sequence numbers of a millisecond
//! are used up, IdWorker waits for the next millisecond (`Exhausted`); the wrong variant lets
//! the 12-bit counter wrap to 0 in the same millisecond and so reissues its first IDs.

use serde::Serialize;

use super::id::SEQUENCES_PER_MS;

/// What to do with the 4097th request of a millisecond.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overflow {
    /// Issue nothing more in this millisecond; wait for the next (IdWorker's `tilNextMillis`).
    Wait,
    /// Wrong: the sequence wraps to 0 within the same millisecond (duplicates).
    Wrap,
}

/// The sequencer's answer for one request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Issue `(ms, seq)`; `wrapped` when the sequence just wrapped to 0 within `ms`.
    Issue { ms: u64, seq: u16, wrapped: bool },
    /// The clock reads a millisecond before the last ID's: a rollback.
    Behind { last_ms: u64 },
    /// All 4096 sequence numbers of `ms` are used: wait for the next millisecond.
    Exhausted { ms: u64 },
    /// `ms` is the last millisecond read back after a restart, whose sequence numbers were not
    /// saved: wait for the next millisecond rather than guess which are free.
    SequenceUnknown { ms: u64 },
}

/// The last millisecond used and the next sequence number in it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sequencer {
    last_ms: Option<u64>,
    /// `0..=SEQUENCES_PER_MS`; `SEQUENCES_PER_MS` means the millisecond is used up.
    next_seq: u16,
    /// False after a restart that restored only `last_ms`.
    seq_known: bool,
}

impl Default for Sequencer {
    fn default() -> Self {
        Self::new()
    }
}

impl Sequencer {
    /// A generator that has issued nothing (or forgot what it issued).
    pub fn new() -> Self {
        Sequencer {
            last_ms: None,
            next_seq: 0,
            seq_known: true,
        }
    }

    /// A generator restarted with its last millisecond read back from disk. Its sequence
    /// number was not saved, so that millisecond is off limits: the next ID waits for a later
    /// one rather than guess which sequence numbers it already gave out.
    pub fn restored(last_ms: u64) -> Self {
        Sequencer {
            last_ms: Some(last_ms),
            next_seq: SEQUENCES_PER_MS,
            seq_known: false,
        }
    }

    /// The millisecond of the last ID issued (what `persist_last_ms` saves).
    pub fn last_ms(&self) -> Option<u64> {
        self.last_ms
    }

    /// The next ID's fields at millisecond `now_ms`, or why there is none.
    pub fn next(&mut self, now_ms: u64, overflow: Overflow) -> Next {
        match self.last_ms {
            Some(last_ms) if now_ms < last_ms => Next::Behind { last_ms },
            Some(last_ms) if now_ms == last_ms => {
                if !self.seq_known {
                    Next::SequenceUnknown { ms: now_ms }
                } else if self.next_seq < SEQUENCES_PER_MS {
                    let seq = self.next_seq;
                    self.next_seq += 1;
                    Next::Issue {
                        ms: now_ms,
                        seq,
                        wrapped: false,
                    }
                } else if overflow == Overflow::Wrap {
                    self.next_seq = 1;
                    Next::Issue {
                        ms: now_ms,
                        seq: 0,
                        wrapped: true,
                    }
                } else {
                    Next::Exhausted { ms: now_ms }
                }
            }
            _ => self.start(now_ms),
        }
    }

    /// Issues at `now_ms` although the clock is behind (`rollback = "ignore"`): IdWorker with
    /// the rollback check taken out, which moves its last millisecond back and starts the
    /// sequence again at 0 — the IDs of that millisecond are issued a second time.
    pub fn issue_behind(&mut self, now_ms: u64) -> Next {
        self.start(now_ms)
    }

    fn start(&mut self, now_ms: u64) -> Next {
        self.last_ms = Some(now_ms);
        self.next_seq = 1;
        self.seq_known = true;
        Next::Issue {
            ms: now_ms,
            seq: 0,
            wrapped: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::id::SnowflakeId;
    use super::*;

    fn id(next: Next) -> u64 {
        match next {
            Next::Issue { ms, seq, .. } => SnowflakeId { ms, node: 7, seq }.encode(),
            other => panic!("expected an ID, got {other:?}"),
        }
    }

    /// The layout's promise: 4096 distinct, increasing IDs within one millisecond, no 4097th
    /// in it; the next millisecond starts again at sequence 0.
    #[test]
    fn issues_4096_distinct_increasing_ids_in_one_ms_then_waits_for_the_next() {
        let mut s = Sequencer::new();
        let ids: Vec<u64> = (0..4096).map(|_| id(s.next(1000, Overflow::Wait))).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
        assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 4096, "all distinct");
        assert!(ids.iter().all(|i| SnowflakeId::decode(*i).ms == 1000));
        assert_eq!(SnowflakeId::decode(ids[4095]).seq, 4095);
        // No 4097th in ms 1000, however often it is asked.
        for _ in 0..3 {
            assert_eq!(s.next(1000, Overflow::Wait), Next::Exhausted { ms: 1000 });
        }
        let next = id(s.next(1001, Overflow::Wait));
        assert_eq!(
            SnowflakeId::decode(next),
            SnowflakeId {
                ms: 1001,
                node: 7,
                seq: 0
            }
        );
        assert!(next > ids[4095]);
    }

    #[test]
    fn wrap_reissues_the_first_id_of_the_millisecond() {
        let mut s = Sequencer::new();
        let first = id(s.next(5, Overflow::Wrap));
        for _ in 1..4096 {
            s.next(5, Overflow::Wrap);
        }
        let next = s.next(5, Overflow::Wrap);
        assert_eq!(
            next,
            Next::Issue {
                ms: 5,
                seq: 0,
                wrapped: true
            }
        );
        assert_eq!(id(next), first, "the 4097th is the first again");
        assert_eq!(
            s.next(5, Overflow::Wrap),
            Next::Issue {
                ms: 5,
                seq: 1,
                wrapped: false
            }
        );
    }

    #[test]
    fn an_earlier_millisecond_is_a_rollback_until_the_clock_is_back() {
        let mut s = Sequencer::new();
        s.next(999, Overflow::Wait);
        assert_eq!(s.next(995, Overflow::Wait), Next::Behind { last_ms: 999 });
        assert_eq!(s.last_ms(), Some(999), "a refusal changes nothing");
        // Back at the last millisecond: the sequence continues where it was.
        assert_eq!(
            s.next(999, Overflow::Wait),
            Next::Issue {
                ms: 999,
                seq: 1,
                wrapped: false
            }
        );
    }

    #[test]
    fn ignoring_a_rollback_reissues_that_milliseconds_ids() {
        let mut s = Sequencer::new();
        let old = id(s.next(995, Overflow::Wait));
        s.next(999, Overflow::Wait);
        assert_eq!(s.next(995, Overflow::Wait), Next::Behind { last_ms: 999 });
        assert_eq!(id(s.issue_behind(995)), old, "ms 995 seq 0, a second time");
        assert_eq!(s.last_ms(), Some(995));
    }

    #[test]
    fn a_restored_millisecond_is_off_limits_even_when_wrapping() {
        let mut s = Sequencer::restored(999);
        assert_eq!(s.next(998, Overflow::Wait), Next::Behind { last_ms: 999 });
        assert_eq!(s.next(999, Overflow::Wait), Next::SequenceUnknown { ms: 999 });
        assert_eq!(s.next(999, Overflow::Wrap), Next::SequenceUnknown { ms: 999 });
        assert_eq!(
            s.next(1000, Overflow::Wait),
            Next::Issue {
                ms: 1000,
                seq: 0,
                wrapped: false
            }
        );
    }
}
