//! The story view: which events a sequence diagram shows, the diagrams' own selection.
//!
//! The text timeline's compact selection ([`mod@super::select`]) weighs each event by the
//! salience its model gave it. A picture has less room and a reader who follows arrows, so the
//! diagrams weigh a few lock facts differently (the vocabulary every lock model shares,
//! `locksim_protocols::lock::obs`), and nothing else:
//!
//! - the start of an acquisition is routine, not chatter: its requests are the story's first
//!   move, and the ones a partition drops are its premise (Redlock's clock jump);
//! - a failed acquisition is routine, not chatter: "did not acquire: no quorum" is the outcome
//!   of the attempt whose partial grants the diagram draws;
//! - except a futile attempt, one no server granted (the lock was simply held by another):
//!   its start and its failure stay chatter, a retry the fold counts;
//! - a release, and the key it deletes, are chatter: a lock given back as it should be is the
//!   routine traffic that filled the page (a compare-and-delete to every server, and each reply).
//!
//! Which messages are drawn follows from the events kept (`messages.rs`).

use locksim_protocols::lock::obs::{DeleteCause, LockObs};
use std::collections::BTreeSet;

use locksim_sim::Salience;
use locksim_sim::trace::{Happening, TraceEvent};

use super::Marks;
use super::select::{Row, Selector, TimelineMode};

/// The story's rows for `events`: the compact selection of the story's weights. A violating
/// event is always shown.
pub fn story<'a>(events: &'a [TraceEvent], marks: &Marks) -> Vec<Row<&'a TraceEvent>> {
    let futile = futile(events);
    let mut selector = Selector::new(TimelineMode::Compact, marks.clone());
    for e in events {
        let weight = if futile.contains(&e.index) {
            e.salience
        } else {
            weight(e)
        };
        selector.offer(e.index, e.t_ns, weight, &e.node, || e);
    }
    selector.finish().rows
}

/// The `acquire_started` and `acquire_failed` events of each attempt that failed with no
/// server granting it anything.
fn futile(events: &[TraceEvent]) -> BTreeSet<usize> {
    // Each node's attempt under way: its start, and the servers that granted it so far.
    let mut attempts: Vec<(&str, usize, u32)> = Vec::new();
    let mut futile = BTreeSet::new();
    for e in events {
        let Happening::Observe(o) = &e.what else { continue };
        let at = attempts.iter().position(|(n, _, _)| *n == e.node);
        match (o.event.as_str(), at) {
            ("acquire_started", _) => {
                attempts.retain(|(n, _, _)| *n != e.node);
                attempts.push((&e.node, e.index, 0));
            }
            ("acquire_replies", Some(i)) => {
                if let Some(LockObs::AcquireReplies { granted, .. }) = o.decode() {
                    attempts[i].2 |= granted;
                }
            }
            ("acquire_failed", Some(i)) => {
                let (_, start, granted) = attempts.remove(i);
                if granted == 0 {
                    futile.extend([start, e.index]);
                }
            }
            ("acquired", Some(i)) => {
                attempts.remove(i);
            }
            _ => {}
        }
    }
    futile
}

/// What `e` weighs in the story, unless its attempt was futile.
pub(crate) fn weight(e: &TraceEvent) -> Salience {
    let Happening::Observe(o) = &e.what else {
        return e.salience;
    };
    match o.event.as_str() {
        "acquire_started" | "acquire_failed" => e.salience.max(Salience::Routine),
        "released" => Salience::Chatter,
        "key_deleted" => match o.decode() {
            Some(LockObs::KeyDeleted {
                cause: DeleteCause::Release,
                ..
            }) => Salience::Chatter,
            _ => e.salience,
        },
        _ => e.salience,
    }
}

/// Whether the messages sent in the step of `e`, a shown event, belong to the story whatever
/// their receivers do with them: a fault's, a violation's and a salient event's consequences,
/// and an acquisition's requests (the grants, refusals and drops the story turns on).
pub(crate) fn opens(e: &TraceEvent, marks: &Marks) -> bool {
    let started = matches!(&e.what, Happening::Observe(o) if o.event == "acquire_started");
    started || e.salience == Salience::Salient || marks.contains(e.index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::trace::Observed;

    use crate::render::test_events::{event, obs};

    fn weigh(what: Happening, salience: Salience) -> Salience {
        weight(&event(0, 0, "n", what, salience, ""))
    }

    #[test]
    fn attempts_weigh_more_and_releases_less() {
        use Salience::{Chatter, Routine, Salient};
        assert_eq!(weigh(obs("acquire_started"), Chatter), Routine);
        assert_eq!(weigh(obs("acquire_failed"), Chatter), Routine);
        assert_eq!(weigh(obs("acquire_failed"), Salient), Salient);
        assert_eq!(weigh(obs("released"), Routine), Chatter);
        let deleted = |cause| Happening::Observe(Observed::of(&LockObs::KeyDeleted { lease: 1, cause }));
        assert_eq!(weigh(deleted(DeleteCause::Release), Routine), Chatter);
        assert_eq!(weigh(deleted(DeleteCause::PlainDel), Salient), Salient);
        assert_eq!(weigh(obs("read_done"), Routine), Routine);
        assert_eq!(weigh(Happening::Start, Chatter), Chatter);
    }
}
