//! A line's stamp — `,"t_ns":…,"node":"…","wall_ns":…,"mono_ns":…` — kept from one line to
//! the next: events come in bursts at one instant on one node (a timer, the facts it records,
//! the messages it sends), and two lines in three repeat the stamp of the line before, which
//! is then copied whole instead of written piece by piece.

use crate::history::Event;
use crate::ids::{Names, NodeId};
use crate::pieces::push_short;

/// The last stamp written, and the readings it was written from.
#[derive(Default)]
pub(super) struct LastStamp {
    text: String,
    at: Option<(u64, NodeId, i64, u64)>,
    /// Each node's part of a stamp between its true time and its wall clock,
    /// `,"node":"name","wall_ns":`, by index, made at the node's first stamp: one copy where
    /// it was three pieces (the name a copy of a length known only at run time between two
    /// constants), on every stamp written.
    nodes: Vec<String>,
}

impl LastStamp {
    /// The stamp of `e`, written anew only if its readings differ from the last one's.
    pub(super) fn of<M, O>(&mut self, names: &Names, e: &Event<M, O>) -> &str {
        if self.at != Some((e.t_ns, e.node, e.wall_ns, e.mono_ns)) {
            self.write(names, e.t_ns, e.node, e.wall_ns, e.mono_ns);
        }
        &self.text
    }

    /// Writes and keeps the stamp of these readings. They come one by one, in registers: as
    /// a tuple, they were stored on the stack for every line, written or not (~9 stores). The
    /// digits of `t_ns`, three times in most stamps, go in by [`push_short`], without a
    /// `memcpy` call each (~7 instructions a copy).
    fn write(&mut self, names: &Names, t_ns: u64, node: NodeId, wall_ns: i64, mono_ns: u64) {
        self.at = Some((t_ns, node, wall_ns, mono_ns));
        let out = &mut self.text;
        out.clear();
        let mut digits = itoa::Buffer::new();
        let t = digits.format(t_ns);
        out.push_str(",\"t_ns\":");
        push_short(out, t);
        out.push_str(node_part(&mut self.nodes, names, node));
        // A clock that has not drifted reads true time (every event of many runs): its digits
        // are those of `t_ns`, not formatted again.
        if u64::try_from(wall_ns) == Ok(t_ns) {
            push_short(out, t);
        } else {
            out.push_str(itoa::Buffer::new().format(wall_ns));
        }
        out.push_str(",\"mono_ns\":");
        if mono_ns == t_ns {
            push_short(out, t);
        } else {
            out.push_str(itoa::Buffer::new().format(mono_ns));
        }
    }
}

/// `,"node":"name","wall_ns":` for `node`, kept in `nodes`.
fn node_part<'a>(nodes: &'a mut Vec<String>, names: &Names, node: NodeId) -> &'a str {
    if node == NodeId::NET {
        return NET_PART;
    }
    while nodes.len() <= node.index() {
        let n = NodeId(nodes.len() as u32);
        nodes.push(format!(",\"node\":\"{}\",\"wall_ns\":", names.json(n)));
    }
    &nodes[node.index()]
}

/// [`node_part`] for the network ([`NodeId::NET_NAME`]), whose events are a run's faults.
const NET_PART: &str = ",\"node\":\"network\",\"wall_ns\":";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_is_named_as_its_events_name_it() {
        assert_eq!(NET_PART, format!(",\"node\":\"{}\",\"wall_ns\":", NodeId::NET_NAME));
    }
}
