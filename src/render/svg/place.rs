//! Where the rows go down the page. One after another ([`TimeAxis::Rows`]); or by true time
//! ([`TimeAxis::Proportional`]): the space between two rows grows with the time between them,
//! never less than a gap that keeps their text apart, and a quiet span longer than
//! [`FOLD_AFTER_NS`] is folded into a marked break that states its length — so a 15 s pause
//! looks long beside a 1 ms step, and a minute of nothing does not take a metre of paper.
//! Integer arithmetic only: the same run places the same pixels.

use super::{GAP, TimeAxis};

/// A row as placement sees it: its height, the true time its top and bottom stand for, and
/// whether it stretches with that time (a fold's band); given its y.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) y: i32,
    pub(super) h: i32,
    pub(super) span_ns: (u64, u64),
    pub(super) stretches: bool,
}

/// Pixels a second of true time takes on a proportional axis.
pub(super) const PX_PER_S: u64 = 100;
/// A quiet span longer than this is folded: drawn as this long, plus a break mark.
pub(super) const FOLD_AFTER_NS: u64 = 5_000_000_000;
/// The height of a break mark.
pub(super) const BREAK_H: i32 = 40;

/// A long quiet span folded out of the axis: where its mark stands and the true time it hides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Break {
    pub(super) y: i32,
    pub(super) quiet_ns: u64,
}

/// A tick of the time scale: whole seconds of true time, and where they fall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tick {
    pub(super) y: i32,
    pub(super) s: u64,
}

/// Pixels for `ns` of true time, at most [`FOLD_AFTER_NS`]'s worth.
fn px(ns: u64) -> i32 {
    let ns = u128::from(ns.min(FOLD_AFTER_NS));
    i32::try_from(ns * u128::from(PX_PER_S) / 1_000_000_000).unwrap_or(i32::MAX)
}

/// Gives each row its y, the first at `first`; a fold's band, on a proportional axis, as tall
/// as the time it hides. Returns the breaks and the y below the last row.
pub(super) fn place(rows: &mut [Slot], first: i32, axis: TimeAxis) -> (Vec<Break>, i32) {
    let mut breaks = Vec::new();
    let mut next = first;
    // The true time and y the last row ends at.
    let mut anchor: Option<(u64, i32)> = None;
    for r in rows.iter_mut() {
        let (t0, t1) = r.span_ns;
        r.y = match (axis, anchor) {
            (TimeAxis::Proportional, Some((t, y))) => {
                let quiet_ns = t0.saturating_sub(t);
                if quiet_ns > FOLD_AFTER_NS {
                    let mark = next.max(y + px(quiet_ns) / 2);
                    breaks.push(Break { y: mark, quiet_ns });
                    (mark + BREAK_H + GAP).max(y + px(quiet_ns) + BREAK_H)
                } else {
                    next.max(y + px(quiet_ns))
                }
            }
            _ => next,
        };
        if axis == TimeAxis::Proportional && r.stretches {
            r.h = r.h.max(px(t1 - t0));
        }
        next = r.y + r.h + GAP;
        anchor = Some(if t1 > t0 { (t1, r.y + r.h) } else { (t0, r.y) });
    }
    (breaks, next)
}

/// The time scale of rows placed on a proportional axis: a tick at each whole second, where
/// the rows around it put it (linearly between them), none inside a folded span.
pub(super) fn ticks(rows: &[Slot]) -> Vec<Tick> {
    // Each row's top at its true time; a fold's bottom too, at its last hidden event's.
    let mut points: Vec<(u64, i32)> = Vec::new();
    for r in rows {
        points.push((r.span_ns.0, r.y));
        if r.span_ns.1 > r.span_ns.0 {
            points.push((r.span_ns.1, r.y + r.h));
        }
    }
    let mut ticks = Vec::new();
    for pair in points.windows(2) {
        let ((ta, ya), (tb, yb)) = (pair[0], pair[1]);
        if tb <= ta || tb - ta > FOLD_AFTER_NS {
            continue;
        }
        let mut s = ta.div_ceil(1_000_000_000);
        while s * 1_000_000_000 < tb {
            let along = i128::from(s * 1_000_000_000 - ta) * i128::from(yb - ya) / i128::from(tb - ta);
            ticks.push(Tick {
                y: ya + i32::try_from(along).unwrap_or(0),
                s,
            });
            s += 1;
        }
    }
    ticks
}
