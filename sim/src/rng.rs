//! Seeded randomness. One seed, one `ChaCha8Rng` per named stream (`network`, `faults`,
//! `node:client-0`, ...), selected with ChaCha's stream counter. A draw added to one stream
//! therefore never reshuffles another: a new client knob cannot change the network's
//! latencies.

pub use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{Rng, SeedableRng};

/// The stream named `name` of the run seeded with `seed`.
pub fn stream(seed: u64, name: &str) -> ChaCha8Rng {
    stream_numbered(seed, fnv1a(FNV_OFFSET, name))
}

/// The stream of the node called `name`: [`stream`] named `node:{name}`, hashed in two parts
/// rather than formatted first (a world draws one per node, per seed).
pub fn node_stream(seed: u64, name: &str) -> ChaCha8Rng {
    stream_numbered(seed, fnv1a(fnv1a(FNV_OFFSET, "node:"), name))
}

fn stream_numbered(seed: u64, number: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(number);
    rng
}

/// A uniform draw from `lo..=hi` (Lemire's multiply-shift with rejection). Written here rather
/// than taken from `rand` so that the mapping from random words to values is fixed by this
/// crate, and a dependency update can never change a trace.
///
/// Inlined: every message's latency is one draw, and the call cost as much as the draw.
#[inline]
pub fn uniform(rng: &mut ChaCha8Rng, lo: u64, hi: u64) -> u64 {
    debug_assert!(lo <= hi, "uniform({lo}, {hi})");
    let Some(span) = (hi - lo).checked_add(1) else {
        return rng.next_u64();
    };
    let wide = u128::from(rng.next_u64()) * u128::from(span);
    // The rejection threshold (2^64 mod span) is below `span`, so a low half of at least
    // `span` is accepted without computing it: Lemire's shortcut, which skips the division
    // on almost every draw and accepts exactly the draws the full test accepts.
    if (wide as u64) >= span {
        return lo + (wide >> 64) as u64;
    }
    uniform_slow(rng, lo, span, wide)
}

/// [`uniform`]'s draw whose low half fell below `span`: the full rejection test.
#[cold]
fn uniform_slow(rng: &mut ChaCha8Rng, lo: u64, span: u64, mut wide: u128) -> u64 {
    let threshold = span.wrapping_neg() % span;
    while (wide as u64) < threshold {
        wide = u128::from(rng.next_u64()) * u128::from(span);
    }
    lo + (wide >> 64) as u64
}

/// True with probability `ppm / 1_000_000`.
pub fn chance_ppm(rng: &mut ChaCha8Rng, ppm: u32) -> bool {
    ppm > 0 && uniform(rng, 0, 999_999) < u64::from(ppm)
}

/// FNV-1a's initial state.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a, 64-bit, from state `h` (`FNV_OFFSET` to start): a fixed, dependency-free hash from
/// stream names to stream numbers. Hashing a name's parts in turn gives the whole name's hash.
fn fnv1a(h: u64, text: &str) -> u64 {
    text.bytes()
        .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1: Vec<u64> = (0..4).map(|_| stream(7, "network").next_u64()).collect();
        assert!(a1.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(stream(7, "network").next_u64(), stream(7, "faults").next_u64());
        assert_ne!(stream(7, "network").next_u64(), stream(8, "network").next_u64());
    }

    #[test]
    fn uniform_stays_in_range_and_covers_it() {
        let mut rng = stream(1, "t");
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = uniform(&mut rng, 10, 14);
            assert!((10..=14).contains(&v));
            seen[(v - 10) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(uniform(&mut rng, 3, 3), 3);
        let _ = uniform(&mut rng, 0, u64::MAX);
    }

    #[test]
    fn a_node_stream_is_the_stream_of_its_full_name() {
        let mut split = node_stream(3, "client-1");
        assert_eq!(split.next_u64(), stream(3, "node:client-1").next_u64());
    }

    #[test]
    fn pinned_first_draw() {
        // Pins the stream derivation: if this changes, every committed trace changes.
        assert_eq!(uniform(&mut stream(0, "network"), 0, 999), 512);
    }
}
