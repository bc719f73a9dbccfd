//! A typed history erased into trace events: each history event becomes a [`Happening`] (node
//! ids resolved to names, messages to their text) and the line the timeline prints.

use crate::history::{Event, History, What};
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation, Salience};
use crate::time::{fmt_duration, fmt_signed_secs};

use super::{Happening, Observed, Stamp, TraceEvent};

fn group_list(names: &Names, groups: &[Vec<NodeId>]) -> Vec<String> {
    groups
        .iter()
        .map(|g| format!("{{{}}}", g.iter().map(|n| names.of(*n)).collect::<Vec<_>>().join(", ")))
        .collect()
}

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
    let (what, text, salience) = happening(names, &e.what);
    let at = Stamp {
        t_ns: e.t_ns,
        node: names.of(e.node).to_string(),
        wall_ns: e.wall_ns,
        mono_ns: e.mono_ns,
    };
    TraceEvent::new(index, at, what, text, salience)
}

/// What happened, the timeline's line for it, and how much the line matters.
fn happening<M: Message, O: Observation>(names: &Names, what: &What<M, O>) -> (Happening, String, Salience) {
    let name = |n: &NodeId| names.of(*n).to_string();
    match what {
        What::Start => (Happening::Start, "starts".into(), Salience::Chatter),
        What::Send { to, msg_id, msg } => (
            Happening::Send {
                msg: msg.to_string(),
                msg_id: *msg_id,
                to: name(to),
            },
            format!("-> {}: {msg}", names.of(*to)),
            Salience::Chatter,
        ),
        What::Deliver { from, msg_id, msg } => (
            Happening::Deliver {
                from: name(from),
                msg: msg.to_string(),
                msg_id: *msg_id,
            },
            format!("<- {}: {msg}", names.of(*from)),
            Salience::Chatter,
        ),
        What::Drop {
            from,
            to,
            msg_id,
            msg,
            reason,
        } => (
            Happening::Drop {
                from: name(from),
                msg: msg.to_string(),
                msg_id: *msg_id,
                reason: *reason,
                to: name(to),
            },
            format!(
                "message {} -> {} dropped ({reason:?}): {msg}",
                names.of(*from),
                names.of(*to)
            ),
            Salience::Chatter,
        ),
        What::Timer { tag } => (
            Happening::Timer { tag: *tag },
            format!("timer {tag} fires"),
            Salience::Chatter,
        ),
        What::Observe(o) => (Happening::Observe(Observed::of(o)), o.describe(names), o.salience()),
        fault => fault_event(names, fault),
    }
}

/// A fault, or its end: always part of the story.
fn fault_event<M, O>(names: &Names, what: &What<M, O>) -> (Happening, String, Salience) {
    let (happening, text) = match what {
        What::Pause { .. }
        | What::Resume
        | What::Crash { .. }
        | What::Restart
        | What::ClockJump { .. }
        | What::Failover { .. } => process_fault(names, what),
        What::Partition { .. }
        | What::Heal { .. }
        | What::Delay { .. }
        | What::Lossy { .. }
        | What::WindowEnd { .. } => network_fault(names, what),
        What::Start
        | What::Send { .. }
        | What::Deliver { .. }
        | What::Drop { .. }
        | What::Timer { .. }
        | What::Observe(_) => {
            unreachable!("not a fault: erased by `happening`")
        }
    };
    (happening, text, Salience::Salient)
}

/// What befalls one process: a pause, a crash, a clock jump, a failover, or its end.
fn process_fault<M, O>(names: &Names, what: &What<M, O>) -> (Happening, String) {
    match what {
        What::Pause { duration_ns, suspend } => (
            Happening::Pause {
                duration_ns: *duration_ns,
                suspend: *suspend,
            },
            if *suspend {
                format!(
                    "SUSPENDED for {} (VM suspend: its monotonic clock stops)",
                    fmt_duration(*duration_ns)
                )
            } else {
                format!(
                    "PAUSED for {} (stop-the-world: runs nothing)",
                    fmt_duration(*duration_ns)
                )
            },
        ),
        What::Resume => (Happening::Resume, "resumes".into()),
        What::Crash { restart_after_ns } => (
            Happening::Crash {
                restart_after_ns: *restart_after_ns,
            },
            match restart_after_ns {
                Some(r) => format!("CRASHED (restarts after {})", fmt_duration(*r)),
                None => "CRASHED (never restarts)".into(),
            },
        ),
        What::Restart => (Happening::Restart, "restarts".into()),
        What::ClockJump { by_ns } => (
            Happening::ClockJump { by_ns: *by_ns },
            format!("wall clock JUMPS by {}", fmt_signed_secs(*by_ns)),
        ),
        What::Failover { primary } => (
            Happening::Failover {
                primary: names.of(*primary).to_string(),
            },
            format!(
                "FAILOVER: the operator replaces {} (its replica or the next leader takes over)",
                names.of(*primary)
            ),
        ),
        _ => unreachable!("not a process fault: erased by `fault_event`"),
    }
}

/// What befalls the network: a partition, a delay or loss window, or its end.
fn network_fault<M, O>(names: &Names, what: &What<M, O>) -> (Happening, String) {
    let name = |n: &NodeId| names.of(*n).to_string();
    match what {
        What::Partition { fault, groups, one_way } => partition(names, *fault, groups, *one_way),
        What::Heal { fault } => (Happening::Heal { fault: *fault }, "partition healed".into()),
        What::Delay {
            fault,
            from,
            to,
            window_ns,
            extra_ns,
        } => (
            Happening::Delay {
                extra_ns: *extra_ns,
                fault: *fault,
                from: name(from),
                to: name(to),
                window_ns: *window_ns,
            },
            format!(
                "messages {} -> {} sent in the next {} are delayed {}",
                names.of(*from),
                names.of(*to),
                fmt_duration(*window_ns),
                fmt_duration(*extra_ns)
            ),
        ),
        What::Lossy {
            fault,
            from,
            to,
            ppm,
            duplicate,
        } => {
            let end = |n: &Option<NodeId>| n.map_or("*".to_string(), |n| names.of(n).to_string());
            let verb = if *duplicate { "duplicated" } else { "lost" };
            let text = format!(
                "messages {} -> {} {verb} with probability {ppm} ppm",
                end(from),
                end(to)
            );
            let happening = Happening::Lossy {
                duplicate: *duplicate,
                fault: *fault,
                from: end(from),
                ppm: *ppm,
                to: end(to),
            };
            (happening, text)
        }
        What::WindowEnd { fault } => (
            Happening::WindowEnd { fault: *fault },
            "network fault window closes".into(),
        ),
        _ => unreachable!("not a network fault: erased by `fault_event`"),
    }
}

/// A partition into `groups`, or a one-way cut from the first group to the others.
fn partition(names: &Names, fault: u32, groups: &[Vec<NodeId>], one_way: bool) -> (Happening, String) {
    let g = group_list(names, groups);
    let text = if one_way {
        format!("one-way cut: {} cannot reach {}", g[0], g[1..].join(", "))
    } else {
        format!("PARTITION: {}", g.join(" | "))
    };
    let happening = Happening::Partition {
        fault,
        groups: g,
        one_way,
    };
    (happening, text)
}
