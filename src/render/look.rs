//! How each note of a diagram is drawn — a colour per kind of fault, lime for an expiry or a
//! lease's end, amber for a refused write, red for a violation — shared by every diagram (Mermaid, SVG), so that a pause, a crash, a
//! clock jump, a partition and a failover look alike wherever they are drawn and unlike each
//! other.

use locksim_protocols::lock::obs::LockObs;
use locksim_sim::trace::{Happening, TraceEvent};

use super::diagram::{Emphasis, REFUSAL_RGB, VIOLATION_RGB};

/// Red ink: a violation's border and text.
pub(crate) const ALARM: &str = "rgb(204, 0, 0)";
/// A paused lifeline and a pause's border.
pub(crate) const PAUSED: &str = "rgb(37, 99, 235)";

/// How a note is drawn: its classes (for readers of the file and for tests), fill, border and
/// what the legend calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Look {
    pub(crate) class: &'static str,
    pub(crate) fill: &'static str,
    pub(crate) stroke: &'static str,
    pub(crate) stroke_width: u8,
    pub(crate) legend: &'static str,
}

const PLAIN: Look = Look {
    class: "event",
    fill: "rgb(255, 255, 255)",
    stroke: "rgb(136, 136, 136)",
    stroke_width: 1,
    legend: "event",
};
/// Mermaid's colours, so both diagrams read alike.
const VIOLATION: Look = Look {
    class: "event violation",
    fill: VIOLATION_RGB,
    stroke: ALARM,
    stroke_width: 2,
    legend: "violates an invariant",
};
const REFUSAL: Look = Look {
    class: "event refusal",
    fill: REFUSAL_RGB,
    stroke: "rgb(217, 119, 6)",
    stroke_width: 2,
    legend: "write refused",
};
const PAUSE: Look = Look {
    class: "event fault pause",
    fill: "rgb(219, 234, 254)",
    stroke: PAUSED,
    stroke_width: 1,
    legend: "pause, resume",
};
const CRASH: Look = Look {
    class: "event fault crash",
    fill: "rgb(212, 212, 212)",
    stroke: "rgb(38, 38, 38)",
    stroke_width: 2,
    legend: "crash, restart",
};
const CLOCK: Look = Look {
    class: "event fault clock",
    fill: "rgb(237, 233, 254)",
    stroke: "rgb(124, 58, 237)",
    stroke_width: 1,
    legend: "clock jump",
};
const NETWORK_FAULT: Look = Look {
    class: "event fault network",
    fill: "rgb(204, 251, 241)",
    stroke: "rgb(13, 148, 136)",
    stroke_width: 1,
    legend: "partition, delay, loss",
};
const FAILOVER: Look = Look {
    class: "event fault failover",
    fill: "rgb(252, 231, 243)",
    stroke: "rgb(219, 39, 119)",
    stroke_width: 1,
    legend: "failover",
};
/// A lock key or lease running out on its server, or a client finding its own validity over:
/// the moment Kleppmann's story turns on (the lock is gone while its holder still acts), so it
/// has a strong colour of its own, unlike any fault's.
const EXPIRY: Look = Look {
    class: "event expiry",
    fill: "rgb(217, 249, 157)",
    stroke: "rgb(77, 124, 15)",
    stroke_width: 2,
    legend: "expiry, lease end",
};
pub(crate) const LEGEND: [Look; 9] = [
    PLAIN,
    PAUSE,
    CRASH,
    CLOCK,
    NETWORK_FAULT,
    FAILOVER,
    EXPIRY,
    REFUSAL,
    VIOLATION,
];

/// The band behind a lost message: its own colour, not a violation's red (a loss is a fault's
/// doing, not a broken invariant).
pub(crate) const DROPPED_RGB: &str = "rgb(254, 215, 170)";

/// The events that end a lock or lease, by event name, whatever the model: a server's key or
/// lease expiring (the lock vocabulary's, etcd's, ZooKeeper's session, a node-id lease), and a
/// holder learning it lost its lock or lease.
const EXPIRIES: [&str; 7] = [
    "key_expired",
    "lease_expired",
    "session_expired",
    "node_id_expired",
    "lock_lost",
    "lease_lost",
    "node_id_lost",
];

/// Whether `e` marks the end of a lock or lease: one of [`EXPIRIES`], or a client's deadline
/// check that finds its validity over.
fn ends_a_lease(e: &TraceEvent) -> bool {
    let Happening::Observe(o) = &e.what else {
        return false;
    };
    EXPIRIES.contains(&o.event.as_str())
        || (o.event == "deadline_checked" && matches!(o.decode(), Some(LockObs::DeadlineChecked { ok: false, .. })))
}

/// Whether `look` is the plain one: a note drawn with no band of colour.
pub(crate) fn plain(look: &Look) -> bool {
    *look == PLAIN
}

/// Emphasis first (as in the Mermaid diagram), then the kind of fault, so that each fault
/// reads as what it is.
pub(crate) fn look(e: &TraceEvent, emphasis: Option<&Emphasis>) -> Look {
    match emphasis {
        Some(Emphasis::Violation(_)) => VIOLATION,
        Some(Emphasis::Refusal) => REFUSAL,
        None => match e.what {
            Happening::Pause { .. } | Happening::Resume => PAUSE,
            Happening::Crash { .. } | Happening::Restart => CRASH,
            Happening::ClockJump { .. } => CLOCK,
            Happening::Partition { .. }
            | Happening::Heal { .. }
            | Happening::Delay { .. }
            | Happening::Lossy { .. }
            | Happening::WindowEnd { .. } => NETWORK_FAULT,
            Happening::Failover { .. } => FAILOVER,
            _ if ends_a_lease(e) => EXPIRY,
            _ => PLAIN,
        },
    }
}
