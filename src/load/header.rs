//! The top level of a scenario file: its own keys (`name`, `description`, `seed`,
//! `duration_ms`, `twins`) and its sections with their docs, read by the loader and printed
//! by `locksim list` from the same calls, so the two cannot drift apart.

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs};

use super::MAX_DURATION_MS;
use super::scenario_name;

/// The top-level keys that are not tables or arrays of them.
pub(super) struct Header {
    pub(super) name: String,
    pub(super) description: String,
    pub(super) seed: u64,
    pub(super) duration_ms: u64,
}

/// Reads the top-level keys that are not sections (`twins` aside, read after them), in the
/// order errors are reported; run in documenting mode, it is what `locksim list` prints.
pub(super) fn read_header(top: &mut Knobs) -> Result<Header, KnobError> {
    let name = top.text(
        "name",
        "",
        "the scenario's name (required): a plain file name; the file's stem in the catalogue",
    )?;
    if let Some(problem) = scenario_name::problem(&name).filter(|_| top.has("name")) {
        return Err(top.error("name", problem));
    }
    Ok(Header {
        name,
        description: top.text("description", "", "what happens, in a sentence or two")?,
        seed: top.uint("seed", 0, 0, u64::MAX, "the seed used when `--seed` is not given")?,
        duration_ms: top.uint("duration_ms", 60_000, 1, MAX_DURATION_MS, "simulated time to run")?,
    })
}

/// Documents the top-level keys and sections for `locksim list`: the header's keys as
/// [`read_header`] reads them, then `twins` and each section with the doc [`read`] gives it.
pub fn top_level_docs(k: &mut Knobs) {
    let _ = read_header(k);
    for (key, doc) in SECTIONS {
        let values = if [CLOCK_DOC, FAULT_DOC].contains(&doc) {
            "array of tables"
        } else {
            "table"
        };
        k.raw(key, values, doc);
    }
    let _ = read_twins(k);
}

pub(super) const PROTOCOL_DOC: &str = "the protocol model (`kind`) and its knobs";
pub(super) const RESOURCE_DOC: &str = "the protected resource";
pub(super) const NETWORK_DOC: &str = "link latency and reordering";
pub(super) const CLOCK_DOC: &str = "per-node clocks ([[clock]], one table per node)";
pub(super) const FAULT_DOC: &str = "the fault plan ([[fault]], one table per entry)";
pub(super) const EXPECT_DOC: &str = "expected verdicts: invariant id = \"held\" | \"violated\" | \"not_applicable\"";
pub(super) const EXPLORE_DOC: &str = "the fault space `locksim explore` draws plans from";

/// The sections of a scenario file, in the order the loader reads them.
const SECTIONS: [(&str, &str); 7] = [
    ("protocol", PROTOCOL_DOC),
    ("resource", RESOURCE_DOC),
    ("network", NETWORK_DOC),
    ("clock", CLOCK_DOC),
    ("fault", FAULT_DOC),
    ("expect", EXPECT_DOC),
    ("explore", EXPLORE_DOC),
];

/// `twins`: the names of the catalogue scenarios that tell the same story without the
/// protection.
pub(super) fn read_twins(top: &mut Knobs) -> Result<Vec<String>, KnobError> {
    match top.raw(
        "twins",
        "array of scenario names",
        "catalogue twins: the same story without the protection",
    ) {
        None => Ok(Vec::new()),
        Some(KnobValue::List(items)) => items
            .into_iter()
            .map(|item| match item.value {
                KnobValue::Str(name) => Ok(name),
                other => Err(top.error("twins", format!("must list scenario names, not {}", other.type_name()))),
            })
            .collect(),
        Some(other) => Err(top.error(
            "twins",
            format!("must be an array of scenario names, not {}", other.type_name()),
        )),
    }
}
