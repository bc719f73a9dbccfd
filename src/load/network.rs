//! `[network]`: default link latency, reordering, and per-link latency (`[[network.link]]`).

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs};
use locksim_sim::{Latency, NetworkConfig};

use super::topology::Topology;

/// One hour: the cap on a link's latency.
const MAX_LATENCY_MS: u64 = 3_600_000;

fn latency(k: &mut Knobs, default: (u64, u64)) -> Result<Latency, KnobError> {
    let min_ns = k.millis(
        "latency_min_ms",
        default.0,
        0,
        MAX_LATENCY_MS,
        "lowest one-way latency of a message",
    )?;
    let max_ns = k.millis(
        "latency_max_ms",
        default.1,
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
    Ok(Latency { min_ns, max_ns })
}

pub fn parse(k: &mut Knobs, topo: &Topology) -> Result<NetworkConfig, KnobError> {
    let default = latency(k, (1, 5))?;
    let reorder = k.bool(
        "reorder",
        false,
        "let messages on one link overtake each other (off: links are FIFO, as TCP)",
    )?;
    let mut links = Vec::new();
    match k.raw(
        "link",
        "array of { from, to, latency_min_ms, latency_max_ms, both_ways }",
        "per-link latency ([[network.link]]; both_ways defaults to true)",
    ) {
        None => {}
        Some(KnobValue::List(items)) => {
            for (i, item) in items.into_iter().enumerate() {
                let section = format!("network.link[{i}]");
                let KnobValue::Table(entries) = item.value else {
                    return Err(KnobError {
                        key: section,
                        line: Some(item.line),
                        message: "must be a table ([[network.link]])".into(),
                    });
                };
                let mut lk = Knobs::new(section, Some(item.line), entries);
                let from = topo.node(&mut lk, "from", "one end")?;
                let to = topo.node(&mut lk, "to", "the other end")?;
                let ns_ms = |ns: u64| ns / 1_000_000;
                let l = latency(&mut lk, (ns_ms(default.min_ns), ns_ms(default.max_ns)))?;
                let both_ways = lk.bool("both_ways", true, "the same latency from `to` back to `from`")?;
                lk.finish()?;
                links.push((from, to, l));
                if both_ways {
                    links.push((to, from, l));
                }
            }
        }
        Some(other) => {
            return Err(k.error(
                "link",
                format!(
                    "must be an array of tables ([[network.link]]), not {}",
                    other.type_name()
                ),
            ));
        }
    }
    Ok(NetworkConfig {
        latency: default,
        links,
        reorder,
    })
}
