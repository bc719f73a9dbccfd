//! The trace as the viewer's script reads it: one compact JSON object. Each event is an array
//! (`[t_ns, node, wall_ns, mono_ns, salience, kind, text]`, plus the message id of a send,
//! delivery or drop, so the viewer can join the two ends of a message), nodes are numbered
//! (`-1` is the network), and the lease spans come precomputed, so the script only draws.

use locksim_protocols::Role;
use locksim_sim::Salience;
use locksim_sim::trace::{Happening, TraceEvent};
use serde_json::{Value, json};

use super::page::Page;
use super::spans::spans;
use super::support::support;
use crate::render::{Cast, NETWORK, nodes};

/// The viewer's data for `events`, as a JSON object.
pub(super) fn data(events: &[TraceEvent], cast: &Cast, page: &Page) -> Value {
    let names = nodes(events);
    let lanes: Vec<Value> = names
        .iter()
        .map(|n| {
            let role = match cast.role(n) {
                Some(Role::Client) => "client",
                Some(Role::Server) => "server",
                Some(Role::Resource) => "resource",
                None => "node",
            };
            json!([n, role])
        })
        .collect();
    let rows: Vec<Value> = events
        .iter()
        .map(|e| {
            let node = names.iter().position(|n| *n == e.node).map_or(-1, |i| i as i64);
            let salience = match e.salience {
                Salience::Chatter => 0,
                Salience::Routine => 1,
                Salience::Salient => 2,
            };
            let mut row = vec![
                json!(e.t_ns),
                json!(node),
                json!(e.wall_ns),
                json!(e.mono_ns),
                json!(salience),
                json!(kind(&e.what)),
                json!(e.text),
            ];
            if let Happening::Send { msg_id, .. } | Happening::Deliver { msg_id, .. } | Happening::Drop { msg_id, .. } =
                e.what
            {
                row.push(json!(msg_id));
            }
            Value::Array(row)
        })
        .collect();
    let spans = spans(events);
    // A client holds the lock while a quorum of the lock servers hold its key: a majority of
    // them, but no more than its acquisitions were ever granted by (one primary for single
    // Redis; an etcd leader, which a grant names as no server set at all).
    let majority = cast.lock_servers().len() / 2 + 1;
    let quorum = spans
        .fewest_granted
        .map_or(majority, |f| majority.min(f as usize))
        .max(1);
    json!({
        "page": page,
        "network": NETWORK,
        "lanes": lanes,
        "quorum": quorum,
        "events": rows,
        "support": support(&spans.held),
        "beliefs": spans.beliefs,
        "held": spans.held,
    })
}

/// The event's kind as its trace line names it.
fn kind(what: &Happening) -> String {
    match what {
        Happening::Observe(o) => o.event.clone(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("kind").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default(),
    }
}
