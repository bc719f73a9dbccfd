//! `locksim replay`: re-runs a trace's scenario and seed and says whether the events and the
//! result come out the same, or where they first differ.

use std::path::PathBuf;

use crate::trace_file;
use crate::trace_replay::{self, Difference, Replay, ReplayError};

use super::{BAD_INPUT, FAILED, OK, out};

/// Replays a trace. Every message names the trace: it, not the scenario file it was recorded
/// from, is what is being checked.
pub(super) fn replay(path: PathBuf, max_events: u64) -> u8 {
    let trace = match trace_file::read(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return BAD_INPUT;
        }
    };
    let name = path.display();
    if trace.engine != locksim_sim::ENGINE_VERSION {
        eprintln!(
            "note: {name} was recorded by engine {}, this is {}",
            trace.engine,
            locksim_sim::ENGINE_VERSION
        );
    }
    match trace_replay::replay(&trace, max_events) {
        Err(ReplayError::Trace(e)) => {
            eprintln!("error: {e}");
            BAD_INPUT
        }
        Err(ReplayError::Scenario(e)) => {
            // The text that failed is the trace's, not the file on disk it was recorded from.
            let line = e.line.map(|l| format!(", line {l}")).unwrap_or_default();
            let key = e.key.map(|k| format!(": key `{k}`")).unwrap_or_default();
            eprintln!(
                "error: {name}: the embedded scenario (recorded from {}){line}{key}: {}",
                trace.scenario_file, e.message
            );
            BAD_INPUT
        }
        Ok(Replay::Stopped { explained }) => {
            eprintln!("error: {name}: the embedded scenario stopped: {explained}");
            BAD_INPUT
        }
        Ok(Replay::Identical { events }) => {
            out(&format!(
                "identical: {name}: {events} events and the result of {} (seed {}) replayed exactly\n",
                trace.scenario_file, trace.seed
            ));
            OK
        }
        Ok(Replay::Diverged {
            index,
            recorded,
            replayed,
        }) => {
            out(&format!(
                "diverges at event #{index} of {name}\n  recorded: {}\n  replayed: {}\n",
                show(recorded),
                show(replayed)
            ));
            FAILED
        }
        Ok(Replay::ResultDiffers { differences }) => {
            out(&result_differences(&name.to_string(), differences));
            FAILED
        }
    }
}

/// What differs in the replayed result, a line per difference.
fn result_differences(name: &str, differences: Vec<Difference>) -> String {
    let mut text = format!(
        "diverges in the result of {name}: the events replay exactly, but {} of what the result states differ{}\n",
        differences.len(),
        if differences.len() == 1 { "s" } else { "" }
    );
    for d in differences {
        // The replay names its scenario by the trace's label: a `file` that differs is
        // an edited label, or a result copied from another trace.
        let label = if d.path == "file" {
            " (the trace's `scenario_file`)"
        } else {
            ""
        };
        text.push_str(&format!(
            "  {}: recorded {}, replayed {}{label}\n",
            d.path,
            show(d.recorded),
            show(d.replayed)
        ));
    }
    text
}

/// A recorded or replayed value as JSON, or `(none)`.
fn show(v: Option<serde_json::Value>) -> String {
    v.map_or("(none)".to_string(), |v| v.to_string())
}
