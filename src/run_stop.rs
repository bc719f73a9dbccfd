//! What to tell someone whose run stopped short (the engine's [`Stop`]): the cause, in the
//! scenario's own terms. A run that stalls at one instant is made so by knobs that let a step
//! take no simulated time; the engine knows no knob, so the scenario's text is searched for
//! the time knobs set to zero, and each is named with its line.

use locksim_sim::{DEFAULT_MAX_EVENTS, Stop};
use toml::de::DeTable;

use crate::load::LoadedScenario;
use crate::load::toml_entries::{Lines, table_entries};
use locksim_protocols::knobs::{KnobEntry, KnobValue};

/// The error for a run of `loaded` that stopped: the file, which run (`seed 3`), the cause and
/// what to change.
pub fn explain(loaded: &LoadedScenario, run: &str, stop: Stop) -> String {
    let advice = match stop {
        Stop::Stalled { .. } => {
            let zeros = zero_time_knobs(&loaded.source);
            if zeros.is_empty() {
                "; no time knob of its [protocol] or [network] is 0 ms: many faults at one instant, or a model \
                 that acts again without time passing, can do this"
                    .to_string()
            } else {
                format!(
                    "; the scenario sets {}: with no simulated time per step, a node can loop without time passing",
                    zeros.join(", ")
                )
            }
        }
        Stop::OverBudget { .. } => format!(
            "; raise it with --max-events N (the default is {DEFAULT_MAX_EVENTS}) if the run is meant to be this long"
        ),
    };
    format!("{}: {run}: {stop}{advice}", loaded.file)
}

/// The `[protocol]` and `[network]` knobs (and `[[network.link]]` items) in milliseconds that
/// `source` sets to 0, as `protocol.work_ms = 0 (line 7)`.
fn zero_time_knobs(source: &str) -> Vec<String> {
    let lines = Lines::new(source);
    let Ok(doc) = DeTable::parse(source) else {
        return Vec::new();
    };
    let Ok(entries) = table_entries(doc.get_ref(), &lines) else {
        return Vec::new();
    };
    let mut zeros = Vec::new();
    for e in entries.iter().filter(|e| e.key == "protocol" || e.key == "network") {
        collect_zeros(&e.key, &e.value, &mut zeros);
    }
    zeros
}

fn collect_zeros(path: &str, value: &KnobValue, zeros: &mut Vec<String>) {
    let items: &[KnobEntry] = match value {
        KnobValue::Table(items) | KnobValue::List(items) => items,
        _ => return,
    };
    for item in items {
        let key = if matches!(value, KnobValue::List(_)) {
            format!("{path}[{}]", item.key)
        } else {
            format!("{path}.{}", item.key)
        };
        match item.value {
            KnobValue::Int(0) if item.key.ends_with("_ms") => zeros.push(format!("{key} = 0 (line {})", item.line)),
            _ => collect_zeros(&key, &item.value, zeros),
        }
    }
}
