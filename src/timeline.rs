//! The text a person reads first: the scenario, a verdict line per invariant, and a compact
//! timeline of the events that matter, in true time with the node's local clocks beside it.
//!
//! A long run is folded: every salient event (faults, violations, rejections, expiries, lost
//! locks) is shown with a few routine events on either side, the first round is shown in full,
//! and each stretch in between becomes one "... n routine events ..." line.

use std::collections::BTreeMap;

use locksim_sim::Salience;
use locksim_sim::trace::TraceEvent;

use crate::report::RunReport;

/// How much of the run the timeline shows.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TimelineMode {
    /// Salient events with routine context; the rest folded.
    Compact,
    /// Every salient and routine event.
    Full,
    /// Every event, messages and timers included.
    All,
    /// No timeline.
    None,
}

/// Routine events shown on each side of a salient one.
const CONTEXT: usize = 4;
/// Events shown in full at the start (the first round).
const OPENING: usize = 12;

fn secs(ns: i64) -> String {
    let sign = if ns < 0 { "-" } else { "" };
    let ms = ns.unsigned_abs() / 1_000_000;
    format!("{sign}{}.{:03}", ms / 1000, ms % 1000)
}

/// Timeline lines for `events`, marking violation events with their invariant ids.
pub fn timeline(events: &[TraceEvent], marks: &BTreeMap<usize, Vec<&str>>, mode: TimelineMode) -> Vec<String> {
    let floor = match mode {
        TimelineMode::None => return Vec::new(),
        TimelineMode::All => Salience::Chatter,
        TimelineMode::Compact | TimelineMode::Full => Salience::Routine,
    };
    let shown: Vec<&TraceEvent> = events
        .iter()
        .filter(|e| e.salience >= floor || marks.contains_key(&e.index))
        .collect();
    let keep: Vec<bool> = if mode == TimelineMode::Compact {
        let mut keep = vec![false; shown.len()];
        for (i, e) in shown.iter().enumerate() {
            if i < OPENING || e.salience == Salience::Salient || marks.contains_key(&e.index) {
                let (lo, hi) = (i.saturating_sub(CONTEXT), (i + CONTEXT + 1).min(shown.len()));
                keep[lo..hi].iter_mut().for_each(|k| *k = true);
            }
        }
        keep
    } else {
        vec![true; shown.len()]
    };
    let width = shown.iter().map(|e| e.node.len()).max().unwrap_or(4).max(4);
    let mut lines = vec![format!(
        "{:>10}  {:<width$}  {:>10}  {:>10}  event",
        "true time", "node", "local wall", "local mono"
    )];
    let mut folded: Vec<&TraceEvent> = Vec::new();
    let flush = |folded: &mut Vec<&TraceEvent>, lines: &mut Vec<String>| {
        if let (Some(first), Some(last)) = (folded.first(), folded.last()) {
            lines.push(format!(
                "{:>10}  ... {} routine events from {} s to {} s ...",
                "",
                folded.len(),
                secs(first.t_ns as i64),
                secs(last.t_ns as i64)
            ));
        }
        folded.clear();
    };
    for (e, keep) in shown.iter().zip(keep) {
        if !keep {
            folded.push(e);
            continue;
        }
        flush(&mut folded, &mut lines);
        let local = if e.node == "network" {
            format!("{:>10}  {:>10}", "", "")
        } else {
            format!("{:>10}  {:>10}", secs(e.wall_ns), secs(e.mono_ns as i64))
        };
        let mark = marks
            .get(&e.index)
            .map(|ids| format!("   <== VIOLATES {}", ids.join(", ")))
            .unwrap_or_default();
        lines.push(format!(
            "{:>10}  {:<width$}  {local}  {}{mark}",
            secs(e.t_ns as i64),
            e.node,
            e.text
        ));
    }
    flush(&mut folded, &mut lines);
    lines
}

/// The whole text result of `locksim run`.
pub fn render_run(report: &RunReport<'_>, mode: TimelineMode) -> String {
    use locksim_sim::{Status, time::fmt_secs};
    let s = &report.loaded.scenario;
    let o = &report.outcome;
    let mut out = String::new();
    out.push_str(&format!("{}  ({})\n", s.name, report.loaded.file));
    if !s.description.is_empty() {
        out.push_str(&format!("  {}\n", s.description));
    }
    out.push_str(&format!(
        "  {}, seed {}: {} simulated, {} events ({} messages sent, {} delivered, {} timers)\n\n",
        s.protocol.kind(),
        report.seed,
        fmt_secs(o.end_ns),
        o.trace.len(),
        o.stats.sent,
        o.stats.delivered,
        o.stats.timers
    ));
    out.push_str("verdicts\n");
    let mut marks: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
    for v in &o.verdicts {
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
            Status::Violated(x) => {
                marks.entry(x.event).or_default().push(v.invariant.id());
                format!("event #{}: {}", x.event, x.why)
            }
        };
        out.push_str(&format!("  {:<17} {verdict}  {detail}\n", v.invariant.id()));
    }
    let mismatches = report.mismatches();
    if s.expect.is_empty() {
        out.push_str("  (no [expect] section: exit status says whether anything was violated)\n");
    } else if mismatches.is_empty() {
        out.push_str("  => every expectation met\n");
    } else {
        let list: Vec<String> = mismatches
            .iter()
            .map(|m| format!("{} expected {}, got {}", m.invariant.id(), m.expected.word(), m.got))
            .collect();
        out.push_str(&format!("  => NOT AS EXPECTED: {}\n", list.join("; ")));
    }
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
