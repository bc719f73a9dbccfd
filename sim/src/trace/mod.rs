//! Turning a typed history into trace events: one per history event, with true time, node,
//! local clock readings, what happened (typed: [`Happening`]), the timeline's text, and the
//! event as one line of JSON, plus the SHA-256 that pins a run.
//! This is where message and observation types are erased, so the CLI, traces and renderers
//! work the same for every protocol.

use serde::{Deserialize, Serialize};

use crate::node::Salience;

mod erase;
mod facts;
mod fields;
mod happening;
mod hash;
mod index;
mod kinds;
mod line;
mod page;
mod plain;
mod sent;
mod sink;
mod sorted;
mod stamp;
mod text;
mod timer;

pub use erase::{erase, erase_event};
pub use happening::{Happening, Observed};
pub use hash::TraceHash;
pub use line::LineWriter;
pub use page::Page;
pub use sink::{Passing, Recording, TraceSink};

/// One event, erased.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    pub index: usize,
    pub t_ns: u64,
    pub node: String,
    pub wall_ns: i64,
    pub mono_ns: u64,
    pub what: Happening,
    /// What the timeline prints.
    pub text: String,
    /// How much the timeline needs it.
    pub salience: Salience,
    /// The event as one line of JSON: the trace's unit of comparison.
    pub json: String,
}

/// Where and when an event happened: true time, the node, and the node's clocks then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub t_ns: u64,
    pub node: String,
    pub wall_ns: i64,
    pub mono_ns: u64,
}

/// A trace line as written: the stamp, the happening's `kind` and fields, then salience and
/// text. The field order is the trace format's (DESIGN section 6).
#[derive(Serialize)]
struct LineOut<'a> {
    i: usize,
    t_ns: u64,
    node: &'a str,
    wall_ns: i64,
    mono_ns: u64,
    #[serde(flatten)]
    what: &'a Happening,
    salience: Salience,
    text: &'a str,
}

/// A trace line as read back.
#[derive(Deserialize)]
struct LineIn {
    i: usize,
    t_ns: u64,
    node: String,
    wall_ns: i64,
    mono_ns: u64,
    #[serde(flatten)]
    what: Happening,
    salience: Salience,
    text: String,
}

impl TraceEvent {
    /// The event `index` of a trace, with its JSON line built from the same values.
    pub fn new(index: usize, at: Stamp, what: Happening, text: String, salience: Salience) -> Self {
        let json = serde_json::to_string(&LineOut {
            i: index,
            t_ns: at.t_ns,
            node: &at.node,
            wall_ns: at.wall_ns,
            mono_ns: at.mono_ns,
            what: &what,
            salience,
            text: &text,
        })
        .expect("trace lines serialize");
        TraceEvent {
            index,
            t_ns: at.t_ns,
            node: at.node,
            wall_ns: at.wall_ns,
            mono_ns: at.mono_ns,
            what,
            text,
            salience,
            json,
        }
    }

    /// The event a trace line (as JSON) records; the error says which key is wrong.
    pub fn from_line(line: &serde_json::Value) -> Result<Self, serde_json::Error> {
        let l = LineIn::deserialize(line)?;
        let at = Stamp {
            t_ns: l.t_ns,
            node: l.node,
            wall_ns: l.wall_ns,
            mono_ns: l.mono_ns,
        };
        Ok(TraceEvent::new(l.i, at, l.what, l.text, l.salience))
    }
}

/// The SHA-256 of a run's trace lines, in hex: equal hashes, byte-identical traces.
pub fn sha256_hex<'a>(lines: impl IntoIterator<Item = &'a str>) -> String {
    let mut hash = TraceHash::default();
    for line in lines {
        hash.update(line);
    }
    hash.hex()
}

#[cfg(test)]
mod tests;
