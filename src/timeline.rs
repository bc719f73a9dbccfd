//! The text a person reads first: the scenario, a verdict line per invariant, and a compact
//! timeline of the events that matter, in true time with the node's local clocks beside it.
//!
//! A long run is folded (the selection is [`mod@crate::render::select`], shared with the lane view
//! and the Mermaid diagram): every salient event is shown with a few routine events on either
//! side, the first round in full, and each stretch in between becomes one
//! "... n routine events ..." line.

use std::borrow::Borrow;

use locksim_protocols::Scenario;
use locksim_sim::trace::{TraceEvent, TraceSink};
use locksim_sim::{Status, Verdict};

use crate::load::LoadedScenario;
use crate::render::{MAX_COLUMN_WIDTH, Marks, NETWORK, Row, Selection, Selector, secs};
use crate::run_result::RunResult;

pub use crate::render::TimelineMode;

/// Runs `loaded` with `seed` (its own when `None`), handing its trace to `also` as it goes,
/// and selects the timeline of `mode` from the same stream: only the rows it shows are kept.
/// The violations are known only at the end; if one fell where the selection made no room
/// for it, the seed is run again with them known (a run is deterministic), so the timeline
/// is exactly the one the whole trace gives.
pub fn run_with_timeline<'a>(
    loaded: &'a LoadedScenario,
    seed: Option<u64>,
    mode: TimelineMode,
    also: &mut dyn TraceSink,
) -> (RunResult<'a>, Vec<String>) {
    let mut selector = Selector::new(mode, Marks::default());
    let result = RunResult::run_into(loaded, seed, &mut (&mut selector, also));
    let marks = Marks::from_verdicts(&result.outcome.verdicts);
    let mut selection = selector.finish();
    if !selection.holds(&marks) {
        let mut again = Selector::new(mode, marks.clone());
        RunResult::run_into(loaded, Some(result.seed), &mut again);
        selection = again.finish();
    }
    let lines = timeline(&selection, &marks);
    (result, lines)
}

/// Timeline lines for a selection, marking violation events with their invariant ids.
pub fn timeline<E: Borrow<TraceEvent>>(selection: &Selection<E>, marks: &Marks) -> Vec<String> {
    let rows = &selection.rows;
    if rows.is_empty() {
        return Vec::new();
    }
    // The node column fits every event the mode considers, folded or not.
    let width = selection.node_width.clamp(4, MAX_COLUMN_WIDTH);
    let mut lines = vec![format!(
        "{:>10}  {:<width$}  {:>10}  {:>10}  event",
        "true time", "node", "local wall", "local mono"
    )];
    for row in rows {
        let e: &TraceEvent = match row {
            Row::Folded(f) => {
                lines.push(format!(
                    "{:>10}  ... {} routine events from {} s to {} s ...",
                    "",
                    f.count,
                    secs(f.first_t_ns as i64),
                    secs(f.last_t_ns as i64)
                ));
                continue;
            }
            Row::Event(e) => e.borrow(),
        };
        let local = if e.node == NETWORK {
            format!("{:>10}  {:>10}", "", "")
        } else {
            format!("{:>10}  {:>10}", secs(e.wall_ns), secs(e.mono_ns as i64))
        };
        let ids = marks.of(e.index);
        let mark = if ids.is_empty() {
            String::new()
        } else {
            format!("   <== VIOLATES {}", ids.join(", "))
        };
        lines.push(format!(
            "{:>10}  {:<width$}  {local}  {}{mark}",
            secs(e.t_ns as i64),
            e.node,
            e.text
        ));
    }
    lines
}

/// The whole text result of `locksim run`, with its `timeline` lines (none: no timeline).
pub fn render_run(result: &RunResult<'_>, timeline: &[String]) -> String {
    use locksim_sim::time::fmt_secs;
    let s = &result.loaded.scenario;
    let o = &result.outcome;
    let mut out = String::new();
    out.push_str(&format!("{}  ({})\n", s.name, result.loaded.file));
    if !s.description.is_empty() {
        out.push_str(&format!("  {}\n", s.description));
    }
    out.push_str(&format!(
        "  {}, seed {}: {} simulated, {} events ({} messages sent, {} delivered, {} timers)\n\n",
        s.protocol.kind(),
        result.seed,
        fmt_secs(o.end_ns),
        o.events,
        o.stats.sent,
        o.stats.delivered,
        o.stats.timers
    ));
    out.push_str("verdicts\n");
    for v in &o.verdicts {
        out.push_str(&verdict_line(s, v));
    }
    out.push_str(&expectations(result));
    if !timeline.is_empty() {
        out.push_str("\ntimeline (seconds)\n");
        for line in timeline {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A verdict's line: the invariant, its status beside what `[expect]` says, and the checker's
/// detail.
fn verdict_line(s: &Scenario, v: &Verdict) -> String {
    let expected = s.expect.iter().find(|(i, _)| *i == v.invariant).map(|(_, e)| *e);
    let word = v.status.word();
    let shown = if matches!(v.status, Status::Violated(_)) {
        "VIOLATED"
    } else {
        word
    };
    let verdict = match expected {
        Some(e) if e.word() == word => format!("{shown:<15} as expected"),
        Some(e) => format!("{shown:<15} EXPECTED {}", e.word()),
        None => format!("{shown:<15} {:<11}", ""),
    };
    let detail = match &v.status {
        Status::Held(what) => what.clone(),
        Status::NotApplicable(why) => why.clone(),
        Status::Violated(x) => format!("event #{}: {}", x.event, x.why),
    };
    format!("  {:<17} {verdict}  {detail}\n", v.invariant.id())
}

/// The faults that never fired, then whether the run met its expectations and, if not, why.
fn expectations(result: &RunResult<'_>) -> String {
    let mut out = String::new();
    let unfired = result.unfired();
    let names = result.names();
    for u in &unfired {
        out.push_str(&format!(
            "  {}  NEVER FIRED: {}; the verdicts do not cover it\n",
            u.label(),
            u.describe(&names)
        ));
    }
    let mut problems: Vec<String> = result
        .mismatches()
        .iter()
        .map(|m| format!("{} expected {}, got {}", m.invariant.id(), m.expected.word(), m.got))
        .collect();
    problems.extend(unfired.iter().map(|u| format!("{} never fired", u.label())));
    if !problems.is_empty() {
        out.push_str(&format!("  => NOT AS EXPECTED: {}\n", problems.join("; ")));
    } else if result.loaded.scenario.expect.is_empty() {
        out.push_str("  (no [expect] section: exit status says whether anything was violated)\n");
    } else {
        out.push_str("  => every expectation met\n");
    }
    out
}
