//! Hand-made trace events for the renderers' unit tests: one builder for every view's tests.

use locksim_sim::Salience;
use locksim_sim::history::DropReason;
use locksim_sim::trace::{Happening, Observed, Stamp, TraceEvent};

/// Event `index` of `node` at true time `t_ns` (its clocks read the same).
pub fn event(index: usize, t_ns: u64, node: &str, what: Happening, salience: Salience, text: &str) -> TraceEvent {
    let at = Stamp {
        t_ns,
        node: node.into(),
        wall_ns: t_ns as i64,
        mono_ns: t_ns,
    };
    TraceEvent::new(index, at, what, text.into(), salience)
}

/// A model's event, with fields no renderer reads.
pub fn obs(event: &str) -> Happening {
    Happening::Observe(Observed {
        event: event.into(),
        fields: Default::default(),
    })
}

pub fn send(to: &str, msg_id: u64, msg: &str) -> Happening {
    Happening::Send {
        msg: msg.into(),
        msg_id,
        to: to.into(),
    }
}

pub fn deliver(from: &str, msg_id: u64, msg: &str) -> Happening {
    Happening::Deliver {
        from: from.into(),
        msg: msg.into(),
        msg_id,
    }
}

/// A message from `from` to `to` that did not arrive, for `reason`.
pub fn dropped(from: &str, to: &str, msg_id: u64, msg: &str, reason: DropReason) -> Happening {
    Happening::Drop {
        from: from.into(),
        msg: msg.into(),
        msg_id,
        reason,
        to: to.into(),
    }
}
