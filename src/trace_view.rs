//! The lane view of a trace file selected from its events as they are read: only the rows it
//! shows, the node names and the few events that change a node's life are kept, so a trace of
//! any length renders as text in bounded memory (the rows aside).

use std::collections::BTreeSet;

use locksim_sim::trace::TraceEvent;

use crate::render::{Cast, Marks, NETWORK, Selector, TimelineMode, changes_life, lanes};
use crate::trace_file::TraceFile;

/// The lane view of `trace` — the same text as [`lanes::lanes`] of all its events — with the
/// violations `marks` names (known before the events are read: a trace file is read twice).
pub fn trace_lanes(trace: &TraceFile, cast: &Cast, marks: &Marks) -> Result<String, String> {
    let mut selector = Selector::new(TimelineMode::Compact, marks.clone());
    let mut names: Vec<String> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut life_events: Vec<TraceEvent> = Vec::new();
    trace.each_timeline_event(cast, &mut |e| {
        if e.node != NETWORK && !seen.contains(&e.node) {
            seen.insert(e.node.clone());
            names.push(e.node.clone());
        }
        if changes_life(&e.what) {
            life_events.push(e.clone());
        }
        let node = e.node.clone();
        selector.offer(e.index, e.t_ns, e.salience, &node, || e);
    })?;
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Ok(lanes::lanes_of(&selector.finish().rows, &names, &life_events, marks))
}
