//! When, in true time, a node's own clock reaches a reading: where a client's computed deadline
//! and a server's key expiry — both written on the node's own clock — fall on the viewer's
//! true-time axis. The trace has each event's clock readings, so a node's clock is known at its
//! events; between two of them it is taken to run at the true rate, which the engine's clocks do
//! but for a jump (seen as the next event's reading) and drift (a rounding over the gap).

use locksim_sim::trace::TraceEvent;

/// Which of a node's clocks a reading is on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Clock {
    Wall,
    Mono,
}

/// A node's clocks at one of its events: (true ns, wall ns, mono ns).
type Reading = (u64, i64, u64);

/// One node's clock readings at its events, in true-time order.
#[derive(Default)]
pub(super) struct ClockMap {
    samples: Vec<(String, Vec<Reading>)>,
}

impl ClockMap {
    pub(super) fn new(events: &[TraceEvent]) -> Self {
        let mut map = ClockMap::default();
        for e in events {
            let at = (e.t_ns, e.wall_ns, e.mono_ns);
            match map.samples.iter_mut().find(|(n, _)| *n == e.node) {
                Some((_, s)) => s.push(at),
                None => map.samples.push((e.node.clone(), vec![at])),
            }
        }
        map
    }

    /// The first true time, at or after `from_t_ns`, at which `node`'s `clock` reads `reading`
    /// or more: at an event whose reading has passed it (a jump), or the true-rate crossing
    /// since the event before. Past the node's last event the clock runs at the true rate.
    pub(super) fn reaches(&self, node: &str, clock: Clock, reading: i128, from_t_ns: u64) -> u64 {
        let Some((_, samples)) = self.samples.iter().find(|(n, _)| n == node) else {
            return from_t_ns;
        };
        let read = |s: &Reading| match clock {
            Clock::Wall => i128::from(s.1),
            Clock::Mono => i128::from(s.2),
        };
        let start = samples.partition_point(|s| s.0 <= from_t_ns).saturating_sub(1);
        let Some(first) = samples.get(start) else {
            return from_t_ns;
        };
        let mut prev = (
            first.0.max(from_t_ns),
            read(first) + i128::from(from_t_ns.saturating_sub(first.0)),
        );
        for s in &samples[start + 1..] {
            let crossing = i128::from(prev.0) + (reading - prev.1).max(0);
            if read(s) >= reading || crossing <= i128::from(s.0) {
                return clamp_ns(crossing.min(i128::from(s.0)));
            }
            prev = (s.0, read(s));
        }
        clamp_ns(i128::from(prev.0) + (reading - prev.1).max(0))
    }
}

fn clamp_ns(t: i128) -> u64 {
    u64::try_from(t.max(0)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_sim::Salience;
    use locksim_sim::trace::{Happening, Stamp};

    fn at(t_ns: u64, wall_ns: i64, mono_ns: u64) -> TraceEvent {
        let stamp = Stamp {
            t_ns,
            node: "server-2".into(),
            wall_ns,
            mono_ns,
        };
        TraceEvent::new(0, stamp, Happening::Resume, String::new(), Salience::Routine)
    }

    #[test]
    fn a_true_rate_clock_crosses_at_its_offset() {
        let map = ClockMap::new(&[at(100, 600, 100), at(1_000, 1_500, 1_000)]);
        // wall runs 500 ahead: it reads 900 at true 400.
        assert_eq!(map.reaches("server-2", Clock::Wall, 900, 100), 400);
        assert_eq!(map.reaches("server-2", Clock::Mono, 900, 100), 900);
        // Past the last event, at the true rate.
        assert_eq!(map.reaches("server-2", Clock::Mono, 5_000, 100), 5_000);
    }

    #[test]
    fn a_jump_crosses_at_the_event_that_shows_it() {
        // The wall clock jumps 20,000 ahead between true 100 and true 200.
        let map = ClockMap::new(&[at(100, 100, 100), at(200, 20_200, 200)]);
        assert_eq!(map.reaches("server-2", Clock::Wall, 10_000, 100), 200);
    }

    #[test]
    fn a_reading_already_passed_is_now() {
        let map = ClockMap::new(&[at(100, 100, 100)]);
        assert_eq!(map.reaches("server-2", Clock::Wall, 50, 100), 100);
        assert_eq!(map.reaches("nobody", Clock::Wall, 50, 7), 7);
    }
}
