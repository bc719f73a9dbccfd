//! `[network]`: default link latency and reordering.

use locksim_protocols::knobs::{KnobError, Knobs};
use locksim_sim::{Latency, NetworkConfig};

/// One hour: the cap on a link's latency.
const MAX_LATENCY_MS: u64 = 3_600_000;

pub fn parse(k: &mut Knobs) -> Result<NetworkConfig, KnobError> {
    let min_ns = k.millis(
        "latency_min_ms",
        1,
        0,
        MAX_LATENCY_MS,
        "lowest one-way latency of a message",
    )?;
    let max_ns = k.millis(
        "latency_max_ms",
        5,
        0,
        MAX_LATENCY_MS,
        "highest one-way latency of a message",
    )?;
    if max_ns < min_ns {
        return Err(k.error(
            "latency_max_ms",
            format!("must be at least latency_min_ms ({} ms)", min_ns / 1_000_000),
        ));
    }
    let reorder = k.bool(
        "reorder",
        false,
        "let messages on one link overtake each other (off: links are FIFO, as TCP)",
    )?;
    Ok(NetworkConfig {
        latency: Latency { min_ns, max_ns },
        links: Vec::new(),
        reorder,
    })
}
