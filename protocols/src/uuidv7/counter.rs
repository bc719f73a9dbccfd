//! The heart of a UUIDv7 generator, with no clock and no I/O: given the current Unix
//! millisecond and a source of random words, the next UUID — or why none may be issued now.
//!
//! RFC 9562 §5.7 fills the 74 free bits with random data, or, for monotonicity within a
//! millisecond, with a counter on top and random data below (§6.2, "Fixed Bit-Length
//! Dedicated Counter", Method 1). The counter is seeded at random at each new millisecond with
//! its top bit clear (§6.2, "Counter Rollover Guards"), so a millisecond always has room for at
//! least half the counter's range, and incremented within it. What happens when it runs out
//! (`Overflow`) and when the clock reads a millisecond before the last UUID's (`ClockBack`)
//! are the knobs: §6.2 ("Counter Rollover Handling", "Monotonic Error Checking") recommends
//! waiting for the clock, allows running the timestamp ahead of it, and allows reusing the
//! last timestamp and counting on; the wrong variants wrap the counter or take the clock's
//! earlier millisecond as it is.

use super::uuid::{FREE_BITS, Uuid};

/// What to do when the counter has no value left in its millisecond.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// Freeze the counter and wait for the next millisecond (§6.2's general guidance).
    Wait,
    /// Move the timestamp one millisecond ahead of the clock and seed the counter again.
    Advance,
    /// Wrong: the counter wraps to 0 in the same millisecond, below the UUIDs just issued.
    Wrap,
}

/// What to do when the clock reads a millisecond before the last UUID's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ClockBack {
    /// Hold the requests until the clock is back at the last UUID's millisecond.
    Wait,
    /// Reuse the last UUID's timestamp and count on (§6.2, "Monotonic Error Checking").
    Keep,
    /// Wrong for order: use the clock's earlier millisecond as it is.
    Ignore,
}

/// How a generator fills the free bits and what it does when it cannot count on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The counter's width, on top of the free bits (0: random data only, §5.7's default).
    pub counter_bits: u32,
    /// How many of the bits below the counter are drawn at random (the rest stay 0): a
    /// narrow tail makes a collision likely, to show the checkers catch it.
    pub random_bits: u32,
    pub overflow: Overflow,
    pub clock_back: ClockBack,
}

/// Why this UUID is the one it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Made {
    /// The first of a millisecond, or the next count in it.
    Plain,
    /// The clock read `clock_ms`, before the last UUID's: its timestamp was reused.
    KeptTimestamp { clock_ms: u64 },
    /// The counter ran out: the timestamp runs ahead of the clock's `clock_ms`.
    Advanced { clock_ms: u64 },
    /// The counter ran out and wrapped to 0 in the same millisecond.
    Wrapped,
    /// The clock went back from `last_ms` and was used as it is.
    Behind { last_ms: u64 },
}

/// The answer for one request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Next {
    Issue {
        uuid: Uuid,
        counter: u64,
        made: Made,
    },
    /// The clock is behind the last UUID's `last_ms` (`ClockBack::Wait`).
    Behind {
        last_ms: u64,
    },
    /// The counter has no value left in `ms` (`Overflow::Wait`).
    Exhausted {
        ms: u64,
    },
}

/// The last UUID's millisecond and counter: the state RFC 9562 §6.2 keeps between calls.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Counter {
    last_ms: Option<u64>,
    counter: u64,
}

impl Counter {
    /// The next UUID at Unix millisecond `now_ms`; `draw` gives uniform random 64-bit words.
    pub fn next(&mut self, policy: &Policy, now_ms: u64, draw: &mut impl FnMut() -> u64) -> Next {
        match self.last_ms {
            Some(last_ms) if now_ms == last_ms => self.count_on(policy, last_ms, Made::Plain, now_ms, draw),
            Some(last_ms) if now_ms < last_ms => match policy.clock_back {
                ClockBack::Wait => Next::Behind { last_ms },
                ClockBack::Keep => {
                    let made = Made::KeptTimestamp { clock_ms: now_ms };
                    self.count_on(policy, last_ms, made, now_ms, draw)
                }
                ClockBack::Ignore => self.start(policy, now_ms, Made::Behind { last_ms }, draw),
            },
            _ => self.start(policy, now_ms, Made::Plain, draw),
        }
    }

    /// The next count in `ms`, or the overflow policy's answer when there is none.
    fn count_on(&mut self, p: &Policy, ms: u64, made: Made, now_ms: u64, draw: &mut impl FnMut() -> u64) -> Next {
        if p.counter_bits == 0 {
            // Random data only: nothing to count, the tail alone tells the UUIDs apart.
            return self.issue(p, ms, made, draw);
        }
        if self.counter < max_counter(p.counter_bits) {
            self.counter += 1;
            return self.issue(p, ms, made, draw);
        }
        match p.overflow {
            Overflow::Wait => Next::Exhausted { ms },
            Overflow::Advance => self.start(p, ms + 1, Made::Advanced { clock_ms: now_ms }, draw),
            Overflow::Wrap => {
                self.counter = 0;
                self.issue(p, ms, Made::Wrapped, draw)
            }
        }
    }

    /// The first UUID of millisecond `ms`: the counter seeded at random, top bit clear.
    fn start(&mut self, p: &Policy, ms: u64, made: Made, draw: &mut impl FnMut() -> u64) -> Next {
        self.last_ms = Some(ms);
        self.counter = match p.counter_bits {
            0 | 1 => 0,
            bits => draw() & (max_counter(bits) >> 1),
        };
        self.issue(p, ms, made, draw)
    }

    fn issue(&self, p: &Policy, ms: u64, made: Made, draw: &mut impl FnMut() -> u64) -> Next {
        let wide = (u128::from(draw()) << 64) | u128::from(draw());
        let tail = wide & ((1u128 << p.random_bits) - 1);
        let free = (u128::from(self.counter) << (FREE_BITS - p.counter_bits)) | tail;
        Next::Issue {
            uuid: Uuid::v7(ms, free),
            counter: self.counter,
            made,
        }
    }
}

/// The largest value a counter of `bits` holds.
fn max_counter(bits: u32) -> u64 {
    (1u64 << bits) - 1
}

#[cfg(test)]
mod tests;
