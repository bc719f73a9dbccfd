//! The text a person reads first: the scenario, a verdict line per invariant, and a compact
//! timeline of the events that matter, in true time with the node's local clocks beside it.
//!
//! A long run is folded (the selection is [`mod@crate::render::select`], shared with the lane view
//! and the Mermaid diagram): every salient event is shown with a few routine events on either
//! side, the first round in full, and each stretch in between becomes one
//! "... n routine events ..." line.

use locksim_protocols::Scenario;
use locksim_sim::trace::TraceEvent;
use locksim_sim::{Status, Verdict};

use crate::render::select::shown;
use crate::render::{MAX_COLUMN_WIDTH, Marks, NETWORK, Row, secs, select};
use crate::run_result::RunResult;

pub use crate::render::TimelineMode;

/// Timeline lines for `events`, marking violation events with their invariant ids.
pub fn timeline(events: &[TraceEvent], marks: &Marks, mode: TimelineMode) -> Vec<String> {
    let rows = select(events, marks, mode);
    if rows.is_empty() {
        return Vec::new();
    }
    // The node column fits every event the mode considers, folded or not.
    let width = shown(events, marks, mode)
        .iter()
        .map(|e| e.node.len())
        .max()
        .unwrap_or(4)
        .clamp(4, MAX_COLUMN_WIDTH);
    let mut lines = vec![format!(
        "{:>10}  {:<width$}  {:>10}  {:>10}  event",
        "true time", "node", "local wall", "local mono"
    )];
    for row in rows {
        let e = match row {
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
            Row::Event(e) => e,
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

/// The whole text result of `locksim run`.
pub fn render_run(result: &RunResult<'_>, mode: TimelineMode) -> String {
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
        o.trace.len(),
        o.stats.sent,
        o.stats.delivered,
        o.stats.timers
    ));
    out.push_str("verdicts\n");
    let marks = Marks::from_verdicts(&o.verdicts);
    for v in &o.verdicts {
        out.push_str(&verdict_line(s, v));
    }
    out.push_str(&expectations(result));
    let lines = timeline(&o.trace, &marks, mode);
    if !lines.is_empty() {
        out.push_str("\ntimeline (seconds)\n");
        for line in lines {
            out.push_str(&line);
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
