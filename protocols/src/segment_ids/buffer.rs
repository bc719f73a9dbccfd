//! A process's two segments, with no clock and no I/O: Leaf's double buffer. IDs come from
//! the current segment, one after another; once a share of it is used the process asks for
//! the next, so that the allocator's round trip is hidden behind the rest of the current one;
//! when the current one runs out the next takes its place. Kept pure so that "every ID of a
//! segment once, in order, then the next segment" is unit-tested without a simulation.

use std::fmt;

use locksim_sim::pieces::Piece;
use locksim_sim::push;
use serde::Serialize;

/// The IDs `(from_exclusive, to]`: what one allocation hands out when it moves a business's
/// max from `from_exclusive` to `to`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    pub from_exclusive: u64,
    pub to: u64,
}

impl Segment {
    /// How many IDs it holds.
    pub fn ids(self) -> u64 {
        self.to - self.from_exclusive
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}]", self.from_exclusive, self.to)
    }
}

/// [`Display`](fmt::Display)'s `(from, to]` appended piece by piece: a segment's facts name it
/// in their timeline text.
impl Piece for Segment {
    fn push_to(&self, out: &mut String) {
        push!(out, "(", self.from_exclusive, ", ", self.to, "]");
    }
}

/// The segment being used and how far.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Cursor {
    segment: Segment,
    /// The next ID to issue; past `segment.to` when used up.
    next_id: u64,
}

/// What `take` gives.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Take {
    /// Issue `id`; `starts` is its segment when it is that segment's first ID.
    Id { id: u64, starts: Option<Segment> },
    /// Neither segment has an ID left: wait for one.
    Empty,
}

/// The current segment and the prefetched next one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Buffer {
    current: Option<Cursor>,
    next: Option<Segment>,
}

impl Buffer {
    /// The next ID, switching to the prefetched segment when the current one is used up.
    pub fn take(&mut self) -> Take {
        if self.current.is_none_or(|c| c.next_id > c.segment.to)
            && let Some(segment) = self.next.take()
        {
            self.current = Some(Cursor {
                segment,
                next_id: segment.from_exclusive + 1,
            });
        }
        match &mut self.current {
            Some(c) if c.next_id <= c.segment.to => {
                let id = c.next_id;
                c.next_id += 1;
                let starts = (id == c.segment.from_exclusive + 1).then_some(c.segment);
                Take::Id { id, starts }
            }
            _ => Take::Empty,
        }
    }

    /// Takes a segment the allocator handed out: the current one if there is none with IDs
    /// left, the next one otherwise.
    pub fn add(&mut self, segment: Segment) {
        match self.current {
            Some(c) if c.next_id <= c.segment.to => self.next = Some(segment),
            _ => {
                self.current = Some(Cursor {
                    segment,
                    next_id: segment.from_exclusive + 1,
                })
            }
        }
    }

    /// Whether to ask for the next segment now: none is prefetched, and the current one is
    /// used up to `at_percent` of its IDs (or there is none with IDs left).
    pub fn wants_next(&self, at_percent: u64) -> bool {
        if self.next.is_some() {
            return false;
        }
        match self.current {
            Some(c) => {
                let used = c.next_id - c.segment.from_exclusive - 1;
                used * 100 >= c.segment.ids() * at_percent
            }
            None => true,
        }
    }

    /// What a crash throws away: the current segment's IDs not issued yet, and the next.
    pub fn unused(&self) -> (Option<Segment>, Option<Segment>) {
        let rest = self.current.filter(|c| c.next_id <= c.segment.to).map(|c| Segment {
            from_exclusive: c.next_id - 1,
            to: c.segment.to,
        });
        (rest, self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(from_exclusive: u64, to: u64) -> Segment {
        Segment { from_exclusive, to }
    }

    #[test]
    fn every_id_of_a_segment_once_in_order_then_the_prefetched_one() {
        let mut b = Buffer::default();
        assert!(b.wants_next(10), "nothing to issue from");
        assert_eq!(b.take(), Take::Empty);
        b.add(seg(10_000, 10_010));
        assert_eq!(
            b.take(),
            Take::Id {
                id: 10_001,
                starts: Some(seg(10_000, 10_010))
            }
        );
        assert!(!b.wants_next(20), "1 of 10 used: below 20 %");
        assert_eq!(
            b.take(),
            Take::Id {
                id: 10_002,
                starts: None
            }
        );
        assert!(b.wants_next(20), "2 of 10 used");
        b.add(seg(10_020, 10_030));
        assert!(!b.wants_next(20), "one is prefetched already");
        let ids: Vec<Take> = (0..8).map(|_| b.take()).collect();
        assert_eq!(
            ids[7],
            Take::Id {
                id: 10_010,
                starts: None
            }
        );
        assert_eq!(
            b.take(),
            Take::Id {
                id: 10_021,
                starts: Some(seg(10_020, 10_030))
            },
            "the next segment, where the allocator put it: a gap is not a problem"
        );
    }

    #[test]
    fn a_crash_throws_away_the_rest_of_the_current_and_the_next_segment() {
        let mut b = Buffer::default();
        b.add(seg(0, 5));
        b.take();
        b.take();
        b.add(seg(5, 10));
        assert_eq!(b.unused(), (Some(seg(2, 5)), Some(seg(5, 10))));
        for _ in 0..3 {
            b.take();
        }
        assert_eq!(b.unused(), (None, Some(seg(5, 10))));
        assert_eq!(seg(2, 5).to_string(), "(2, 5]");
    }
}
