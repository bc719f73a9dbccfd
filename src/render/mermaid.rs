//! The run as a Mermaid `sequenceDiagram`: a participant per node, messages as arrows, faults,
//! acquisitions, expiries and refusals as notes, violations in red. The output is the content
//! of a ```` ```mermaid ```` block and renders on a GitHub page as it is.
//!
//! A diagram is only useful if it stays readable, so it shows the same compact selection as
//! the text timeline ([`mod@super::select`]): folded stretches become one note, and only messages
//! sent or received in a step with a kept event are drawn (`messages.rs`). Consecutive
//! events of one node's step share a note. Mermaid's grammar limits are handled in
//! `mermaid_text.rs`; every catalogue diagram is checked with Mermaid's own parser
//! (`tests/mermaid_parse.rs`).

use std::collections::{BTreeMap, BTreeSet};

use locksim_sim::trace::TraceEvent;
use serde_json::Value;

use super::mermaid_text::{escape, participant_ids, short};
use super::messages::{Arrow, Fate, Step, arrows};
use super::select::{Fold, Row, TimelineMode, select};
use super::{Marks, NETWORK, nodes, secs};

/// Longest message text on an arrow, in characters.
const ARROW_TEXT: usize = 48;
/// Background of a violating event's note.
const VIOLATION_RGB: &str = "rgb(255, 204, 204)";
/// Background of a refused write: the protection working, worth seeing at a glance.
const REFUSAL_RGB: &str = "rgb(255, 236, 179)";

/// What the diagram draws, in trace order.
enum Item<'a> {
    Event(&'a TraceEvent),
    Fold(&'a Fold),
    Arrow(&'a Arrow),
}

/// The Mermaid diagram of `events`, violations marked.
pub fn mermaid(events: &[TraceEvent], marks: &Marks) -> String {
    let rows = select(events, marks, TimelineMode::Compact);
    let names = nodes(events);
    let ids = participant_ids(&names);
    let id = |name: &str| names.iter().position(|n| *n == name).map(|i| ids[i].as_str());
    let servers = names.iter().filter(|n| n.starts_with("server-")).count();

    // Each kept step, with the trace index of its first kept event.
    let mut kept: BTreeMap<Step<'_>, usize> = BTreeMap::new();
    for r in &rows {
        if let Row::Event(e) = r {
            kept.entry((e.node.as_str(), e.t_ns)).or_insert(e.index);
        }
    }
    let steps: BTreeSet<Step<'_>> = kept.keys().copied().collect();
    let arrows = arrows(events, &steps);
    let folds: Vec<&Fold> = rows
        .iter()
        .filter_map(|r| match r {
            Row::Folded(f) => Some(f),
            Row::Event(_) => None,
        })
        .collect();
    // Sort keys: (trace index, 0 before / 1 at / 2 after). Events and folds sit at their index.
    let mut items: Vec<((usize, u8), Item<'_>)> = rows
        .iter()
        .map(|r| match r {
            Row::Event(e) => ((e.index, 1), Item::Event(e)),
            Row::Folded(f) => ((f.first_index, 1), Item::Fold(f)),
        })
        .collect();
    for a in &arrows {
        // A message of a kept step can sit among hidden events (the step was cut by a fold):
        // it goes on the side of the fold where its step's kept event is.
        let key = match folds.iter().find(|f| (f.first_index..=f.last_index).contains(&a.at)) {
            None => (a.at, 1),
            Some(f) => {
                let anchor = kept.get(&(a.anchor.0.as_str(), a.anchor.1)).copied().unwrap_or(a.at);
                if anchor < f.first_index {
                    (f.first_index, 0)
                } else {
                    (f.last_index, 2)
                }
            }
        };
        items.push((key, Item::Arrow(a)));
    }
    // Stable: arrows moved to one side of a fold keep their trace order.
    items.sort_by_key(|(key, _)| *key);

    let mut out = String::from("sequenceDiagram\n");
    for (name, id) in names.iter().zip(&ids) {
        out.push_str(&format!("    participant {id} as {name}\n"));
    }
    let everyone = match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a != b => format!("{a},{b}"),
        (Some(a), _) => a.clone(),
        _ => return out,
    };
    let mut note: Option<Note> = None;
    for (_, item) in items {
        match item {
            Item::Event(e) => {
                if is_message(e) && !marks.contains(e.index) {
                    continue; // drawn as its arrow
                }
                let over = if e.node == NETWORK {
                    network_anchor(e, &id).unwrap_or_else(|| everyone.clone())
                } else {
                    match id(&e.node) {
                        Some(i) => i.to_string(),
                        None => continue,
                    }
                };
                let lines: Vec<String> = describe(e, servers).iter().map(|l| escape(l)).collect();
                let emphasis = emphasis(e, marks);
                if let Some(n) = note.as_mut()
                    && n.emphasis.is_none()
                    && emphasis.is_none()
                    && n.over == over
                    && n.t_ns == e.t_ns
                {
                    n.lines.extend(lines);
                    continue;
                }
                flush(&mut note, &mut out);
                note = Some(Note {
                    over,
                    t_ns: e.t_ns,
                    header: header(e),
                    lines,
                    emphasis,
                });
            }
            Item::Fold(f) => {
                flush(&mut note, &mut out);
                out.push_str(&format!(
                    "    Note over {everyone}: … {} routine events, {} s to {} s …\n",
                    f.count,
                    secs(f.first_t_ns as i64),
                    secs(f.last_t_ns as i64)
                ));
            }
            Item::Arrow(a) => {
                let (Some(from), Some(to)) = (id(&a.from), id(&a.to)) else {
                    continue;
                };
                flush(&mut note, &mut out);
                let text = escape(&short(&a.msg, ARROW_TEXT));
                let line = match &a.fate {
                    Fate::Delivered => format!("{from}->>{to}: {text}"),
                    Fate::Dropped(reason) => format!("{from}-x{to}: {text} ({})", dropped(reason)),
                    Fate::InFlight => format!("{from}-){to}: {text} (still in flight at the end)"),
                };
                out.push_str(&format!("    {line}\n"));
            }
        }
    }
    flush(&mut note, &mut out);
    out
}

/// One note: the events of one node's step, or a single emphasised event.
struct Note {
    over: String,
    t_ns: u64,
    header: String,
    lines: Vec<String>,
    emphasis: Option<Emphasis>,
}

enum Emphasis {
    Violation(String),
    Refusal,
}

fn flush(note: &mut Option<Note>, out: &mut String) {
    let Some(n) = note.take() else { return };
    let mut text = format!("{}<br>{}", n.header, n.lines.join("<br>"));
    let rgb = match &n.emphasis {
        None => None,
        Some(Emphasis::Refusal) => Some(REFUSAL_RGB),
        Some(Emphasis::Violation(ids)) => {
            text.push_str(&format!("<br>VIOLATES {ids}"));
            Some(VIOLATION_RGB)
        }
    };
    let line = format!("Note over {}: {text}", n.over);
    match rgb {
        Some(rgb) => out.push_str(&format!("    rect {rgb}\n        {line}\n    end\n")),
        None => out.push_str(&format!("    {line}\n")),
    }
}

fn is_message(e: &TraceEvent) -> bool {
    matches!(e.kind.as_str(), "send" | "deliver" | "drop")
}

fn emphasis(e: &TraceEvent, marks: &Marks) -> Option<Emphasis> {
    let ids = marks.of(e.index);
    if !ids.is_empty() {
        Some(Emphasis::Violation(ids.join(", ")))
    } else if matches!(e.kind.as_str(), "write_refused" | "write_rejected") {
        Some(Emphasis::Refusal)
    } else {
        None
    }
}

/// True time, and a local clock where it disagrees with true time (a jump, drift, a suspend):
/// the reader sees when the node's own clocks are what the story is about.
fn header(e: &TraceEvent) -> String {
    let mut h = format!("{} s", secs(e.t_ns as i64));
    if e.node == NETWORK {
        return h;
    }
    let ms = |ns: i64| ns.div_euclid(1_000_000);
    let t = ms(e.t_ns as i64);
    if ms(e.wall_ns) != t {
        h.push_str(&format!(" · wall {} s", secs(e.wall_ns)));
    }
    if ms(e.mono_ns as i64) != t {
        h.push_str(&format!(" · mono {} s", secs(e.mono_ns as i64)));
    }
    h
}

fn json(e: &TraceEvent) -> Value {
    serde_json::from_str(&e.json).unwrap_or(Value::Null)
}

/// Network events name the nodes they concern: a failover its primary, a delay its link.
fn network_anchor<'a>(e: &TraceEvent, id: &impl Fn(&str) -> Option<&'a str>) -> Option<String> {
    let v = json(e);
    let node = |key: &str| v.get(key).and_then(Value::as_str).and_then(id);
    match e.kind.as_str() {
        "failover" => node("primary").map(str::to_string),
        "delay" => match (node("from"), node("to")) {
            (Some(a), Some(b)) if a != b => Some(format!("{a},{b}")),
            (Some(a), _) => Some(a.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// The note lines for `e`. An acquisition spells out its token, validity and — when there are
/// several servers — which of them granted it, so a Redlock diagram shows two clients each
/// holding a majority; everything else is the simulator's own text.
fn describe(e: &TraceEvent, servers: usize) -> Vec<String> {
    if e.kind != "acquired" {
        return vec![e.text.clone()];
    }
    let v = json(e);
    let lease = v.get("lease").and_then(Value::as_u64).unwrap_or_default();
    let token = match v.get("token").and_then(Value::as_u64) {
        Some(t) => format!("token {t}"),
        None => "no token".to_string(),
    };
    let validity = v.get("validity_ns").and_then(Value::as_i64).unwrap_or_default();
    let mut lines = vec![format!(
        "ACQUIRED lease {:04x} · {token} · validity {} s",
        lease >> 48,
        secs(validity)
    )];
    let bits = v.get("servers").and_then(Value::as_u64).unwrap_or_default();
    if servers > 1 {
        let held: Vec<String> = (0..64)
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| format!("server-{i}"))
            .collect();
        lines.push(format!("on {} ({} of {servers})", held.join(", "), held.len()));
    }
    lines
}

fn dropped(reason: &str) -> &str {
    match reason {
        "partition" => "cut by the partition",
        "loss" => "lost",
        "down" => "receiver down or restarted",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;

    fn ev(index: usize, t_ms: u64, node: &str, kind: &str, salience: Salience, text: &str, json: &str) -> TraceEvent {
        TraceEvent {
            index,
            t_ns: t_ms * 1_000_000,
            node: node.into(),
            wall_ns: (t_ms * 1_000_000) as i64,
            mono_ns: t_ms * 1_000_000,
            kind: kind.into(),
            text: text.into(),
            salience,
            json: json.into(),
        }
    }

    #[test]
    fn a_small_story_renders_exactly() {
        use Salience::{Chatter, Routine, Salient};
        let mut events = vec![
            ev(0, 0, "client-0", "start", Chatter, "starts", "{}"),
            ev(1, 0, "server-0", "start", Chatter, "starts", "{}"),
            ev(2, 0, "server-1", "start", Chatter, "starts", "{}"),
            ev(
                3,
                0,
                "network",
                "partition",
                Salient,
                "PARTITION: {client-0} | {server-1}",
                "{}",
            ),
            ev(
                4,
                1,
                "client-0",
                "send",
                Chatter,
                "",
                r#"{"to":"server-0","msg_id":1,"msg":"SET lock; x"}"#,
            ),
            ev(
                5,
                1,
                "client-0",
                "send",
                Chatter,
                "",
                r#"{"to":"server-1","msg_id":2,"msg":"unseen"}"#,
            ),
            ev(
                6,
                1,
                "client-0",
                "drop",
                Chatter,
                "",
                r#"{"from":"client-0","to":"server-1","msg_id":2,"msg":"unseen","reason":"partition"}"#,
            ),
            ev(
                7,
                3,
                "server-0",
                "deliver",
                Chatter,
                "",
                r#"{"from":"client-0","msg_id":1,"msg":"SET lock; x"}"#,
            ),
            ev(8, 3, "server-0", "key_set", Routine, "lock key := lease caa5", "{}"),
            ev(
                9,
                3,
                "server-0",
                "send",
                Chatter,
                "",
                r#"{"to":"client-0","msg_id":3,"msg":"OK"}"#,
            ),
            ev(
                10,
                5,
                "client-0",
                "deliver",
                Chatter,
                "",
                r#"{"from":"server-0","msg_id":3,"msg":"OK"}"#,
            ),
            ev(
                11,
                5,
                "client-0",
                "acquired",
                Routine,
                "ACQUIRED ...",
                r#"{"lease":14602105199120797149,"token":7,"validity_ns":9995000000,"servers":1}"#,
            ),
            ev(12, 5, "client-0", "read_done", Routine, "read counter = 0", "{}"),
            ev(
                13,
                6,
                "client-0",
                "write_refused",
                Salient,
                "REJECTED (token 1 < max 2)",
                "{}",
            ),
            ev(
                14,
                6,
                "client-0",
                "send",
                Chatter,
                "",
                r#"{"to":"server-1","msg_id":4,"msg":"DEL"}"#,
            ),
            ev(
                15,
                6,
                "client-0",
                "drop",
                Chatter,
                "",
                r#"{"from":"client-0","to":"server-1","msg_id":4,"msg":"DEL","reason":"partition"}"#,
            ),
            ev(
                16,
                6,
                "client-0",
                "send",
                Chatter,
                "",
                r#"{"to":"server-0","msg_id":5,"msg":"DEL"}"#,
            ),
        ];
        events[12].wall_ns = 7_500_000;
        let mut marks = Marks::default();
        marks.add(11, "mutual_exclusion");
        let expected = "\
sequenceDiagram
    participant client_0 as client-0
    participant server_0 as server-0
    participant server_1 as server-1
    Note over client_0,server_1: 0.000 s<br>PARTITION: {client-0} | {server-1}
    client_0->>server_0: SET lock#59; x
    Note over server_0: 0.003 s<br>lock key := lease caa5
    server_0->>client_0: OK
    rect rgb(255, 204, 204)
        Note over client_0: 0.005 s<br>ACQUIRED lease caa5 · token 7 · validity 9.995 s<br>on server-0 (1 of 2)<br>VIOLATES mutual_exclusion
    end
    Note over client_0: 0.005 s · wall 0.007 s<br>read counter = 0
    rect rgb(255, 236, 179)
        Note over client_0: 0.006 s<br>REJECTED (token 1 #lt; max 2)
    end
    client_0-xserver_1: DEL (cut by the partition)
    client_0-)server_0: DEL (still in flight at the end)
";
        assert_eq!(mermaid(&events, &marks), expected);
    }
}
