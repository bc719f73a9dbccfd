//! Per-node clocks (DESIGN section 2).
//!
//! Each node reads two clocks. The **wall clock** is what `gettimeofday` says: it starts at the
//! node's offset, runs at its drift rate and can be stepped by jumps. The **monotonic clock** is
//! `CLOCK_MONOTONIC`: same rate, ignores jumps, and stands still while the node is suspended
//! (`pause` with `suspend = true`), because Linux excludes suspend time from it.
//!
//! A [`ClockTrack`] is the whole life of one node's clock: its spec plus every jump and
//! suspension that happened. The engine appends to it as the run goes; checkers read it after
//! the run to ask "what did server-2's wall clock say at true time t" or "when, in true time,
//! did client-0's monotonic clock reach the deadline it set".

use serde::Serialize;

const PPM: u128 = 1_000_000;

/// Limits on a clock's rate error: beyond these the clock would stop or run backwards.
pub const DRIFT_PPM_MIN: i32 = -999_999;
pub const DRIFT_PPM_MAX: i32 = 1_000_000;

/// A node's clock as configured: where its wall clock starts and how fast both clocks run.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClockSpec {
    /// Wall-clock reading at true time 0.
    pub offset_ns: i64,
    /// Signed rate error of both clocks; positive runs fast.
    pub drift_ppm: i32,
}

/// One wall-clock step.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Jump {
    pub at_ns: u64,
    pub by_ns: i64,
}

/// The recorded life of one node's clocks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClockTrack {
    spec: ClockSpec,
    jumps: Vec<Jump>,
    jump_total_ns: i64,
    /// Suspended true-time intervals `[start, end)`, ascending and disjoint.
    suspends: Vec<(u64, u64)>,
}

impl ClockTrack {
    pub fn new(spec: ClockSpec) -> Self {
        debug_assert!((DRIFT_PPM_MIN..=DRIFT_PPM_MAX).contains(&spec.drift_ppm));
        ClockTrack {
            spec,
            ..ClockTrack::default()
        }
    }

    pub fn spec(&self) -> ClockSpec {
        self.spec
    }

    pub fn jumps(&self) -> &[Jump] {
        &self.jumps
    }

    /// Local elapsed time for a true elapsed time, at this clock's rate.
    #[inline]
    fn scale(&self, true_ns: u64) -> u64 {
        if self.spec.drift_ppm == 0 {
            return true_ns;
        }
        let rate = (PPM as i128 + i128::from(self.spec.drift_ppm)) as u128;
        (u128::from(true_ns) * rate / PPM) as u64
    }

    /// The shortest true elapsed time over which this clock advances at least `local_ns`.
    fn unscale_ceil(&self, local_ns: u64) -> u64 {
        if self.spec.drift_ppm == 0 {
            return local_ns;
        }
        let rate = (PPM as i128 + i128::from(self.spec.drift_ppm)) as u128;
        (u128::from(local_ns) * PPM).div_ceil(rate) as u64
    }

    /// Wall clock at the current true time `now_ns`, all applied jumps included. The engine's
    /// fast path: it only ever asks about the present.
    #[inline]
    pub fn wall_now(&self, now_ns: u64) -> i64 {
        self.spec.offset_ns + self.scale(now_ns) as i64 + self.jump_total_ns
    }

    /// Wall clock at any true time `t_ns` of the recorded run.
    pub fn wall_at(&self, t_ns: u64) -> i64 {
        let jumped: i64 = self.jumps.iter().take_while(|j| j.at_ns <= t_ns).map(|j| j.by_ns).sum();
        self.spec.offset_ns + self.scale(t_ns) as i64 + jumped
    }

    /// Monotonic clock at true time `t_ns`: true time minus suspended time, at the clock's rate.
    /// The engine asks this several times per step; most nodes are never suspended, so that
    /// case skips the walk over the suspensions.
    #[inline]
    pub fn mono_at(&self, t_ns: u64) -> u64 {
        if self.suspends.is_empty() {
            return self.scale(t_ns);
        }
        let suspended: u64 = self
            .suspends
            .iter()
            .take_while(|(start, _)| *start < t_ns)
            .map(|&(start, end)| end.min(t_ns) - start)
            .sum();
        self.scale(t_ns - suspended)
    }

    /// The earliest true time at which the monotonic clock reads at least `mono_ns`, given the
    /// suspensions known so far.
    pub fn true_time_of_mono(&self, mono_ns: u64) -> u64 {
        let active = self.unscale_ceil(mono_ns);
        let mut suspended = 0u64;
        for &(start, end) in &self.suspends {
            if start < active.saturating_add(suspended) {
                suspended += end - start;
            } else {
                break;
            }
        }
        active.saturating_add(suspended)
    }

    /// Steps the wall clock by `by_ns` at true time `at_ns` (not before the last jump).
    pub fn jump(&mut self, at_ns: u64, by_ns: i64) {
        debug_assert!(self.jumps.last().is_none_or(|j| j.at_ns <= at_ns));
        self.jumps.push(Jump { at_ns, by_ns });
        self.jump_total_ns += by_ns;
    }

    /// Ends any suspension still running at `at_ns` there: a crashed machine is not suspended
    /// any more, and whatever restarts runs on a moving clock.
    pub fn end_suspension(&mut self, at_ns: u64) {
        if let Some(last) = self.suspends.last_mut()
            && last.1 > at_ns
        {
            if last.0 >= at_ns {
                self.suspends.pop();
            } else {
                last.1 = at_ns;
            }
        }
    }

    /// Records that the node is suspended over `[start_ns, end_ns)`: its monotonic clock
    /// stands still there. Starts must not go backwards; overlapping intervals merge.
    pub fn suspend(&mut self, start_ns: u64, end_ns: u64) {
        if let Some(last) = self.suspends.last_mut() {
            debug_assert!(last.0 <= start_ns);
            if start_ns <= last.1 {
                last.1 = last.1.max(end_ns);
                return;
            }
        }
        self.suspends.push((start_ns, end_ns));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    #[test]
    fn drift_scales_both_clocks_and_inverts_exactly() {
        let c = ClockTrack::new(ClockSpec {
            offset_ns: 5 * S as i64,
            drift_ppm: 50,
        });
        assert_eq!(c.wall_at(10 * S), 5 * S as i64 + 10 * S as i64 + 500_000);
        assert_eq!(c.mono_at(10 * S), 10 * S + 500_000);
        for m in [0, 1, 999, 10 * S + 500_000, 10 * S + 500_001] {
            let t = c.true_time_of_mono(m);
            assert!(c.mono_at(t) >= m);
            assert!(t == 0 || c.mono_at(t - 1) < m, "earliest for {m}");
        }
    }

    #[test]
    fn jumps_move_the_wall_clock_only() {
        let mut c = ClockTrack::new(ClockSpec::default());
        c.jump(30 * S, -2 * S as i64);
        assert_eq!(c.wall_at(29 * S), 29 * S as i64);
        assert_eq!(c.wall_at(30 * S), 28 * S as i64);
        assert_eq!(c.wall_now(31 * S), 29 * S as i64);
        assert_eq!(c.mono_at(31 * S), 31 * S);
    }

    #[test]
    fn suspension_stops_the_monotonic_clock_only() {
        let mut c = ClockTrack::new(ClockSpec::default());
        c.suspend(S, 16 * S);
        assert_eq!(c.mono_at(S), S);
        assert_eq!(c.mono_at(10 * S), S);
        assert_eq!(c.mono_at(17 * S), 2 * S);
        assert_eq!(c.wall_at(17 * S), 17 * S as i64);
        // A 10 s monotonic deadline is reached 15 s late in true time.
        assert_eq!(c.true_time_of_mono(10 * S), 25 * S);
        assert_eq!(c.true_time_of_mono(S), S);
        c.suspend(20 * S, 21 * S);
        c.suspend(20 * S + 5, 22 * S);
        assert_eq!(c.true_time_of_mono(10 * S), 27 * S);
    }

    #[test]
    fn slow_clock_reaches_deadlines_later() {
        let c = ClockTrack::new(ClockSpec {
            offset_ns: 0,
            drift_ppm: -200_000,
        });
        assert_eq!(c.true_time_of_mono(8 * S), 10 * S);
    }
}
