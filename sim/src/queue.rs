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
        self.push_key(Key {
            t_ns,
            order: NODE_STEP | seq,
            item: Item::Timer(node, tag),
        });
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
            None if self.heap.first().is_none_or(|top| key.before(top)) => self.front = Some(key),
            None => self.sift_up(key),
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
                let top = *self.heap.first()?;
                if top.t_ns > end_ns {
                    return None;
                }
                let last = self.heap.pop().expect("not empty");
                if !self.heap.is_empty() {
                    self.sift_down(last);
                }
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
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_class_then_insertion() {
        let mut q: Queue<()> = Queue::new();
        q.push(5, Due::Start(NodeId(0)));
        q.push(5, Due::Start(NodeId(1)));
        q.push(5, Due::Fault(9));
        let seq = q.next_seq();
        q.push(1, Due::Start(NodeId(2)));
        q.push_timer(5, seq, NodeId(3), 7);
        q.push(5, Due::Start(NodeId(4)));
        let order: Vec<String> = std::iter::from_fn(|| q.pop_until(10))
            .map(|(t, popped)| match popped {
                Popped::Due(d) => format!("{t}:{d:?}"),
                Popped::Timer { node, tag, ticket } => format!("{t}:timer {node:?} {tag} #{ticket}"),
            })
            .collect();
        assert_eq!(
            order,
            [
                "1:Start(NodeId(2))",
                "5:Fault(9)",
                "5:Start(NodeId(0))",
                "5:Start(NodeId(1))",
                "5:timer NodeId(3) 7 #4",
                "5:Start(NodeId(4))"
            ]
        );
        q.push(11, Due::Start(NodeId(0)));
        assert!(q.pop_until(10).is_none());
    }

    /// An earliest push waits in `front`; a still earlier one takes its place and sends it into
    /// the heap, and a pop that finds `front` empty takes the heap's top.
    #[test]
    fn the_front_key_gives_way_to_an_earlier_one() {
        let mut q: Queue<()> = Queue::new();
        let times = |q: &mut Queue<()>, n: usize| -> Vec<u64> {
            (0..n).map_while(|_| q.pop_until(100)).map(|(t, _)| t).collect()
        };
        q.push(50, Due::Start(NodeId(0)));
        q.push(30, Due::Start(NodeId(1)));
        q.push(40, Due::Start(NodeId(2)));
        q.push(20, Due::Start(NodeId(3)));
        assert_eq!(times(&mut q, 2), [20, 30]);
        q.push(10, Due::Start(NodeId(4)));
        q.push(45, Due::Start(NodeId(5)));
        q.push(101, Due::Start(NodeId(6)));
        assert_eq!(times(&mut q, 9), [10, 40, 45, 50]);
        assert_eq!(q.pop_until(u64::MAX).map(|(t, _)| t), Some(101));
    }

    /// The heap against a sorted reference, with pushes and pops interleaved (slots are
    /// reused) and many equal times (the insertion order must break ties).
    #[test]
    fn matches_a_sorted_reference_under_interleaving() {
        let mut q: Queue<u32> = Queue::new();
        let mut reference: Vec<(u64, u64, u32)> = Vec::new(); // (t, seq, id)
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let (mut seq, mut now) = (0u64, 0u64);
        for id in 0..5_000u32 {
            if next() % 3 != 0 {
                let t = now + next() % 8;
                seq += 1;
                q.push(
                    t,
                    Due::Deliver {
                        from: NodeId(0),
                        to: NodeId(1),
                        msg_id: 0,
                        incarnation: 0,
                        msg: id,
                    },
                );
                reference.push((t, seq, id));
            } else if let Some((t, Popped::Due(Due::Deliver { msg, .. }))) = q.pop_until(u64::MAX) {
                reference.sort();
                let (rt, _, rid) = reference.remove(0);
                assert_eq!((t, msg), (rt, rid));
                now = t;
            }
        }
        reference.sort();
        for (rt, _, rid) in reference {
            let Some((t, Popped::Due(Due::Deliver { msg, .. }))) = q.pop_until(u64::MAX) else {
                panic!("queue ran dry")
            };
            assert_eq!((t, msg), (rt, rid));
        }
        assert!(q.pop_until(u64::MAX).is_none());
    }
}
