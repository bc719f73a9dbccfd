//! Messages as arrows: a send matched with its deliveries or drops by `msg_id`, and the rule
//! for which messages a folded view draws.
//!
//! Sends and deliveries are chatter, below every compact view's floor, so "draw a message whose
//! send or delivery is kept" has to mean something wider than the kept events themselves. A
//! node's *step* (its reaction to one input: its start, a delivery, a timer, a crash) is the
//! unit. A message is drawn when
//!
//! - it was delivered in a step with a kept event: the acquire request that set a key, the
//!   grant that made a client write "ACQUIRED", the write the resource refused;
//! - it was sent in a step that opens the story (`story::opens`): an acquisition's requests,
//!   a failover's announcements;
//! - it was lost, and its sender shows an event at the instant it sent it: a lost message is
//!   never routine;
//! - it was still in flight at the end, sent in a kept step;
//! - it is the reply to a drawn request, or the request of a drawn reply: a reply (a message
//!   sent back to the sender of the delivery that is its step's input) is never drawn without
//!   its request, nor a request without its replies.
//!
//! That leaves out the hundreds of failed retries a fold hides, and a release's
//! compare-and-delete to every server the story does not turn on.

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
    /// The kept step that made it drawn (its request's or reply's, for a message drawn with
    /// its partner): where the arrow goes when its own place is folded away.
    pub anchor: Step,
}

/// A node's step, named by the trace index of its input. A step a pause interrupted goes on
/// after the resume (its held effects), so a resume is no input.
pub(crate) type Step = usize;

/// The step of each event, by trace index. An event with no input of its node before it (a
/// network event) is a step of its own.
pub(crate) fn steps(events: &[TraceEvent]) -> BTreeMap<usize, Step> {
    let mut input: BTreeMap<&str, Step> = BTreeMap::new();
    let mut steps = BTreeMap::new();
    for e in events {
        if matches!(
            e.what,
            Happening::Start
                | Happening::Deliver { .. }
                | Happening::Timer { .. }
                | Happening::Restart
                | Happening::Crash { .. }
        ) {
            input.insert(&e.node, e.index);
        }
        steps.insert(e.index, input.get(e.node.as_str()).copied().unwrap_or(e.index));
    }
    steps
}

/// The steps a diagram keeps: those with a kept event, and those whose sends open the story.
pub(crate) struct Kept {
    pub shown: BTreeSet<Step>,
    pub opening: BTreeSet<Step>,
    /// The nodes with a kept event, and the true time of each.
    pub shown_at: BTreeSet<(String, u64)>,
}

#[derive(Default)]
struct Message {
    from: String,
    to: String,
    msg: String,
    sent: Option<Step>,
    send_index: usize,
    t_ns: u64,
    /// (trace index, true time, step, fate) of each copy's end.
    ends: Vec<(usize, u64, Step, Fate)>,
    /// The request this message answers: the delivery that was its step's input, when it goes
    /// back to that delivery's sender.
    reply_to: Option<u64>,
    /// The step that makes it drawn, once it is.
    anchor: Option<Step>,
}

impl Message {
    /// The step that draws this message on its own account, if any.
    fn own_anchor(&self, kept: &Kept) -> Option<Step> {
        let delivered = self
            .ends
            .iter()
            .find(|(_, _, s, f)| *f == Fate::Delivered && kept.shown.contains(s));
        if let Some((_, _, s, _)) = delivered {
            return Some(*s);
        }
        let sent = self.sent?;
        if kept.opening.contains(&sent) {
            return Some(sent);
        }
        let lost = self.ends.iter().any(|(_, _, _, f)| matches!(f, Fate::Dropped(_)));
        if lost && kept.shown_at.contains(&(self.from.clone(), self.t_ns)) {
            return Some(sent);
        }
        (self.ends.is_empty() && kept.shown.contains(&sent)).then_some(sent)
    }
}

/// Every message of `events`, by id, with the request each reply answers.
fn messages(events: &[TraceEvent], steps: &BTreeMap<usize, Step>) -> BTreeMap<u64, Message> {
    let mut messages: BTreeMap<u64, Message> = BTreeMap::new();
    // Each node's current input: the message (id, sender) whose delivery its step reacts to.
    let mut input: BTreeMap<&str, Option<(u64, &str)>> = BTreeMap::new();
    for e in events {
        let step = steps.get(&e.index).copied().unwrap_or(e.index);
        match &e.what {
            Happening::Send { msg, msg_id, to } => {
                let reply_to = match input.get(e.node.as_str()) {
                    Some(Some((request, sender))) if sender == to => Some(*request),
                    _ => None,
                };
                let m = messages.entry(*msg_id).or_default();
                (m.from, m.to, m.msg) = (e.node.clone(), to.clone(), msg.clone());
                (m.sent, m.send_index, m.t_ns, m.reply_to) = (Some(step), e.index, e.t_ns, reply_to);
            }
            Happening::Deliver { from, msg, msg_id } => {
                input.insert(&e.node, Some((*msg_id, from.as_str())));
                let m = messages.entry(*msg_id).or_default();
                (m.from, m.to, m.msg) = (from.clone(), e.node.clone(), msg.clone());
                m.ends.push((e.index, e.t_ns, step, Fate::Delivered));
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
                m.ends.push((e.index, e.t_ns, step, Fate::Dropped(*reason)));
            }
            Happening::Start | Happening::Timer { .. } | Happening::Restart | Happening::Crash { .. } => {
                input.insert(&e.node, None);
            }
            _ => {}
        }
    }
    messages
}

/// The arrows for the messages drawn with the steps `kept` (`steps` gives each event's), in
/// trace order.
pub(crate) fn arrows(events: &[TraceEvent], steps: &BTreeMap<usize, Step>, kept: &Kept) -> Vec<Arrow> {
    let mut messages = messages(events, steps);
    // A request and its replies are drawn together. A reply drawn on its own account brings
    // its request, unless that request is a reply whose own request is not drawn: then both
    // stay folded. A drawn request brings its replies, one hop only, so a ping-pong (a log
    // repair's refusals and retries) does not pull in its whole chain.
    let own: BTreeMap<u64, Step> = messages
        .iter()
        .filter_map(|(id, m)| Some((*id, m.own_anchor(kept)?)))
        .collect();
    let mut drawn: BTreeMap<u64, Step> = BTreeMap::new();
    for (&id, &anchor) in &own {
        match messages[&id].reply_to {
            None => {
                drawn.insert(id, anchor);
            }
            Some(request) if own.contains_key(&request) => {
                drawn.insert(id, anchor);
            }
            Some(request) => {
                if messages.get(&request).is_some_and(|r| r.reply_to.is_none()) {
                    drawn.insert(id, anchor);
                    drawn.insert(request, anchor);
                }
            }
        }
    }
    let replies: Vec<(u64, Step)> = messages
        .iter()
        .filter(|(id, _)| !drawn.contains_key(id))
        .filter_map(|(id, m)| Some((*id, *drawn.get(&m.reply_to?)?)))
        .collect();
    drawn.extend(replies);
    for (id, anchor) in drawn {
        if let Some(m) = messages.get_mut(&id) {
            m.anchor = Some(anchor);
        }
    }
    let mut out = Vec::new();
    for m in messages.into_values() {
        let Some(anchor) = m.anchor else { continue };
        let arrow = |at: usize, t_ns: u64, fate: Fate| Arrow {
            at,
            t_ns,
            from: m.from.clone(),
            to: m.to.clone(),
            msg: m.msg.clone(),
            fate,
            anchor,
        };
        if m.ends.is_empty() {
            out.push(arrow(m.send_index, m.t_ns, Fate::InFlight));
        }
        for (at, t_ns, _, fate) in &m.ends {
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

    use crate::render::test_events::{deliver, dropped, event, send};

    fn ev(index: usize, t_ns: u64, node: &str, what: Happening) -> TraceEvent {
        event(index, t_ns, node, what, Salience::Chatter, "")
    }

    /// (at, from, to, msg, fate) of each arrow drawn with the steps of `shown` and `opening`
    /// (events whose steps are kept) and `shown` nodes' instants.
    fn drawn(events: &[TraceEvent], shown: &[usize], opening: &[usize]) -> Vec<(usize, String, String, String, Fate)> {
        let steps = steps(events);
        let kept = Kept {
            shown: shown.iter().map(|i| steps[i]).collect(),
            opening: opening.iter().map(|i| steps[i]).collect(),
            shown_at: shown
                .iter()
                .map(|i| (events[*i].node.clone(), events[*i].t_ns))
                .collect(),
        };
        arrows(events, &steps, &kept)
            .into_iter()
            .map(|a| (a.at, a.from, a.to, a.msg, a.fate))
            .collect()
    }

    fn arrow(at: usize, from: &str, to: &str, msg: &str, fate: Fate) -> (usize, String, String, String, Fate) {
        (at, from.into(), to.into(), msg.into(), fate)
    }

    /// A client's round: a timer, a request to b (answered), one to c (cut), one in flight.
    fn round() -> Vec<TraceEvent> {
        vec![
            ev(0, 1, "a", Happening::Timer { tag: 0 }),
            ev(1, 1, "a", send("b", 1, "SET")),
            ev(2, 1, "a", send("c", 2, "SET")),
            ev(3, 1, "a", dropped("a", "c", 2, "SET", DropReason::Partition)),
            ev(4, 1, "a", send("d", 3, "late")),
            ev(5, 5, "b", deliver("a", 1, "SET")),
            ev(6, 5, "b", send("a", 4, "OK")),
            ev(7, 9, "a", deliver("b", 4, "OK")),
            ev(8, 9, "a", Happening::Timer { tag: 1 }),
            ev(9, 9, "a", send("b", 5, "DEL")),
            ev(10, 12, "b", deliver("a", 5, "DEL")),
            ev(11, 12, "b", send("a", 6, "1")),
            ev(12, 15, "a", deliver("b", 6, "1")),
        ]
    }

    #[test]
    fn an_opening_step_draws_its_requests_their_replies_and_its_losses() {
        let events = round();
        assert_eq!(
            drawn(&events, &[0], &[0]),
            vec![
                arrow(3, "a", "c", "SET", Fate::Dropped(DropReason::Partition)),
                arrow(4, "a", "d", "late", Fate::InFlight),
                arrow(5, "a", "b", "SET", Fate::Delivered),
                arrow(7, "b", "a", "OK", Fate::Delivered),
            ]
        );
    }

    #[test]
    fn a_shown_step_draws_what_it_received_and_losses_but_not_what_it_sent() {
        let events = round();
        // The client's step at 1 is shown but opens nothing: only the loss and the message
        // still in flight are drawn, not the delivered request.
        assert_eq!(
            drawn(&events, &[0], &[]),
            vec![
                arrow(3, "a", "c", "SET", Fate::Dropped(DropReason::Partition)),
                arrow(4, "a", "d", "late", Fate::InFlight),
            ]
        );
        // The server's step that received the release is shown: the release and its reply.
        assert_eq!(
            drawn(&events, &[10], &[]),
            vec![
                arrow(10, "a", "b", "DEL", Fate::Delivered),
                arrow(12, "b", "a", "1", Fate::Delivered)
            ]
        );
    }

    #[test]
    fn a_reply_is_never_drawn_without_its_request() {
        let events = round();
        // The client shows an event in the step that received "OK": the request comes with it,
        // though the step that sent it is not shown. The release sent after a timer, in the
        // same instant, is no reply: it stays folded.
        assert_eq!(
            drawn(&events, &[7], &[]),
            vec![
                arrow(5, "a", "b", "SET", Fate::Delivered),
                arrow(7, "b", "a", "OK", Fate::Delivered)
            ]
        );
        // A ping-pong: "ack" answers "pong", which answers "ping".
        let events = vec![
            ev(0, 1, "a", Happening::Timer { tag: 0 }),
            ev(1, 1, "a", send("b", 1, "ping")),
            ev(2, 2, "b", deliver("a", 1, "ping")),
            ev(3, 2, "b", send("a", 2, "pong")),
            ev(4, 3, "a", deliver("b", 2, "pong")),
            ev(5, 3, "a", send("b", 3, "ack")),
            ev(6, 4, "b", deliver("a", 3, "ack")),
        ];
        // "ack" alone would be a reply without its request, whose own request is not drawn
        // either: both stay folded.
        assert_eq!(drawn(&events, &[6], &[]), vec![]);
        // "pong" brings its request, and its own reply one hop down.
        assert_eq!(
            drawn(&events, &[4], &[]),
            vec![
                arrow(2, "a", "b", "ping", Fate::Delivered),
                arrow(4, "b", "a", "pong", Fate::Delivered),
                arrow(6, "a", "b", "ack", Fate::Delivered),
            ]
        );
    }
}
