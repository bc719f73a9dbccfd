//! Turning a typed history into trace lines: one JSON object per event (true time, node, local
//! clock readings, payload, and the timeline's text), plus the SHA-256 that pins a run.
//! This is where message and observation types are erased, so the CLI, traces and renderers
//! work the same for every protocol.

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::history::{History, What};
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation, Salience};
use crate::time::{fmt_duration, fmt_signed_secs};

/// One event, erased.
#[derive(Clone, Debug)]
pub struct TraceEvent {
    pub index: usize,
    pub t_ns: u64,
    pub node: String,
    pub wall_ns: i64,
    pub mono_ns: u64,
    /// `send`, `pause`, ... or, for observations, their event name (`acquired`).
    pub kind: String,
    /// What the timeline prints.
    pub text: String,
    /// How much the timeline needs it.
    pub salience: Salience,
    /// The event as one line of JSON: the trace's unit of comparison.
    pub json: String,
}

#[derive(Serialize)]
struct Line<'a> {
    i: usize,
    t_ns: u64,
    node: &'a str,
    wall_ns: i64,
    mono_ns: u64,
    kind: &'a str,
    #[serde(flatten)]
    detail: Value,
    salience: Salience,
    text: &'a str,
}

fn group_list(names: &Names, groups: &[Vec<NodeId>]) -> Vec<String> {
    groups
        .iter()
        .map(|g| format!("{{{}}}", g.iter().map(|n| names.of(*n)).collect::<Vec<_>>().join(", ")))
        .collect()
}

/// Erases every event of `h`.
pub fn erase<M: Message, O: Observation>(h: &History<M, O>) -> Vec<TraceEvent> {
    let names = &h.names;
    h.events
        .iter()
        .enumerate()
        .map(|(index, e)| {
            let (kind, detail, text, salience): (&str, Value, String, Salience) = match &e.what {
                What::Start => ("start", json!({}), "starts".into(), Salience::Chatter),
                What::Send { to, msg_id, msg } => (
                    "send",
                    json!({"to": names.of(*to), "msg_id": msg_id, "msg": msg.to_string()}),
                    format!("-> {}: {msg}", names.of(*to)),
                    Salience::Chatter,
                ),
                What::Deliver { from, msg_id, msg } => (
                    "deliver",
                    json!({"from": names.of(*from), "msg_id": msg_id, "msg": msg.to_string()}),
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
                    "drop",
                    json!({"from": names.of(*from), "to": names.of(*to), "msg_id": msg_id, "msg": msg.to_string(), "reason": reason}),
                    format!("message {} -> {} dropped ({reason:?}): {msg}", names.of(*from), names.of(*to)),
                    Salience::Chatter,
                ),
                What::Timer { tag } => ("timer", json!({"tag": tag}), format!("timer {tag} fires"), Salience::Chatter),
                What::Pause { duration_ns, suspend } => (
                    "pause",
                    json!({"duration_ns": duration_ns, "suspend": suspend}),
                    if *suspend {
                        format!("SUSPENDED for {} (VM suspend: its monotonic clock stops)", fmt_duration(*duration_ns))
                    } else {
                        format!("PAUSED for {} (stop-the-world: runs nothing)", fmt_duration(*duration_ns))
                    },
                    Salience::Salient,
                ),
                What::Resume => ("resume", json!({}), "resumes".into(), Salience::Salient),
                What::Crash { restart_after_ns } => (
                    "crash",
                    json!({"restart_after_ns": restart_after_ns}),
                    match restart_after_ns {
                        Some(r) => format!("CRASHED (restarts after {})", fmt_duration(*r)),
                        None => "CRASHED (never restarts)".into(),
                    },
                    Salience::Salient,
                ),
                What::Restart => ("restart", json!({}), "restarts".into(), Salience::Salient),
                What::ClockJump { by_ns } => (
                    "clock_jump",
                    json!({"by_ns": by_ns}),
                    format!("wall clock JUMPS by {}", fmt_signed_secs(*by_ns)),
                    Salience::Salient,
                ),
                What::Partition { fault, groups, one_way } => {
                    let g = group_list(names, groups);
                    let text = if *one_way {
                        format!("one-way cut: {} cannot reach {}", g[0], g[1..].join(", "))
                    } else {
                        format!("PARTITION: {}", g.join(" | "))
                    };
                    ("partition", json!({"fault": fault, "groups": g, "one_way": one_way}), text, Salience::Salient)
                }
                What::Heal { fault } => ("heal", json!({"fault": fault}), "partition healed".into(), Salience::Salient),
                What::Delay {
                    fault,
                    from,
                    to,
                    window_ns,
                    extra_ns,
                } => (
                    "delay",
                    json!({"fault": fault, "from": names.of(*from), "to": names.of(*to), "window_ns": window_ns, "extra_ns": extra_ns}),
                    format!(
                        "messages {} -> {} sent in the next {} are delayed {}",
                        names.of(*from),
                        names.of(*to),
                        fmt_duration(*window_ns),
                        fmt_duration(*extra_ns)
                    ),
                    Salience::Salient,
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
                    (
                        "lossy",
                        json!({"fault": fault, "from": end(from), "to": end(to), "ppm": ppm, "duplicate": duplicate}),
                        format!("messages {} -> {} {verb} with probability {ppm} ppm", end(from), end(to)),
                        Salience::Salient,
                    )
                }
                What::Failover { primary } => (
                    "failover",
                    json!({"primary": names.of(*primary)}),
                    format!("FAILOVER: the operator replaces {} (its replica or the next leader takes over)", names.of(*primary)),
                    Salience::Salient,
                ),
                What::WindowEnd { fault } => ("window_end", json!({"fault": fault}), "network fault window closes".into(), Salience::Salient),
                What::Observe(o) => (
                    o.kind(),
                    serde_json::to_value(o).expect("observations serialize"),
                    o.describe(names),
                    o.salience(),
                ),
            };
            let node = names.of(e.node);
            let line = Line {
                i: index,
                t_ns: e.t_ns,
                node,
                wall_ns: e.wall_ns,
                mono_ns: e.mono_ns,
                kind,
                detail,
                salience,
                text: &text,
            };
            TraceEvent {
                index,
                t_ns: e.t_ns,
                node: node.to_string(),
                wall_ns: e.wall_ns,
                mono_ns: e.mono_ns,
                kind: kind.to_string(),
                json: serde_json::to_string(&line).expect("trace lines serialize"),
                text,
                salience,
            }
        })
        .collect()
}

/// The SHA-256 of a run's trace lines, in hex: equal hashes, byte-identical traces.
pub fn sha256_hex<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = Sha256::new();
    for line in lines {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    hasher.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
