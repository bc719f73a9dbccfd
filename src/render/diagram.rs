//! What a sequence diagram of a run shows, whatever draws it (Mermaid text, SVG): the story
//! view's events and folds (`story.rs`), the messages the story turns on as arrows
//! (`messages.rs`), each at its place in trace order, and the words and emphasis of each
//! event's note.
//!
//! The Mermaid and SVG views differ only in how they draw these items, so they tell the same
//! story, and a fix to what a diagram shows lands in both at once.

use std::collections::{BTreeMap, BTreeSet};

use locksim_protocols::lock::obs::{Deadline, LockObs, short_lease};
use locksim_sim::history::DropReason;
use locksim_sim::trace::{Happening, TraceEvent};

use super::messages::{Arrow, Fate, Kept, Step, arrows, steps};
use super::select::{Fold, Row};
use super::story::{opens, story};
use super::{Marks, NETWORK, secs};

/// Longest message text on an arrow, in characters.
pub(crate) const ARROW_TEXT: usize = 48;
/// Background of a violating event's note.
pub(crate) const VIOLATION_RGB: &str = "rgb(255, 204, 204)";
/// Background of a refused write: the protection working, worth seeing at a glance.
pub(crate) const REFUSAL_RGB: &str = "rgb(255, 236, 179)";

/// What a diagram draws, in trace order.
pub(crate) enum Item<'a> {
    Event(&'a TraceEvent),
    Fold(Fold),
    Arrow(Arrow),
}

/// The items of the diagram of `events`: the story's rows, and an arrow for each message the
/// story draws, each where it takes effect.
pub(crate) fn items<'a>(events: &'a [TraceEvent], marks: &Marks) -> Vec<Item<'a>> {
    let rows = story(events, marks);
    let steps = steps(events);
    let kept = kept_steps(&rows, &steps);
    let folds: Vec<Fold> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Folded(f) => Some(f.clone()),
            Row::Event(_) => None,
        })
        .collect();
    let drawn = Kept {
        shown: kept.keys().copied().collect(),
        opening: opening_steps(&rows, &steps, marks),
        shown_at: rows
            .iter()
            .filter_map(|r| match r {
                Row::Event(e) => Some((e.node.clone(), e.t_ns)),
                Row::Folded(_) => None,
            })
            .collect(),
    };
    let arrows = arrows(events, &steps, &drawn);
    // Sort keys: (trace index, 0 before / 1 at / 2 after). Events and folds sit at their index.
    let mut keyed: Vec<((usize, u8), Item<'a>)> = rows
        .into_iter()
        .map(|r| match r {
            Row::Event(e) => ((e.index, 1), Item::Event(e)),
            Row::Folded(f) => ((f.first_index, 1), Item::Fold(f)),
        })
        .collect();
    for a in arrows {
        keyed.push((arrow_key(&a, &folds, &kept), Item::Arrow(a)));
    }
    // Stable: arrows moved to one side of a fold keep their trace order.
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, item)| item).collect()
}

/// Each kept step, with the trace index of its first kept event.
fn kept_steps(rows: &[Row<&TraceEvent>], steps: &BTreeMap<usize, Step>) -> BTreeMap<Step, usize> {
    let mut kept = BTreeMap::new();
    for r in rows {
        if let Row::Event(e) = r {
            kept.entry(steps[&e.index]).or_insert(e.index);
        }
    }
    kept
}

/// The steps with a shown event whose sends open the story.
fn opening_steps(rows: &[Row<&TraceEvent>], steps: &BTreeMap<usize, Step>, marks: &Marks) -> BTreeSet<Step> {
    rows.iter()
        .filter_map(|r| match r {
            Row::Event(e) if opens(e, marks) => Some(steps[&e.index]),
            _ => None,
        })
        .collect()
}

/// Where an arrow sorts. A message of a kept step can sit among hidden events (the step was cut
/// by a fold): it goes on the side of the fold where its step's kept event is.
fn arrow_key(a: &Arrow, folds: &[Fold], kept: &BTreeMap<Step, usize>) -> (usize, u8) {
    match folds.iter().find(|f| (f.first_index..=f.last_index).contains(&a.at)) {
        None => (a.at, 1),
        Some(f) => {
            let anchor = kept.get(&a.anchor).copied().unwrap_or(a.at);
            if anchor < f.first_index {
                (f.first_index, 0)
            } else {
                (f.last_index, 2)
            }
        }
    }
}

/// A shown send, delivery or drop is drawn as its arrow, not as a note — unless it violates
/// something, and the reader must see it marked.
pub(crate) fn drawn_as_arrow(e: &TraceEvent, marks: &Marks) -> bool {
    matches!(
        e.what,
        Happening::Send { .. } | Happening::Deliver { .. } | Happening::Drop { .. }
    ) && !marks.contains(e.index)
}

/// What sets a note apart from the routine ones.
pub(crate) enum Emphasis {
    /// The invariant ids it violates, comma-separated.
    Violation(String),
    Refusal,
}

/// The events shown as a refused write, by event name: the lock vocabulary's two, and any
/// model's event that reports itself as one (etcd's failed compare is a `write_refused`, the
/// event a fault can follow at a fenced resource), whatever its fields.
const REFUSALS: [&str; 2] = ["write_refused", "write_rejected"];

pub(crate) fn emphasis(e: &TraceEvent, marks: &Marks) -> Option<Emphasis> {
    let ids = marks.of(e.index);
    if !ids.is_empty() {
        return Some(Emphasis::Violation(ids.join(", ")));
    }
    match &e.what {
        Happening::Observe(o) if REFUSALS.contains(&o.event.as_str()) => Some(Emphasis::Refusal),
        _ => None,
    }
}

/// The local clocks of `e` that disagree with true time (a jump, drift, a suspend), as
/// `wall 1.234 s`, `mono 5.678 s`: the reader sees when the node's own clocks are what the
/// story is about.
pub(crate) fn local_clocks(e: &TraceEvent) -> Vec<String> {
    if e.node == NETWORK {
        return Vec::new();
    }
    let ms = |ns: i64| ns.div_euclid(1_000_000);
    let t = ms(e.t_ns as i64);
    let mut clocks = Vec::new();
    if ms(e.wall_ns) != t {
        clocks.push(format!("wall {} s", secs(e.wall_ns)));
    }
    if ms(e.mono_ns as i64) != t {
        clocks.push(format!("mono {} s", secs(e.mono_ns as i64)));
    }
    clocks
}

/// True time, and the local clocks where they disagree with it.
pub(crate) fn header(e: &TraceEvent) -> String {
    let mut h = format!("{} s", secs(e.t_ns as i64));
    for clock in local_clocks(e) {
        h.push_str(&format!(" · {clock}"));
    }
    h
}

/// The nodes a network event concerns, by name: a failover its primary, a delay its link
/// (from, and to). Other network events (partitions, loss) concern everyone: `None`.
pub(crate) fn network_nodes(e: &TraceEvent) -> Option<(&str, Option<&str>)> {
    match &e.what {
        Happening::Failover { primary } => Some((primary, None)),
        Happening::Delay { from, to, .. } => Some((from, Some(to))),
        _ => None,
    }
}

/// The note lines for `e`. An acquisition spells out its token, validity and — when there are
/// several lock servers — which of them granted it, so a Redlock diagram shows two clients
/// each holding a majority; everything else is the simulator's own text.
pub(crate) fn describe(e: &TraceEvent, lock_servers: &[String]) -> Vec<String> {
    let Happening::Observe(o) = &e.what else {
        return vec![e.text.clone()];
    };
    let Some(LockObs::Acquired {
        lease,
        token,
        validity_ns,
        deadline_mono_ns,
        servers,
    }) = o.decode()
    else {
        return vec![e.text.clone()];
    };
    let token = match token {
        Some(t) => format!("token {t}"),
        None => "no token".to_string(),
    };
    let validity = match deadline_mono_ns {
        Deadline::Untracked => "no deadline tracked".to_string(),
        Deadline::Mono(_) => format!("validity {} s", secs(validity_ns)),
    };
    let mut lines = vec![format!("ACQUIRED lease {} · {token} · {validity}", short_lease(lease))];
    // The granting servers, for a lock held on several (Redlock); none when the lock service
    // decides alone (a single Redis, etcd's leader).
    if lock_servers.len() > 1 && servers != 0 {
        let held: Vec<&str> = (0..32)
            .filter(|i| servers & (1 << i) != 0)
            .map(|i| lock_servers.get(i).map_or("an undeclared server", String::as_str))
            .collect();
        lines.push(format!(
            "on {} ({} of {})",
            held.join(", "),
            held.len(),
            lock_servers.len()
        ));
    }
    lines
}

/// An arrow's text: the message, shortened, and what became of it unless it arrived.
pub(crate) fn arrow_label(a: &Arrow) -> String {
    let text = short(&a.msg, ARROW_TEXT);
    match &a.fate {
        Fate::Delivered => text,
        Fate::Dropped(reason) => format!("{text} ({})", dropped(*reason)),
        Fate::InFlight => format!("{text} (still in flight at the end)"),
    }
}

fn dropped(reason: DropReason) -> &'static str {
    match reason {
        DropReason::Partition => "cut by the partition",
        DropReason::Loss => "lost",
        DropReason::Down => "receiver down or restarted",
    }
}

/// A fold's text: how many routine events it hides, and when.
pub(crate) fn fold_text(f: &Fold) -> String {
    format!(
        "… {} routine events, {} s to {} s …",
        f.count,
        secs(f.first_t_ns as i64),
        secs(f.last_t_ns as i64)
    )
}

/// `text` cut to at most `max` characters, marked with `…` when cut: arrows stay short.
pub(crate) fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;
    use locksim_sim::trace::{Observed, Stamp};

    fn acquired(deadline_mono_ns: Deadline) -> TraceEvent {
        let fact = LockObs::Acquired {
            lease: 0xcaa5 << 48,
            token: Some(7),
            validity_ns: 1_500_000_000,
            deadline_mono_ns,
            servers: 0b101,
        };
        let at = Stamp {
            t_ns: 0,
            node: "client-0".into(),
            wall_ns: 0,
            mono_ns: 0,
        };
        let what = Happening::Observe(Observed::of(&fact));
        TraceEvent::new(0, at, what, "ACQUIRED".into(), Salience::Routine)
    }

    #[test]
    fn an_acquisition_note_reads_the_lock_fact() {
        let three = ["server-0", "server-1", "server-2"].map(String::from);
        assert_eq!(
            describe(&acquired(Deadline::Mono(9)), &three),
            [
                "ACQUIRED lease caa5 · token 7 · validity 1.500 s",
                "on server-0, server-2 (2 of 3)"
            ]
        );
        assert_eq!(
            describe(&acquired(Deadline::Untracked), &three[..1]),
            ["ACQUIRED lease caa5 · token 7 · no deadline tracked"]
        );
    }

    #[test]
    fn shortens_by_characters() {
        assert_eq!(short("abcdef", 6), "abcdef");
        assert_eq!(short("abcdefg", 6), "abcde…");
        assert_eq!(short("ééééééé", 3), "éé…");
    }
}
