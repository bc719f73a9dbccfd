//! A typed history erased into trace events: each history event becomes a [`Happening`] (node
//! ids resolved to names, messages to their text) and the line the timeline prints.

use crate::history::{Event, History, What};
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation, Salience};

use super::text::{any_node, write_group, write_text};
use super::{Happening, Observed, Stamp, TraceEvent};

/// Erases every event of `h`.
pub fn erase<M: Message, O: Observation>(h: &History<M, O>) -> Vec<TraceEvent> {
    h.events
        .iter()
        .enumerate()
        .map(|(index, e)| erase_event(&h.names, index, e))
        .collect()
}

/// Erases event `index` of a run whose nodes are `names`.
pub fn erase_event<M: Message, O: Observation>(names: &Names, index: usize, e: &Event<M, O>) -> TraceEvent {
    let at = Stamp {
        t_ns: e.t_ns,
        node: names.of(e.node).to_string(),
        wall_ns: e.wall_ns,
        mono_ns: e.mono_ns,
    };
    TraceEvent::new(
        index,
        at,
        happening(names, &e.what),
        text(names, &e.what),
        salience(&e.what),
    )
}

/// The timeline's line for `what`.
pub(super) fn text<M: Message, O: Observation>(names: &Names, what: &What<M, O>) -> String {
    let mut text = String::new();
    write_text(&mut text, names, what).expect("a String takes any text");
    text
}

/// How much the timeline needs `what`: messages, timers and starts are chatter, faults are
/// always part of the story, an observation says for itself.
pub fn salience<M, O: Observation>(what: &What<M, O>) -> Salience {
    match what {
        What::Start | What::Send { .. } | What::Deliver { .. } | What::Drop { .. } | What::Timer { .. } => {
            Salience::Chatter
        }
        What::Observe(o) => o.salience(),
        _ => Salience::Salient,
    }
}

/// What happened, with node ids resolved to names.
pub(super) fn happening<M: Message, O: Observation>(names: &Names, what: &What<M, O>) -> Happening {
    let name = |n: &NodeId| names.of(*n).to_string();
    match what {
        What::Start => Happening::Start,
        What::Send { to, msg_id, msg } => Happening::Send {
            msg: msg.to_string(),
            msg_id: *msg_id,
            to: name(to),
        },
        What::Deliver { from, msg_id, msg } => Happening::Deliver {
            from: name(from),
            msg: msg.to_string(),
            msg_id: *msg_id,
        },
        What::Drop {
            from,
            to,
            msg_id,
            msg,
            reason,
        } => Happening::Drop {
            from: name(from),
            msg: msg.to_string(),
            msg_id: *msg_id,
            reason: *reason,
            to: name(to),
        },
        What::Timer { tag } => Happening::Timer { tag: *tag },
        What::Observe(o) => Happening::Observe(Observed::of(o)),
        What::Pause { duration_ns, suspend } => Happening::Pause {
            duration_ns: *duration_ns,
            suspend: *suspend,
        },
        What::Resume => Happening::Resume,
        What::Crash { restart_after_ns } => Happening::Crash {
            restart_after_ns: *restart_after_ns,
        },
        What::Restart => Happening::Restart,
        What::ClockJump { by_ns } => Happening::ClockJump { by_ns: *by_ns },
        What::Failover { primary } => Happening::Failover { primary: name(primary) },
        What::Partition { fault, groups, one_way } => Happening::Partition {
            fault: *fault,
            groups: groups
                .iter()
                .map(|g| {
                    let mut s = String::new();
                    write_group(&mut s, names, g).expect("a String takes any text");
                    s
                })
                .collect(),
            one_way: *one_way,
        },
        What::Heal { fault } => Happening::Heal { fault: *fault },
        What::Delay {
            fault,
            from,
            to,
            window_ns,
            extra_ns,
        } => Happening::Delay {
            extra_ns: *extra_ns,
            fault: *fault,
            from: name(from),
            to: name(to),
            window_ns: *window_ns,
        },
        What::Lossy {
            fault,
            from,
            to,
            ppm,
            duplicate,
        } => Happening::Lossy {
            duplicate: *duplicate,
            fault: *fault,
            from: any_node(names, from).to_string(),
            ppm: *ppm,
            to: any_node(names, to).to_string(),
        },
        What::WindowEnd { fault } => Happening::WindowEnd { fault: *fault },
    }
}
