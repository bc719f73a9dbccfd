//! Messages as arrows: a send matched with its deliveries or drops by `msg_id`, and the rule
//! for which messages a folded view draws.
//!
//! Sends and deliveries are chatter, below every compact view's floor, so "draw a message whose
//! send or delivery is kept" has to mean something wider than the kept events themselves. A
//! node's *step* (its reaction to one input, at one true time) is the unit: a message is drawn
//! when it was sent or received in a step that has a kept event. That gives the acquire request
//! that set a key, the grant that made a client write "ACQUIRED", the write the resource
//! refused — and leaves out the hundreds of failed retries the fold hides.

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::history::DropReason;
use locksim_sim::trace::{Happening, TraceEvent};

/// What became of one copy of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    Delivered,
    /// Dropped, with the engine's reason.
    Dropped(DropReason),
    /// Neither delivered nor dropped when the run ended.
    InFlight,
}

/// One arrow of the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Arrow {
    /// Where the arrow stands in trace order: the delivery or drop (the send when neither
    /// happened). A sequence diagram draws a message level, so it goes where it takes effect.
    pub at: usize,
    /// The true time of that event.
    pub t_ns: u64,
    pub from: String,
    pub to: String,
    pub msg: String,
    pub fate: Fate,
    /// The kept step that made it drawn: its delivery or drop, else its send.
    pub anchor: (String, u64),
}

/// A node's step: its name and the true time of the step.
pub(crate) type Step<'a> = (&'a str, u64);

#[derive(Default)]
struct Message<'a> {
    from: String,
    to: String,
    msg: String,
    sent: Option<Step<'a>>,
    send_index: usize,
    /// (trace index, step, fate) of each copy's end.
    ends: Vec<(usize, Step<'a>, Fate)>,
}

/// The arrows for every message sent or received in a step of `kept`, in trace order.
pub(crate) fn arrows(events: &[TraceEvent], kept: &BTreeSet<Step<'_>>) -> Vec<Arrow> {
    let mut messages: BTreeMap<u64, Message<'_>> = BTreeMap::new();
    for e in events {
        let step = (e.node.as_str(), e.t_ns);
        match &e.what {
            Happening::Send { msg, msg_id, to } => {
                let m = messages.entry(*msg_id).or_default();
                (m.from, m.to, m.msg) = (e.node.clone(), to.clone(), msg.clone());
                (m.sent, m.send_index) = (Some(step), e.index);
            }
            Happening::Deliver { from, msg, msg_id } => {
                let m = messages.entry(*msg_id).or_default();
                (m.from, m.to, m.msg) = (from.clone(), e.node.clone(), msg.clone());
                m.ends.push((e.index, step, Fate::Delivered));
            }
            Happening::Drop {
                from,
                msg,
                msg_id,
                reason,
                to,
            } => {
                let m = messages.entry(*msg_id).or_default();
                (m.from, m.to, m.msg) = (from.clone(), to.clone(), msg.clone());
                m.ends.push((e.index, step, Fate::Dropped(*reason)));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for m in messages.into_values() {
        let anchor = match m.ends.iter().find(|(_, s, _)| kept.contains(s)) {
            Some((_, s, _)) => *s,
            None => match m.sent {
                Some(s) if kept.contains(&s) => s,
                _ => continue,
            },
        };
        let arrow = |at: usize, t_ns: u64, fate: Fate| Arrow {
            at,
            t_ns,
            from: m.from.clone(),
            to: m.to.clone(),
            msg: m.msg.clone(),
            fate,
            anchor: (anchor.0.to_string(), anchor.1),
        };
        if m.ends.is_empty() {
            // Drawn only when its send's step is kept, so there is a send.
            let t_ns = m.sent.map_or(0, |(_, t)| t);
            out.push(arrow(m.send_index, t_ns, Fate::InFlight));
        }
        for (at, (_, t_ns), fate) in &m.ends {
            out.push(arrow(*at, *t_ns, fate.clone()));
        }
    }
    out.sort_by_key(|a| a.at);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;

    use crate::render::test_events::{deliver, event, send};

    fn ev(index: usize, t_ns: u64, node: &str, what: Happening) -> TraceEvent {
        event(index, t_ns, node, what, Salience::Chatter, "")
    }

    #[test]
    fn sends_match_deliveries_and_drops_by_id_and_only_kept_steps_draw() {
        let cut = Happening::Drop {
            from: "a".into(),
            msg: "cut".into(),
            msg_id: 2,
            reason: DropReason::Partition,
            to: "c".into(),
        };
        let events = vec![
            ev(0, 1, "a", send("b", 1, "hello")),
            ev(1, 1, "a", send("c", 2, "cut")),
            ev(2, 1, "a", cut),
            ev(3, 1, "a", send("b", 3, "late")),
            ev(4, 5, "b", deliver("a", 1, "hello")),
            ev(5, 5, "b", deliver("a", 1, "hello")),
            ev(6, 9, "b", send("a", 4, "unseen")),
            ev(7, 12, "a", deliver("b", 4, "unseen")),
        ];
        let kept: BTreeSet<Step<'_>> = [("a", 1)].into_iter().collect();
        let got = arrows(&events, &kept);
        let short: Vec<(usize, &str, &str, &str, Fate)> = got
            .iter()
            .map(|a| (a.at, a.from.as_str(), a.to.as_str(), a.msg.as_str(), a.fate.clone()))
            .collect();
        assert_eq!(
            short,
            vec![
                (2, "a", "c", "cut", Fate::Dropped(DropReason::Partition)),
                (3, "a", "b", "late", Fate::InFlight),
                (4, "a", "b", "hello", Fate::Delivered),
                (5, "a", "b", "hello", Fate::Delivered),
            ]
        );
        assert!(
            got.iter().all(|a| a.t_ns == events[a.at].t_ns),
            "each at its event's time"
        );
        let kept: BTreeSet<Step<'_>> = [("a", 12)].into_iter().collect();
        let got = arrows(&events, &kept);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].at, got[0].from.as_str(), got[0].to.as_str()), (7, "b", "a"));
    }
}
