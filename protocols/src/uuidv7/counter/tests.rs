//! The counter's promises and the wrong variants' failures, without a simulation.

use super::*;

/// A fixed stream of words (a 64-bit LCG): enough to fill the random parts differently.
fn words() -> impl FnMut() -> u64 {
    let mut x = 7u64;
    move || {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        x
    }
}

fn policy(counter_bits: u32, overflow: Overflow, clock_back: ClockBack) -> Policy {
    Policy {
        counter_bits,
        random_bits: FREE_BITS - counter_bits,
        overflow,
        clock_back,
    }
}

fn issued(next: Next) -> (Uuid, u64, Made) {
    match next {
        Next::Issue { uuid, counter, made } => (uuid, counter, made),
        other => panic!("expected a UUID, got {other:?}"),
    }
}

#[test]
fn a_millisecond_counts_up_from_a_seed_with_its_top_bit_clear_then_waits() {
    let p = policy(4, Overflow::Wait, ClockBack::Keep);
    let (mut c, mut draw) = (Counter::default(), words());
    let (first, seed, _) = issued(c.next(&p, 1000, &mut draw));
    assert!(seed < 8, "the guard bit leaves at least 8 of 16 values: seed {seed}");
    let mut uuids = vec![first];
    for expected in seed + 1..16 {
        let (uuid, counter, made) = issued(c.next(&p, 1000, &mut draw));
        assert_eq!((counter, made, uuid.ms()), (expected, Made::Plain, 1000));
        uuids.push(uuid);
    }
    assert!(uuids.windows(2).all(|w| w[0] < w[1]), "strictly increasing");
    assert_eq!(c.next(&p, 1000, &mut draw), Next::Exhausted { ms: 1000 });
    assert_eq!(issued(c.next(&p, 1001, &mut draw)).0.ms(), 1001);
}

#[test]
fn on_overflow_advance_runs_ahead_of_the_clock_and_wrap_goes_below() {
    for (overflow, ms, made) in [
        (Overflow::Advance, 6, Made::Advanced { clock_ms: 5 }),
        (Overflow::Wrap, 5, Made::Wrapped),
    ] {
        let p = policy(2, overflow, ClockBack::Keep);
        let (mut c, mut draw) = (Counter::default(), words());
        let mut last = issued(c.next(&p, 5, &mut draw)).0;
        // A 2-bit counter is seeded at 0 or 1 and runs out within four UUIDs.
        let next = loop {
            let (uuid, _, made) = issued(c.next(&p, 5, &mut draw));
            if made != Made::Plain {
                break (uuid, made);
            }
            last = uuid;
        };
        assert_eq!((next.0.ms(), next.1), (ms, made), "{overflow:?}");
        assert_eq!(next.0 > last, overflow == Overflow::Advance, "{overflow:?}");
    }
}

#[test]
fn a_clock_behind_is_waited_out_kept_or_taken_as_it_is() {
    let mut draw = words();
    let ahead = |clock_back| {
        let mut c = Counter::default();
        let p = policy(12, Overflow::Wait, clock_back);
        let (last, _, _) = issued(c.next(&p, 999, &mut words()));
        (c, p, last)
    };
    let (mut c, p, _) = ahead(ClockBack::Wait);
    assert_eq!(c.next(&p, 995, &mut draw), Next::Behind { last_ms: 999 });
    let (mut c, p, last) = ahead(ClockBack::Keep);
    let (kept, counter, made) = issued(c.next(&p, 995, &mut draw));
    assert_eq!((kept.ms(), made), (999, Made::KeptTimestamp { clock_ms: 995 }));
    assert!(kept > last && counter > 0);
    let (mut c, p, last) = ahead(ClockBack::Ignore);
    let (behind, _, made) = issued(c.next(&p, 995, &mut draw));
    assert_eq!((behind.ms(), made), (995, Made::Behind { last_ms: 999 }));
    assert!(behind < last, "the UUID goes back with the clock");
}

#[test]
fn without_a_counter_or_random_bits_a_millisecond_repeats_its_uuid() {
    let mut p = policy(0, Overflow::Wait, ClockBack::Ignore);
    p.random_bits = 0;
    let (mut c, mut draw) = (Counter::default(), words());
    let a = issued(c.next(&p, 7, &mut draw)).0;
    assert_eq!(issued(c.next(&p, 7, &mut draw)).0, a);
    // With random bits, the same millisecond gives another UUID, in no particular order.
    p.random_bits = FREE_BITS;
    assert_ne!(issued(c.next(&p, 7, &mut draw)).0, issued(c.next(&p, 7, &mut draw)).0);
}

#[test]
fn the_random_tail_is_as_wide_as_configured_and_the_counter_sits_above_it() {
    let p = Policy {
        counter_bits: 12,
        random_bits: 8,
        overflow: Overflow::Wait,
        clock_back: ClockBack::Keep,
    };
    let (mut c, mut draw) = (Counter::default(), words());
    for _ in 0..50 {
        let (uuid, counter, _) = issued(c.next(&p, 3, &mut draw));
        let free = uuid.free_bits();
        assert_eq!(free >> (FREE_BITS - 12), u128::from(counter));
        assert_eq!((free & ((1 << (FREE_BITS - 12)) - 1)) >> 8, 0, "only 8 random bits");
    }
}
