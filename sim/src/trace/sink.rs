//! Where a run's trace goes as it happens: a [`TraceSink`] takes each event once, as its trace
//! line (written into a reused buffer) with its stamp and salience, and builds the typed
//! [`TraceEvent`] only if it keeps the event. A file writer, a hasher and a view's selector
//! each keep what they need, so a long run's trace never has to be held whole.

use crate::history::Event;
use crate::ids::Names;
use crate::node::{Message, Observation, Salience};

use super::TraceEvent;
use super::erase::{happening, text};
use super::line::LineWriter;

/// Takes a run's erased events, in order.
pub trait TraceSink {
    fn take(&mut self, e: &Passing<'_>);
}

/// One event on its way past the sinks.
pub struct Passing<'a> {
    pub index: usize,
    pub t_ns: u64,
    pub node: &'a str,
    pub salience: Salience,
    /// The event's trace line, without its newline.
    pub line: &'a str,
    /// The same line with its newline.
    pub terminated: &'a str,
    erase: &'a dyn Fn() -> TraceEvent,
}

impl Passing<'_> {
    /// The event, typed: built on demand, for the sinks that keep it.
    pub fn event(&self) -> TraceEvent {
        (self.erase)()
    }
}

impl LineWriter {
    /// Writes event `index` of a run whose nodes are `names` and hands it to `sink`.
    pub fn pass<M: Message, O: Observation>(
        &mut self,
        names: &Names,
        index: usize,
        e: &Event<M, O>,
        sink: &mut dyn TraceSink,
    ) {
        let (terminated, salience) = self.write_terminated(names, index, e);
        let line = terminated.strip_suffix('\n').expect("a terminated line");
        let node = names.of(e.node);
        let erase = || TraceEvent {
            index,
            t_ns: e.t_ns,
            node: node.to_string(),
            wall_ns: e.wall_ns,
            mono_ns: e.mono_ns,
            what: happening(names, &e.what),
            text: text(names, &e.what),
            salience,
            json: line.to_string(),
        };
        sink.take(&Passing {
            index,
            t_ns: e.t_ns,
            node,
            salience,
            line,
            terminated,
            erase: &erase,
        });
    }
}

/// Keeps every event (tests and small callers).
impl TraceSink for Vec<TraceEvent> {
    fn take(&mut self, e: &Passing<'_>) {
        self.push(e.event());
    }
}

/// Both sinks take every event, the first first.
impl<A: TraceSink, B: TraceSink> TraceSink for (A, B) {
    fn take(&mut self, e: &Passing<'_>) {
        self.0.take(e);
        self.1.take(e);
    }
}

impl<T: TraceSink + ?Sized> TraceSink for &mut T {
    fn take(&mut self, e: &Passing<'_>) {
        (**self).take(e);
    }
}

/// Takes every event when there is a sink: for a consumer a caller may or may not want.
impl<T: TraceSink> TraceSink for Option<T> {
    fn take(&mut self, e: &Passing<'_>) {
        if let Some(sink) = self {
            sink.take(e);
        }
    }
}

/// Takes nothing: for a caller that wants the run's line cost without a consumer (benches).
impl TraceSink for () {
    fn take(&mut self, _: &Passing<'_>) {}
}

/// How much of a run is recorded, and where its trace goes.
pub enum Recording<'a> {
    /// Observations and faults only, what checkers read (exploration): event indices count
    /// these alone.
    Facts,
    /// Every event, counted and judged with a trace's indices, none written.
    Full,
    /// Every event, each also written as its trace line into the sink.
    Traced(&'a mut dyn TraceSink),
}

impl Recording<'_> {
    /// The engine's level for it.
    pub fn level(&self) -> crate::history::Level {
        match self {
            Recording::Facts => crate::history::Level::Facts,
            Recording::Full | Recording::Traced(_) => crate::history::Level::Full,
        }
    }
}
