//! Which events a reader needs: the one selection behind every human view of a run (the
//! compact timeline of `locksim run`, the lane view and the Mermaid diagram), so that they
//! all show the same story and a fix to what "matters" lands everywhere at once.
//!
//! A long run is folded: every salient event (faults, violations, rejections, expiries, lost
//! locks) is shown with a few routine events on either side, the first round is shown in full,
//! and each stretch in between becomes one fold ("... n routine events ...").
//!
//! The selection is made in one pass ([`Selector`]), so a run's timeline can be selected from
//! its stream of events while it runs, holding only the rows it shows, the few routine events
//! that may yet become context, and a count for each fold.

use std::collections::VecDeque;

use locksim_sim::Salience;
use locksim_sim::trace::{Passing, TraceEvent, TraceSink};

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

impl Fold {
    fn add(fold: &mut Option<Fold>, index: usize, t_ns: u64) {
        let f = fold.get_or_insert(Fold {
            count: 0,
            first_t_ns: t_ns,
            last_t_ns: t_ns,
            first_index: index,
            last_index: index,
        });
        f.count += 1;
        f.last_t_ns = t_ns;
        f.last_index = index;
    }
}

/// One row of a view, in trace order: an event (borrowed from a slice, or owned when selected
/// from a stream) or a fold.
#[derive(Clone, Debug)]
pub enum Row<E> {
    Event(E),
    Folded(Fold),
}

/// A view's rows, selected in one pass over a run's events.
#[derive(Clone, Debug)]
pub struct Selection<E> {
    pub rows: Vec<Row<E>>,
    /// The longest node name among the events the mode considers, folded or not (0: none).
    pub node_width: usize,
    /// The events the selection was built around (shown with their context whatever their
    /// neighbours): salient, opening and marked ones, in trace order.
    anchors: Vec<usize>,
}

impl<E> Selection<E> {
    /// Whether `marks`, learned only once the run ended, leave this selection as it would
    /// have been with them known from the start: every marked event was an anchor already.
    /// Otherwise a mark may have fallen into a fold, and the run must be selected again with
    /// its marks known up front (runs are deterministic).
    pub fn holds(&self, marks: &Marks) -> bool {
        marks.indices().all(|m| self.anchors.binary_search(&m).is_ok())
    }
}

/// Selects a view's rows from events offered one at a time, in trace order.
pub struct Selector<E> {
    mode: TimelineMode,
    marks: Marks,
    /// How many considered events came before (the opening counts them).
    position: usize,
    /// How many more considered events are shown as the context after an anchor.
    trailing: usize,
    /// The latest considered events not shown yet, at most `CONTEXT`: the context before an
    /// anchor, if one comes next.
    ring: VecDeque<(usize, u64, E)>,
    /// The hidden events before the ring.
    fold: Option<Fold>,
    selection: Selection<E>,
}

impl<E> Selector<E> {
    /// A selector for `mode`, with the marks known before the run (none, the first time).
    pub fn new(mode: TimelineMode, marks: Marks) -> Self {
        Selector {
            mode,
            marks,
            position: 0,
            trailing: 0,
            ring: VecDeque::with_capacity(CONTEXT + 1),
            fold: None,
            selection: Selection {
                rows: Vec::new(),
                node_width: 0,
                anchors: Vec::new(),
            },
        }
    }

    /// Offers event `index`; `event` builds it, called only if it may be shown.
    pub fn offer(&mut self, index: usize, t_ns: u64, salience: Salience, node: &str, event: impl FnOnce() -> E) {
        let floor = match self.mode {
            TimelineMode::None => return,
            TimelineMode::All => Salience::Chatter,
            TimelineMode::Compact | TimelineMode::Full => Salience::Routine,
        };
        let marked = self.marks.contains(index);
        if salience < floor && !marked {
            return;
        }
        let sel = &mut self.selection;
        sel.node_width = sel.node_width.max(node.len());
        let anchor =
            self.mode != TimelineMode::Compact || self.position < OPENING || salience == Salience::Salient || marked;
        self.position += 1;
        if anchor {
            sel.anchors.push(index);
            if let Some(f) = self.fold.take() {
                sel.rows.push(Row::Folded(f));
            }
            sel.rows.extend(self.ring.drain(..).map(|(_, _, e)| Row::Event(e)));
            sel.rows.push(Row::Event(event()));
            self.trailing = CONTEXT;
        } else if self.trailing > 0 {
            self.trailing -= 1;
            sel.rows.push(Row::Event(event()));
        } else {
            self.ring.push_back((index, t_ns, event()));
            if self.ring.len() > CONTEXT
                && let Some((index, t_ns, _)) = self.ring.pop_front()
            {
                Fold::add(&mut self.fold, index, t_ns);
            }
        }
    }

    /// The selection, once every event was offered: what is left unshown is the last fold.
    pub fn finish(mut self) -> Selection<E> {
        for (index, t_ns, _) in self.ring.drain(..) {
            Fold::add(&mut self.fold, index, t_ns);
        }
        if let Some(f) = self.fold.take() {
            self.selection.rows.push(Row::Folded(f));
        }
        self.selection
    }
}

/// Selects from a run's stream, keeping the events it shows.
impl TraceSink for Selector<TraceEvent> {
    fn take(&mut self, e: &Passing<'_>) {
        self.offer(e.index, e.t_ns, e.salience, e.node, || e.event());
    }
}

/// The selection `mode` makes of `events`. A marked (violating) event is always shown,
/// whatever its salience: the reader must see where the invariant broke.
pub fn selection<'a>(events: &'a [TraceEvent], marks: &Marks, mode: TimelineMode) -> Selection<&'a TraceEvent> {
    let mut selector = Selector::new(mode, marks.clone());
    for e in events {
        selector.offer(e.index, e.t_ns, e.salience, &e.node, || e);
    }
    selector.finish()
}

/// The rows a view shows for `events` in `mode`.
pub fn select<'a>(events: &'a [TraceEvent], marks: &Marks, mode: TimelineMode) -> Vec<Row<&'a TraceEvent>> {
    selection(events, marks, mode).rows
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

    /// The one-pass selection against a direct reading of the rule: an event is shown when
    /// it is within `CONTEXT` considered events of an anchor.
    #[test]
    fn the_one_pass_selection_is_the_windowed_rule() {
        let mut events: Vec<TraceEvent> = (0..200)
            .map(|i| {
                let s = match (i * 7919) % 23 {
                    0 => Salience::Salient,
                    1..=4 => Salience::Chatter,
                    _ => Salience::Routine,
                };
                event(i, s)
            })
            .collect();
        events[150].salience = Salience::Chatter;
        let mut marks = Marks::default();
        marks.add(150, "x");
        marks.add(100, "y");
        for mode in [TimelineMode::Compact, TimelineMode::Full, TimelineMode::All] {
            let floor = if mode == TimelineMode::All {
                Salience::Chatter
            } else {
                Salience::Routine
            };
            let shown: Vec<&TraceEvent> = events
                .iter()
                .filter(|e| e.salience >= floor || marks.contains(e.index))
                .collect();
            let anchor = |i: usize, e: &TraceEvent| {
                mode != TimelineMode::Compact
                    || i < OPENING
                    || e.salience == Salience::Salient
                    || marks.contains(e.index)
            };
            let keep: Vec<bool> = (0..shown.len())
                .map(|i| (i.saturating_sub(CONTEXT)..(i + CONTEXT + 1).min(shown.len())).any(|j| anchor(j, shown[j])))
                .collect();
            let rows = select(&events, &marks, mode);
            let kept: Vec<usize> = rows
                .iter()
                .filter_map(|r| match r {
                    Row::Event(e) => Some(e.index),
                    Row::Folded(_) => None,
                })
                .collect();
            let expected: Vec<usize> = shown
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(e, _)| e.index)
                .collect();
            assert_eq!(kept, expected, "{mode:?}");
            let hidden: usize = rows
                .iter()
                .map(|r| match r {
                    Row::Folded(f) => f.count,
                    Row::Event(_) => 0,
                })
                .sum();
            assert_eq!(hidden + kept.len(), shown.len(), "{mode:?}");
        }
    }

    #[test]
    fn a_mark_that_was_no_anchor_asks_for_a_second_selection() {
        let mut events: Vec<TraceEvent> = (0..40).map(|i| event(i, Salience::Routine)).collect();
        events[30].salience = Salience::Salient;
        let unmarked = selection(&events, &Marks::default(), TimelineMode::Compact);
        let mut on_salient = Marks::default();
        on_salient.add(30, "x");
        assert!(unmarked.holds(&on_salient));
        let mut in_fold = Marks::default();
        in_fold.add(20, "x");
        assert!(!unmarked.holds(&in_fold));
        assert!(selection(&events, &in_fold, TimelineMode::Compact).holds(&in_fold));
    }
}
