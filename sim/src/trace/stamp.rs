//! A line's stamp — `,"t_ns":…,"node":"…","wall_ns":…,"mono_ns":…` — kept from one line to
//! the next: events come in bursts at one instant on one node (a timer, the facts it records,
//! the messages it sends), and two lines in three repeat the stamp of the line before, which
//! is then copied whole instead of written piece by piece.

use crate::history::Event;
use crate::ids::{Names, NodeId};

/// The last stamp written, and the readings it was written from.
#[derive(Default)]
pub(super) struct LastStamp {
    text: String,
    at: Option<(u64, NodeId, i64, u64)>,
}

impl LastStamp {
    /// The stamp of `e`, written anew only if its readings differ from the last one's.
    pub(super) fn of<M, O>(&mut self, names: &Names, e: &Event<M, O>) -> &str {
        let at = (e.t_ns, e.node, e.wall_ns, e.mono_ns);
        if self.at != Some(at) {
            self.at = Some(at);
            self.text.clear();
            write(&mut self.text, names, at);
        }
        &self.text
    }
}

fn write(out: &mut String, names: &Names, (t_ns, node, wall_ns, mono_ns): (u64, NodeId, i64, u64)) {
    let mut digits = itoa::Buffer::new();
    let t = digits.format(t_ns);
    out.push_str(",\"t_ns\":");
    out.push_str(t);
    out.push_str(",\"node\":\"");
    out.push_str(names.json(node));
    // A clock that has not drifted reads true time (every event of many runs): its digits
    // are those of `t_ns`, not formatted again.
    out.push_str("\",\"wall_ns\":");
    if u64::try_from(wall_ns) == Ok(t_ns) {
        out.push_str(t);
    } else {
        out.push_str(itoa::Buffer::new().format(wall_ns));
    }
    out.push_str(",\"mono_ns\":");
    if mono_ns == t_ns {
        out.push_str(t);
    } else {
        out.push_str(itoa::Buffer::new().format(mono_ns));
    }
}
