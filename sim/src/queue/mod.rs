//! The event queue: a min-heap keyed by `(true_time_ns, class, seq)`. `seq` is a global
//! counter drawn when an item is scheduled, so events at the same instant run in the order
//! they were scheduled and the run never depends on heap internals. (A timer may enter the
//! heap later than it was set, with the `seq` it drew when set: see `world::timers::TimerState`.) Fault bookkeeping (`class` 0) goes before node
//! steps (`class` 1) at the same instant: a fault `at_ms = 0` is in force before nodes start.
//!
//! Layout, for speed (the queue is the engine's hottest structure): the heap holds only small
//! fixed-size keys (24 bytes), and the payloads (`Due`, ~80 bytes with a message) sit in a slab
//! beside it, written once on push and taken once on pop, so a sift moves keys, not messages.
//! (A 4-ary heap was tried too: with the dozen or so items a run keeps queued, it executed
//! more instructions than this binary one.) Since every key is unique (`seq`), the pop order is
//! fully determined by the keys, whatever the heap's shape.
//!
//! Most pushes are the earliest item queued (a message a few ms away, while the queue holds
//! timers and faults further out), and the next pop takes it. So the earliest key, when it came
//! in as the earliest, waits in `front` outside the heap: that push and its pop skip the sifts.
//!
//! A timer that comes due from the heap's top is often set again by its own step, for a
//! period later (a tick, a poll): so a pop from the heap leaves the root empty (`hole`), and a
//! timer pushed next fills it with one sift down, where refilling the root from the last leaf
//! at once (a sift down to the bottom) and then pushing the timer (a sift up) took two. Any
//! other push or pop fills the hole from the last leaf first, as the pop did before: a message
//! is usually the earliest item, bound for `front`.
//!
//! A node timer's entry (most of the items besides messages) has no payload at all: its key
//! names the node and tag, and the world keeps the rest in its timer table (see
//! `world::timers::TimerState`). Its push writes no slab slot and its pop moves no payload.

use crate::ids::NodeId;
use crate::node::TimerTag;

/// What happens when an item comes due.
#[derive(Clone, Debug)]
pub(crate) enum Due<M> {
    Start(NodeId),
    Deliver {
        from: NodeId,
        to: NodeId,
        msg_id: u64,
        /// The receiver's incarnation when it was sent: a restart in between resets it.
        incarnation: u32,
        msg: M,
    },
    /// A live timer that came due while its node was paused (queued timers are entries of
    /// their own: [`Popped::Timer`]).
    Timer {
        node: NodeId,
        tag: TimerTag,
        generation: u32,
        target_mono_ns: u64,
    },
    /// A paused node's wall clock was stepped; it learns on resume.
    ClockJumped(NodeId),
    /// A paused node hears of a failover on resume: (node, the replaced primary).
    FailedOver(NodeId, NodeId),
    Fault(u32),
    Resume(NodeId),
    Restart(NodeId),
    Heal(u32),
    WindowEnd(u32),
}

impl<M> Due<M> {
    /// Fault bookkeeping runs before node steps at the same instant.
    fn class(&self) -> u64 {
        match self {
            Due::Fault(_) | Due::Resume(_) | Due::Restart(_) | Due::Heal(_) | Due::WindowEnd(_) => 0,
            _ => 1,
        }
    }
}

/// What a popped item is.
pub(crate) enum Popped<M> {
    /// The entry of `node`'s timer `tag`; `ticket` is the `seq` it was queued with, by which
    /// the world recognises the entry that counts (see `world::timers::TimerState`).
    Timer {
        node: NodeId,
        tag: TimerTag,
        ticket: u64,
    },
    Due(Due<M>),
}

/// What a key stands for.
#[derive(Copy, Clone, Debug)]
enum Item {
    /// A payload, by its index in the slab.
    Slot(u32),
    Timer(NodeId, TimerTag),
}

/// A heap entry: the ordering key and what it stands for.
#[derive(Copy, Clone, Debug)]
struct Key {
    t_ns: u64,
    /// `class << 63 | seq`.
    order: u64,
    item: Item,
}

/// Node steps' class: the bit set in a node timer's `order`.
const NODE_STEP: u64 = 1 << 63;

impl Key {
    #[inline]
    fn before(&self, other: &Key) -> bool {
        (self.t_ns, self.order) < (other.t_ns, other.order)
    }
}

pub(crate) struct Queue<M> {
    /// When set, a key earlier than every key in `heap`: the next to pop.
    front: Option<Key>,
    /// A binary min-heap of keys: the children of `i` are `2i+1` and `2i+2`.
    heap: Vec<Key>,
    /// The root was popped and not yet refilled: `heap[0]` is stale, and `front` is empty.
    hole: bool,
    /// Payloads by slot; `None` when the slot is free.
    payloads: Vec<Option<Due<M>>>,
    /// Free slots, reused last-in first-out (the most recently freed slot is warm in cache).
    free: Vec<u32>,
    seq: u64,
}

impl<M> Queue<M> {
    pub(crate) fn new() -> Self {
        Queue {
            front: None,
            heap: Vec::with_capacity(64),
            hole: false,
            payloads: Vec::with_capacity(64),
            free: Vec::with_capacity(64),
            seq: 0,
        }
    }

    /// Always inlined: a message's push, made a call, spent a dozen instructions on the call
    /// and on copying its payload in.
    #[inline(always)]
    pub(crate) fn push(&mut self, t_ns: u64, due: Due<M>) {
        let order = (due.class() << 63) | self.next_seq();
        let slot = match self.free.pop() {
            Some(slot) => {
                self.payloads[slot as usize] = Some(due);
                slot
            }
            None => {
                self.payloads.push(Some(due));
                u32::try_from(self.payloads.len() - 1).expect("fewer than 2^32 queued items")
            }
        };
        self.push_key(Key {
            t_ns,
            order,
            item: Item::Slot(slot),
        });
    }

    /// Draws the next insertion number, for an item that will be pushed later with
    /// [`Queue::push_timer`]: it then runs exactly where it would have run had it been pushed
    /// now.
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        debug_assert!(self.seq < 1 << 63, "seq overflows into the class bit");
        self.seq
    }

    /// Pushes the entry of `node`'s timer `tag` with a `seq` drawn earlier from
    /// [`Queue::next_seq`]. Keys must stay unique: each drawn `seq` is pushed at most once at a
    /// time.
    #[inline]
    pub(crate) fn push_timer(&mut self, t_ns: u64, seq: u64, node: NodeId, tag: TimerTag) {
        let key = Key {
            t_ns,
            order: NODE_STEP | seq,
            item: Item::Timer(node, tag),
        };
        if self.hole {
            self.hole = false;
            self.sift_down(key);
        } else {
            self.push_key(key);
        }
    }

    /// Refills the root a pop left empty with the last leaf.
    #[inline(always)]
    fn fill_hole(&mut self) {
        if self.hole {
            self.hole = false;
            self.fill_hole_now();
        }
    }

    /// Refills the root, just taken, with the last leaf. Always inlined, as the pop was: a call
    /// cost the message-heavy workloads ~7 instructions per event.
    #[inline(always)]
    fn fill_hole_now(&mut self) {
        let last = self.heap.pop().expect("the root is in the heap");
        if !self.heap.is_empty() {
            self.sift_down(last);
        }
    }

    /// Places `key`: in `front` when it is the earliest and `front` is free or later (which
    /// then goes into the heap), in the heap otherwise.
    #[inline(always)]
    fn push_key(&mut self, key: Key) {
        match self.front {
            Some(front) if key.before(&front) => {
                self.front = Some(key);
                self.sift_up(front);
            }
            Some(_) => self.sift_up(key),
            None => {
                self.fill_hole();
                if self.heap.first().is_none_or(|top| key.before(top)) {
                    self.front = Some(key);
                } else {
                    self.sift_up(key);
                }
            }
        }
    }

    /// The next item due at or before `end_ns`, with its time.
    #[inline]
    pub(crate) fn pop_until(&mut self, end_ns: u64) -> Option<(u64, Popped<M>)> {
        let top = match self.front {
            Some(front) if front.t_ns > end_ns => return None,
            Some(front) => {
                self.front = None;
                front
            }
            None => {
                self.fill_hole();
                let top = *self.heap.first()?;
                if top.t_ns > end_ns {
                    return None;
                }
                self.hole = true;
                top
            }
        };
        let popped = match top.item {
            Item::Timer(node, tag) => Popped::Timer {
                node,
                tag,
                ticket: top.order & !NODE_STEP,
            },
            Item::Slot(slot) => {
                self.free.push(slot);
                Popped::Due(
                    self.payloads[slot as usize]
                        .take()
                        .expect("a queued slot holds its payload"),
                )
            }
        };
        Some((top.t_ns, popped))
    }

    /// Places `key` at a new leaf and moves it up to where it belongs (hole technique: parents
    /// move down into the hole, `key` is written once).
    #[inline]
    fn sift_up(&mut self, key: Key) {
        let mut i = self.heap.len();
        self.heap.push(key);
        while i > 0 {
            let parent = (i - 1) / 2;
            if !key.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = key;
    }

    /// Puts `key` at the root (whose item was just taken) and moves it down to where it
    /// belongs.
    #[inline]
    fn sift_down(&mut self, key: Key) {
        let heap = &mut self.heap[..];
        let len = heap.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= len {
                break;
            }
            let right = left + 1;
            let best = if right < len && heap[right].before(&heap[left]) {
                right
            } else {
                left
            };
            if !heap[best].before(&key) {
                break;
            }
            heap[i] = heap[best];
            i = best;
        }
        heap[i] = key;
    }
}

#[cfg(test)]
mod tests;
