//! What the viewer states besides the events: the caption (the scenario's name, description and
//! seed) and each invariant's verdict, with the event and reason of a violation. A live run and
//! a trace file give the same page: the verdicts are listed by invariant id in both, since a
//! trace's result records them as a map.

use locksim_sim::{Status, Verdict};
use serde::Serialize;
use serde_json::Value;

/// One invariant's verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerdictRow {
    pub invariant: String,
    /// `held`, `violated` or `not_applicable`.
    pub word: String,
    /// The violating event and why, when violated.
    pub event: Option<usize>,
    pub why: Option<String>,
}

/// The caption and the verdicts of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Page {
    pub name: String,
    pub description: String,
    pub seed: u64,
    pub verdicts: Vec<VerdictRow>,
}

impl Page {
    /// The page of a live run.
    pub fn of_run(name: &str, description: &str, seed: u64, verdicts: &[Verdict]) -> Self {
        let mut rows: Vec<VerdictRow> = verdicts
            .iter()
            .map(|v| {
                let (event, why) = match &v.status {
                    Status::Violated(x) => (Some(x.event), Some(x.why.clone())),
                    _ => (None, None),
                };
                VerdictRow {
                    invariant: v.invariant.id().to_string(),
                    word: v.status.word().to_string(),
                    event,
                    why,
                }
            })
            .collect();
        rows.sort_by(|a, b| a.invariant.cmp(&b.invariant));
        Page {
            name: name.to_string(),
            description: description.to_string(),
            seed,
            verdicts: rows,
        }
    }

    /// The page of a trace file's `result` (its `verdicts` map and `violations` list); the
    /// error names the key that is wrong.
    pub fn of_trace(name: &str, description: &str, seed: u64, result: &Value) -> Result<Self, String> {
        let Some(verdicts) = result.get("verdicts") else {
            return Ok(Page::of_run(name, description, seed, &[]));
        };
        let verdicts = verdicts.as_object().ok_or("key `result.verdicts`: must be an object")?;
        let violations = match result.get("violations") {
            None => &Vec::new(),
            Some(v) => v.as_array().ok_or("key `result.violations`: must be an array")?,
        };
        let mut rows = Vec::new();
        for (invariant, word) in verdicts {
            let word = word
                .as_str()
                .ok_or_else(|| format!("key `result.verdicts.{invariant}`: must be a string"))?;
            let violation = violations
                .iter()
                .find(|v| v.get("invariant").and_then(Value::as_str) == Some(invariant.as_str()));
            let event = violation.and_then(|v| v.get("event")).and_then(Value::as_u64);
            let why = violation.and_then(|v| v.get("why")).and_then(Value::as_str);
            rows.push(VerdictRow {
                invariant: invariant.clone(),
                word: word.to_string(),
                event: event.and_then(|e| usize::try_from(e).ok()),
                why: why.map(str::to_string),
            });
        }
        rows.sort_by(|a, b| a.invariant.cmp(&b.invariant));
        Ok(Page {
            name: name.to_string(),
            description: description.to_string(),
            seed,
            verdicts: rows,
        })
    }
}
