//! Node timers: set, cancelled, re-armed after a suspension, and the one queue entry per tag
//! that counts.

use super::{Input, Life, World};
use crate::history::{Level, What};
use crate::ids::NodeId;
use crate::node::{Node, TimerTag};
use crate::queue::Due;
use crate::record::Recorder;

/// One timer tag of one node.
///
/// A timer that is cancelled or replaced before it fires is common (a request timeout, once
/// the reply is in), and a queue entry cannot be taken out of the heap cheaply. So the queue
/// holds at most one entry per tag that counts, `entry`, and setting a timer due no earlier
/// than that entry pushes nothing: when the entry comes due it finds the timer live later,
/// and re-queues it then, with the `seq` drawn when it was set, so it runs exactly where it
/// would have run had it been queued at once. Only a timer due *earlier* than the entry is
/// pushed; the old entry is then an orphan, dropped when it comes due.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct TimerState {
    /// Bumped by each set, cancel and crash: a `Due::Timer` of an older generation is stale
    /// (one that came due while the node was paused, and was replaced meanwhile).
    pub(super) generation: u32,
    /// The timer set and not yet taken from the queue (fired, or put aside by a pause).
    pub(super) live: Option<Armed>,
    /// The queue entry that counts for this tag: its ticket (`seq`) and due time.
    entry: Option<(u64, u64)>,
}

/// A live timer's place in the queue order and its monotonic deadline.
#[derive(Copy, Clone, Debug)]
pub(super) struct Armed {
    at_ns: u64,
    seq: u64,
    target_mono_ns: u64,
}

impl<N: Node> World<N> {
    /// The state of `node`'s timer `tag` (the table grows to the tags a node uses).
    fn timer(&mut self, node: NodeId, tag: TimerTag) -> &mut TimerState {
        let timers = &mut self.slots[node.index()].timers;
        let i = tag as usize;
        if timers.len() <= i {
            timers.resize(i + 1, TimerState::default());
        }
        &mut timers[i]
    }

    /// Sets `node`'s timer `tag` to fire when its monotonic clock reaches `target_mono_ns`
    /// (its reading now plus the delay: the step's reading, not read again).
    pub(super) fn set_timer(&mut self, node: NodeId, tag: TimerTag, target_mono_ns: u64) {
        let at_ns = self.clocks[node.index()]
            .true_time_of_mono(target_mono_ns)
            .max(self.now_ns);
        self.arm(node, tag, at_ns, target_mono_ns, 1);
    }

    pub(super) fn cancel_timer(&mut self, node: NodeId, tag: TimerTag) {
        let timer = self.timer(node, tag);
        timer.generation += 1;
        timer.live = None;
    }

    /// Makes the timer live, due at `at_ns`, its generation bumped by `bump` first (1 for a
    /// new setting, 0 for a re-arm): one look-up of the table for both. It takes its place in
    /// the queue order now; it enters the queue now only if no entry of its tag comes due
    /// first (see [`TimerState`]). Inlined into `set_timer`, the setting of most steps: as a
    /// call it spent 15 instructions of its 70 saving and restoring registers.
    #[inline(always)]
    fn arm(&mut self, node: NodeId, tag: TimerTag, at_ns: u64, target_mono_ns: u64, bump: u32) {
        let seq = self.queue.next_seq();
        let timer = self.timer(node, tag);
        timer.generation += bump;
        timer.live = Some(Armed {
            at_ns,
            seq,
            target_mono_ns,
        });
        if timer.entry.is_some_and(|(_, entry_ns)| entry_ns <= at_ns) {
            return;
        }
        timer.entry = Some((seq, at_ns));
        self.queue.push_timer(at_ns, seq, node, tag);
    }

    /// A timer entry (`ticket` is the `seq` it was queued with) came due: the live timer is
    /// due. Otherwise the entry is an orphan, or its timer was cancelled (dropped), or its
    /// timer was set again for later (queued now, in its own place).
    pub(super) fn timer_entry_due(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        tag: TimerTag,
        ticket: u64,
    ) {
        let timer = &mut self.slots[node.index()].timers[tag as usize];
        if timer.entry.is_none_or(|(t, _)| t != ticket) {
            return;
        }
        timer.entry = None;
        match timer.live {
            Some(live) if live.seq == ticket => {
                timer.live = None;
                let generation = timer.generation;
                self.live_timer_due(rec, node, tag, generation, live.target_mono_ns);
            }
            Some(live) => {
                debug_assert!(live.seq > ticket && live.at_ns >= self.now_ns);
                timer.entry = Some((live.seq, live.at_ns));
                self.queue.push_timer(live.at_ns, live.seq, node, tag);
            }
            None => {}
        }
    }

    /// The timer `tag` of `node` of `generation` came due while the node was paused: unless
    /// it is stale or the node crashed since, it is due as a live one.
    pub(super) fn timer_due(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        tag: TimerTag,
        generation: u32,
        target_mono_ns: u64,
    ) {
        let slot = &self.slots[node.index()];
        if slot.timers[tag as usize].generation != generation || slot.life == Life::Crashed {
            return;
        }
        self.live_timer_due(rec, node, tag, generation, target_mono_ns);
    }

    /// The live timer `tag` of `node` (of `generation`, its current one) is due: the node
    /// handles it, or it waits for the node's resume, or it is re-armed because a suspension
    /// stopped the monotonic clock after it was set. (A crash leaves no timer live.) Inlined
    /// into `timer_entry_due`, every firing's path: the call cost 15 instructions; and apart
    /// from `timer_due`'s checks, which a live timer's entry needs not repeat (~10).
    #[inline(always)]
    fn live_timer_due(
        &mut self,
        rec: &mut impl Recorder<N::Msg, N::Obs>,
        node: NodeId,
        tag: TimerTag,
        generation: u32,
        target_mono_ns: u64,
    ) {
        let slot = &mut self.slots[node.index()];
        debug_assert!(slot.timers[tag as usize].generation == generation && slot.life != Life::Crashed);
        if let Life::Paused { .. } = slot.life {
            slot.pending.push(Due::Timer {
                node,
                tag,
                generation,
                target_mono_ns,
            });
            return;
        }
        // Read once: the check, the timer's event and its step all see the clocks now.
        let readings = self.readings(node);
        if readings.1 < target_mono_ns {
            let at_ns = self.clocks[node.index()].true_time_of_mono(target_mono_ns);
            debug_assert!(at_ns > self.now_ns, "a timer re-armed for the same instant would loop");
            self.arm(node, tag, at_ns, target_mono_ns, 0);
        } else {
            self.stats.timers += 1;
            if self.level == Level::Full {
                self.record(rec, node, readings, What::Timer { tag });
            }
            self.step(rec, node, Input::Timer(tag), readings);
        }
    }
}
