//! Views of a run for people: a timeline with a lane per node ([`mod@lanes`]), and a sequence
//! diagram as Mermaid text ([`mod@mermaid`]) or as an SVG picture ([`mod@svg`]).
//!
//! Every renderer takes the erased events (`&[TraceEvent]`, typed: each one's
//! [`Happening`](locksim_sim::trace::Happening)) and the violation marks (event index ->
//! invariant ids); the diagrams also take the [`Cast`] (each node's role). All three come from
//! a live run (`Outcome::trace`, the verdicts, the scenario) and from a trace file
//! (`TraceFile::timeline_events`, `result.violations`, its embedded scenario), so
//! `locksim run --render` and `locksim render TRACE` print the same thing for the same run, and
//! a renderer never needs to know the protocol.

use std::collections::BTreeMap;

use locksim_sim::{Status, Verdict};
use serde_json::Value;

mod caption;
mod cast;
mod diagram;
pub mod html;
pub mod lanes;
mod life;
mod look;
pub(crate) mod markup;
pub mod mermaid;
mod mermaid_head;
mod mermaid_text;
mod messages;
pub mod select;
mod story;
pub mod svg;
#[cfg(test)]
mod test_events;

pub use caption::Caption;
pub use cast::Cast;
pub use html::{Page, html};
pub use lanes::lanes;
pub(crate) use life::changes_life;
pub use mermaid::mermaid;
pub use select::{Fold, Row, Selection, Selector, TimelineMode, select, selection};
pub use story::story;
pub use svg::{TimeAxis, svg, svg_on};

/// Which events violate which invariants: event index -> invariant ids, in checker order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks(BTreeMap<usize, Vec<String>>);

impl Marks {
    pub fn add(&mut self, event: usize, invariant: &str) {
        self.0.entry(event).or_default().push(invariant.to_string());
    }

    pub fn contains(&self, event: usize) -> bool {
        self.0.contains_key(&event)
    }

    /// The invariants `event` violates (empty when none).
    pub fn of(&self, event: usize) -> &[String] {
        self.0.get(&event).map_or(&[], Vec::as_slice)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The marked events, in trace order.
    pub fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.keys().copied()
    }

    /// The first violating event of each violated verdict.
    pub fn from_verdicts(verdicts: &[Verdict]) -> Self {
        let mut marks = Marks::default();
        for v in verdicts {
            if let Status::Violated(x) = &v.status {
                marks.add(x.event, v.invariant.id());
            }
        }
        marks
    }

    /// The marks a trace file's `result.violations` records (objects with `invariant` and
    /// `event`); the error names the entry and key that is wrong.
    pub fn from_result(result: &Value) -> Result<Self, String> {
        let mut marks = Marks::default();
        let Some(list) = result.get("violations") else {
            return Ok(marks);
        };
        let list = list.as_array().ok_or("key `result.violations`: must be an array")?;
        for (i, v) in list.iter().enumerate() {
            let invariant = v
                .get("invariant")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("key `result.violations[{i}].invariant`: must be a string"))?;
            let event = v
                .get("event")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("key `result.violations[{i}].event`: must be an event index"))?;
            marks.add(event as usize, invariant);
        }
        Ok(marks)
    }
}

/// Seconds with milliseconds, `-` for negative local clocks: the unit every view prints.
pub(crate) fn secs(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let ms = ns.unsigned_abs() / 1_000_000;
    format!("{sign}{}.{:03}", ms / 1000, ms % 1000)
}

/// The simulated nodes that appear in `events`, in order of first appearance (clients, then
/// servers, then the resource, as the engine starts them); `network` is not a node.
pub(crate) fn nodes(events: &[locksim_sim::trace::TraceEvent]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for e in events {
        if e.node != NETWORK && !seen.contains(&e.node.as_str()) {
            seen.push(&e.node);
        }
    }
    seen
}

/// The widest column a view pads to: `format!` refuses a width over `u16::MAX` (it panics with
/// "Formatting argument out of range"), and a node name that long in a trace must not crash a
/// view. Past it a column simply stops being aligned.
pub(crate) const MAX_COLUMN_WIDTH: usize = u16::MAX as usize;

/// The history's name for events that belong to no node (partitions, failovers...).
pub(crate) const NETWORK: &str = locksim_sim::NodeId::NET_NAME;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_from_a_trace_result() {
        let result = json!({"violations": [
            {"invariant": "stale_write", "event": 7, "t_ns": 1, "why": "x"},
            {"invariant": "lost_update", "event": 7, "t_ns": 1, "why": "y"},
            {"invariant": "mutual_exclusion", "event": 3, "t_ns": 1, "why": "z"},
        ]});
        let marks = Marks::from_result(&result).unwrap();
        assert_eq!(marks.of(7), ["stale_write", "lost_update"]);
        assert_eq!(marks.of(3), ["mutual_exclusion"]);
        assert!(marks.of(4).is_empty());
        let bad = json!({"violations": [{"invariant": "stale_write"}]});
        assert_eq!(
            Marks::from_result(&bad).unwrap_err(),
            "key `result.violations[0].event`: must be an event index"
        );
    }

    #[test]
    fn secs_prints_milliseconds() {
        assert_eq!(secs(0), "0.000");
        assert_eq!(secs(12_345_678_901), "12.345");
        assert_eq!(secs(-2_000_000_000), "-2.000");
    }
}
