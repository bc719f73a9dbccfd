//! Which events a reader needs: the one selection behind every human view of a run (the
//! compact timeline of `locksim run`, the lane view and the Mermaid diagram), so that they
//! all show the same story and a fix to what "matters" lands everywhere at once.
//!
//! A long run is folded: every salient event (faults, violations, rejections, expiries, lost
//! locks) is shown with a few routine events on either side, the first round is shown in full,
//! and each stretch in between becomes one fold ("... n routine events ...").

use locksim_sim::Salience;
use locksim_sim::trace::TraceEvent;

use super::Marks;

/// How much of the run a view shows.
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

/// A stretch of routine events the view leaves out, summarised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    /// How many shown-level events it hides (chatter below the mode's floor is not counted).
    pub count: usize,
    pub first_t_ns: u64,
    pub last_t_ns: u64,
    /// Trace indices of the first and last hidden event.
    pub first_index: usize,
    pub last_index: usize,
}

/// One row of a view, in trace order.
#[derive(Clone, Debug)]
pub enum Row<'a> {
    Event(&'a TraceEvent),
    Folded(Fold),
}

/// The events `mode` considers at all, kept or folded: those at or above its salience floor,
/// and every marked one.
pub fn shown<'a>(events: &'a [TraceEvent], marks: &Marks, mode: TimelineMode) -> Vec<&'a TraceEvent> {
    let floor = match mode {
        TimelineMode::None => return Vec::new(),
        TimelineMode::All => Salience::Chatter,
        TimelineMode::Compact | TimelineMode::Full => Salience::Routine,
    };
    events
        .iter()
        .filter(|e| e.salience >= floor || marks.contains(e.index))
        .collect()
}

/// The rows a view shows for `events` in `mode`. A marked (violating) event is always shown,
/// whatever its salience: the reader must see where the invariant broke.
pub fn select<'a>(events: &'a [TraceEvent], marks: &Marks, mode: TimelineMode) -> Vec<Row<'a>> {
    let shown = shown(events, marks, mode);
    let keep: Vec<bool> = if mode == TimelineMode::Compact {
        let mut keep = vec![false; shown.len()];
        for (i, e) in shown.iter().enumerate() {
            if i < OPENING || e.salience == Salience::Salient || marks.contains(e.index) {
                let (lo, hi) = (i.saturating_sub(CONTEXT), (i + CONTEXT + 1).min(shown.len()));
                keep[lo..hi].iter_mut().for_each(|k| *k = true);
            }
        }
        keep
    } else {
        vec![true; shown.len()]
    };
    let mut rows = Vec::new();
    let mut fold: Option<Fold> = None;
    for (e, keep) in shown.into_iter().zip(keep) {
        if !keep {
            let f = fold.get_or_insert(Fold {
                count: 0,
                first_t_ns: e.t_ns,
                last_t_ns: e.t_ns,
                first_index: e.index,
                last_index: e.index,
            });
            f.count += 1;
            f.last_t_ns = e.t_ns;
            f.last_index = e.index;
            continue;
        }
        if let Some(f) = fold.take() {
            rows.push(Row::Folded(f));
        }
        rows.push(Row::Event(e));
    }
    if let Some(f) = fold {
        rows.push(Row::Folded(f));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::trace::{Happening, Stamp};

    fn event(index: usize, salience: Salience) -> TraceEvent {
        let at = Stamp {
            t_ns: index as u64 * 1_000_000,
            node: "client-0".into(),
            wall_ns: 0,
            mono_ns: 0,
        };
        TraceEvent::new(index, at, Happening::Start, format!("event {index}"), salience)
    }

    #[test]
    fn compact_keeps_the_opening_and_context_and_folds_the_rest() {
        let mut events: Vec<TraceEvent> = (0..60).map(|i| event(i, Salience::Routine)).collect();
        events[40].salience = Salience::Salient;
        events.push(event(60, Salience::Chatter));
        let rows = select(&events, &Marks::default(), TimelineMode::Compact);
        let shown: Vec<usize> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Event(e) => Some(e.index),
                Row::Folded(_) => None,
            })
            .collect();
        let expected: Vec<usize> = (0..16).chain(36..45).collect();
        assert_eq!(shown, expected);
        let folds: Vec<&Fold> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Folded(f) => Some(f),
                Row::Event(_) => None,
            })
            .collect();
        assert_eq!(folds.len(), 2);
        assert_eq!(
            (folds[0].count, folds[0].first_index, folds[0].last_index),
            (20, 16, 35)
        );
        // The chatter event at the end is below the floor: not counted in the last fold.
        assert_eq!(
            (folds[1].count, folds[1].first_index, folds[1].last_index),
            (15, 45, 59)
        );
    }

    #[test]
    fn a_marked_chatter_event_is_shown_with_its_context() {
        let mut events: Vec<TraceEvent> = (0..40).map(|i| event(i, Salience::Routine)).collect();
        events[30].salience = Salience::Chatter;
        let mut marks = Marks::default();
        marks.add(30, "stale_write");
        let rows = select(&events, &marks, TimelineMode::Compact);
        assert!(rows.iter().any(|r| matches!(r, Row::Event(e) if e.index == 30)));
        assert!(select(&events, &marks, TimelineMode::None).is_empty());
        assert_eq!(select(&events, &marks, TimelineMode::All).len(), 40);
    }
}
