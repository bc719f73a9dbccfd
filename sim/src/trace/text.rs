//! The timeline's line for an event, written into any `fmt::Write`: the erased event keeps it
//! as a `String`, the trace line writer escapes it straight into its buffer. One function, so
//! the two never disagree.

use std::fmt::{self, Write};

use crate::history::What;
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation};
use crate::time::{fmt_duration, fmt_signed_secs};

/// Writes the timeline's line for `what` (an observation's is its own `describe`).
pub(crate) fn write_text<M: Message, O: Observation>(
    w: &mut impl Write,
    names: &Names,
    what: &What<M, O>,
) -> fmt::Result {
    let name = |n: &NodeId| names.of(*n);
    match what {
        What::Start => w.write_str("starts"),
        What::Send { to, msg, .. } => write!(w, "-> {}: {msg}", name(to)),
        What::Deliver { from, msg, .. } => write!(w, "<- {}: {msg}", name(from)),
        What::Drop {
            from, to, msg, reason, ..
        } => write!(w, "message {} -> {} dropped ({reason:?}): {msg}", name(from), name(to)),
        // A quarter of a run's events: written without the formatter.
        What::Timer { tag } => {
            w.write_str("timer ")?;
            w.write_str(itoa::Buffer::new().format(*tag))?;
            w.write_str(" fires")
        }
        What::Observe(o) => w.write_str(&o.describe(names)),
        What::Pause { duration_ns, suspend } => {
            if *suspend {
                write!(
                    w,
                    "SUSPENDED for {} (VM suspend: its monotonic clock stops)",
                    fmt_duration(*duration_ns)
                )
            } else {
                write!(
                    w,
                    "PAUSED for {} (stop-the-world: runs nothing)",
                    fmt_duration(*duration_ns)
                )
            }
        }
        What::Resume => w.write_str("resumes"),
        What::Crash { restart_after_ns } => match restart_after_ns {
            Some(r) => write!(w, "CRASHED (restarts after {})", fmt_duration(*r)),
            None => w.write_str("CRASHED (never restarts)"),
        },
        What::Restart => w.write_str("restarts"),
        What::ClockJump { by_ns } => write!(w, "wall clock JUMPS by {}", fmt_signed_secs(*by_ns)),
        What::Failover { primary } => write!(
            w,
            "FAILOVER: the operator replaces {} (its replica or the next leader takes over)",
            name(primary)
        ),
        What::Partition { groups, one_way, .. } => {
            if *one_way {
                w.write_str("one-way cut: ")?;
                write_group(w, names, &groups[0])?;
                w.write_str(" cannot reach ")?;
                write_groups(w, names, &groups[1..], ", ")
            } else {
                w.write_str("PARTITION: ")?;
                write_groups(w, names, groups, " | ")
            }
        }
        What::Heal { .. } => w.write_str("partition healed"),
        What::Delay {
            from,
            to,
            window_ns,
            extra_ns,
            ..
        } => write!(
            w,
            "messages {} -> {} sent in the next {} are delayed {}",
            name(from),
            name(to),
            fmt_duration(*window_ns),
            fmt_duration(*extra_ns)
        ),
        What::Lossy {
            from,
            to,
            ppm,
            duplicate,
            ..
        } => {
            let verb = if *duplicate { "duplicated" } else { "lost" };
            write!(
                w,
                "messages {} -> {} {verb} with probability {ppm} ppm",
                any_node(names, from),
                any_node(names, to)
            )
        }
        What::WindowEnd { .. } => w.write_str("network fault window closes"),
    }
}

/// A lossy link's end: a node's name, or `*` for any node.
pub(crate) fn any_node<'a>(names: &'a Names, n: &Option<NodeId>) -> &'a str {
    n.map_or("*", |n| names.of(n))
}

/// One partition group as the trace spells it: `{a, b}`.
pub(crate) fn write_group(w: &mut impl Write, names: &Names, group: &[NodeId]) -> fmt::Result {
    w.write_char('{')?;
    for (i, n) in group.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        w.write_str(names.of(*n))?;
    }
    w.write_char('}')
}

fn write_groups(w: &mut impl Write, names: &Names, groups: &[Vec<NodeId>], sep: &str) -> fmt::Result {
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            w.write_str(sep)?;
        }
        write_group(w, names, g)?;
    }
    Ok(())
}
