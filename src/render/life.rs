//! What each node is doing between its own events — running, paused, or down — followed
//! through the whole trace, folded events included, so that a view drawn from the compact
//! selection still shows a pause that began before a fold as a pause. The lane view draws it
//! as `|`, `:` and blank; the SVG view as a solid, dotted or missing lifeline.

use locksim_sim::trace::{Happening, TraceEvent};

/// A node's state between its events.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Life {
    Running,
    /// Paused or suspended: it runs nothing.
    Paused,
    Crashed,
}

/// Whether `what` changes its node's state: the only events [`Lives`] needs.
pub(crate) fn changes_life(what: &Happening) -> bool {
    matches!(
        what,
        Happening::Pause { .. } | Happening::Crash { .. } | Happening::Resume | Happening::Restart
    )
}

/// Every node's state, advanced through the trace in order.
pub(crate) struct Lives<'a> {
    events: &'a [TraceEvent],
    names: &'a [&'a str],
    next: usize,
    now: Vec<Life>,
}

impl<'a> Lives<'a> {
    /// Every node of `names` running, before the first event.
    pub(crate) fn new(events: &'a [TraceEvent], names: &'a [&'a str]) -> Self {
        Lives {
            events,
            names,
            next: 0,
            now: vec![Life::Running; names.len()],
        }
    }

    /// Applies every event up to trace index `upto` (those already applied are not applied
    /// again) and returns each node's state after it, in the order of `names`.
    pub(crate) fn advance(&mut self, upto: usize) -> &[Life] {
        while let Some(e) = self.events.get(self.next).filter(|e| e.index <= upto) {
            if let Some(lane) = self.names.iter().position(|n| *n == e.node) {
                match e.what {
                    Happening::Pause { .. } => self.now[lane] = Life::Paused,
                    Happening::Crash { .. } => self.now[lane] = Life::Crashed,
                    Happening::Resume | Happening::Restart => self.now[lane] = Life::Running,
                    _ => {}
                }
            }
            self.next += 1;
        }
        &self.now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;
    use locksim_sim::trace::Stamp;

    fn ev(index: usize, node: &str, what: Happening) -> TraceEvent {
        let at = Stamp {
            t_ns: index as u64,
            node: node.into(),
            wall_ns: 0,
            mono_ns: 0,
        };
        TraceEvent::new(index, at, what, String::new(), Salience::Salient)
    }

    #[test]
    fn pauses_and_crashes_last_until_resume_and_restart() {
        let pause = Happening::Pause {
            duration_ns: 1,
            suspend: false,
        };
        let crash = Happening::Crash { restart_after_ns: None };
        let events = vec![
            ev(0, "a", pause),
            ev(1, "b", crash),
            ev(2, "a", Happening::Resume),
            ev(3, "b", Happening::Restart),
        ];
        let names = ["a", "b"];
        let mut lives = Lives::new(&events, &names);
        assert_eq!(lives.advance(1), [Life::Paused, Life::Crashed]);
        assert_eq!(lives.advance(0), [Life::Paused, Life::Crashed], "never goes back");
        assert_eq!(lives.advance(2), [Life::Running, Life::Crashed]);
        assert_eq!(lives.advance(9), [Life::Running, Life::Running]);
    }
}
