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
use super::page::Page;

/// The page size past which [`LineWriter::pass`] hands its page on: what a hasher takes at
/// once ([`super::TraceHash`]), so lines passed one by one reach it in 8 KiB pieces
/// (a trace line is ~360 bytes).
pub(super) const PAGE: usize = 8 * 1024;

/// Takes a run's erased events, in order.
pub trait TraceSink {
    fn take(&mut self, e: &Passing<'_>);

    /// Takes a page of lines already offered one by one, in order: the whole trace passes in
    /// pages too, for a sink that wants its lines in bulk (a hasher, which then copies no
    /// line; a trace file). A sink that wraps another hands its pages on.
    fn take_page(&mut self, _page: &Page<'_>) {}

    /// Whether [`TraceSink::take`] keeps anything: a sink that reads pages alone says not,
    /// and the line writer then builds no [`Passing`] for it. A sink that wraps another asks
    /// it.
    fn takes_each(&self) -> bool {
        true
    }
}

/// One event on its way past the sinks.
pub struct Passing<'a> {
    pub index: usize,
    pub t_ns: u64,
    pub node: &'a str,
    pub salience: Salience,
    line: &'a str,
    /// Builds the typed event from this one's fields and what only the writer has (the
    /// run's names, the typed event): a closure of two references, where one capturing each
    /// field again cost the line writer ~9 stores a line.
    erase: &'a dyn Fn(&Passing<'_>) -> TraceEvent,
}

impl<'a> Passing<'a> {
    /// The event, typed: built on demand, for the sinks that keep it.
    pub fn event(&self) -> TraceEvent {
        (self.erase)(self)
    }

    /// The event's trace line.
    #[inline]
    pub fn line(&self) -> &'a str {
        self.line
    }
}

impl LineWriter {
    /// Writes event `index` of a run whose nodes are `names` and hands it to `sink`; past
    /// [`PAGE`] bytes, hands `sink` the page too and starts a new one.
    pub fn pass<M: Message, O: Observation>(
        &mut self,
        names: &Names,
        index: usize,
        e: &Event<M, O>,
        sink: &mut dyn TraceSink,
    ) {
        let begin = self.page.len();
        let salience = self.append_line(names, index, e);
        self.ends.push(self.page.len() - 1);
        // A run whose sinks read pages alone (`locksim run --trace`, a hash) builds no
        // `Passing`: its fields, the line cut from the page and the call cost ~27
        // instructions a line more than keeping the line's end and asking the sink (measured
        // on the benches' workloads).
        if sink.takes_each() {
            self.offer(names, index, e, begin, salience, sink);
        }
        if self.page.len() >= PAGE {
            self.hand_page(sink);
        }
    }

    /// Hands `sink` the line written last (from `begin` in the page) as a [`Passing`].
    fn offer<M: Message, O: Observation>(
        &self,
        names: &Names,
        index: usize,
        e: &Event<M, O>,
        begin: usize,
        salience: Salience,
        sink: &mut dyn TraceSink,
    ) {
        let line = &self.page[begin..self.page.len() - 1];
        let node = names.of(e.node);
        let erase = move |p: &Passing<'_>| TraceEvent {
            index: p.index,
            t_ns: p.t_ns,
            node: p.node.to_string(),
            wall_ns: e.wall_ns,
            mono_ns: e.mono_ns,
            what: happening(names, &e.what),
            text: text(names, &e.what),
            salience: p.salience,
            json: p.line.to_string(),
        };
        sink.take(&Passing {
            index,
            t_ns: e.t_ns,
            node,
            salience,
            line,
            erase: &erase,
        });
    }

    /// Hands `sink` the lines not handed yet: the end of the run's trace, once its last
    /// event has passed.
    pub fn flush(&mut self, sink: &mut dyn TraceSink) {
        if !self.page.is_empty() {
            self.hand_page(sink);
        }
    }

    fn hand_page(&mut self, sink: &mut dyn TraceSink) {
        sink.take_page(&Page::new(&self.page, &self.ends));
        self.page.clear();
        self.ends.clear();
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

    fn take_page(&mut self, page: &Page<'_>) {
        self.0.take_page(page);
        self.1.take_page(page);
    }

    fn takes_each(&self) -> bool {
        self.0.takes_each() || self.1.takes_each()
    }
}

impl<T: TraceSink + ?Sized> TraceSink for &mut T {
    fn take(&mut self, e: &Passing<'_>) {
        (**self).take(e);
    }

    fn take_page(&mut self, page: &Page<'_>) {
        (**self).take_page(page);
    }

    fn takes_each(&self) -> bool {
        (**self).takes_each()
    }
}

/// Takes every event when there is a sink: for a consumer a caller may or may not want.
impl<T: TraceSink> TraceSink for Option<T> {
    fn take(&mut self, e: &Passing<'_>) {
        if let Some(sink) = self {
            sink.take(e);
        }
    }

    fn take_page(&mut self, page: &Page<'_>) {
        if let Some(sink) = self {
            sink.take_page(page);
        }
    }

    fn takes_each(&self) -> bool {
        self.as_ref().is_some_and(T::takes_each)
    }
}

/// Takes nothing: for a caller that wants the run's line cost without a consumer (benches).
impl TraceSink for () {
    fn take(&mut self, _: &Passing<'_>) {}

    fn takes_each(&self) -> bool {
        false
    }
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
