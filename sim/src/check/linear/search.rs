//! The search over one key's operations (Lowe's just-in-time linearization, as Porcupine's
//! `checkSingle` runs it). The calls and returns sit in one list in time order; the search
//! walks it from the front, placing ("lifting") an operation whose call it meets if the spec
//! accepts it from the current state and the pair (operations placed, new state) is new, and
//! backtracking when it meets the return of an operation not yet placed — that operation had
//! to take effect before it returned. Lifting removes the call and its return from the list
//! (dancing links), so the front of the list is always the earliest thing still to explain.

use std::collections::HashMap;
use std::hash::Hash;

use super::{Op, Spec, Unexplained};

/// What the search found for one key.
pub(super) enum Found {
    Linearization,
    /// No order explains the return at [`Unexplained::op`].
    Stuck(Unexplained),
    OutOfSteps,
}

/// Steps shared by every key's search.
pub(super) struct Budget {
    left: u64,
    max: u64,
}

impl Budget {
    pub(super) fn new(max: u64) -> Self {
        Budget { left: max, max }
    }

    pub(super) fn used(&self) -> u64 {
        self.max - self.left
    }

    /// Takes one step; false once none is left.
    fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        true
    }
}

const NONE: usize = usize::MAX;

/// One call or return; `op` indexes the key's operations.
#[derive(Copy, Clone)]
struct Entry {
    op: usize,
    call: bool,
}

/// The entries in time order, linked so that lifting and restoring an operation is O(1).
/// `next`/`prev` have one more slot than `entries`: the head, before the first entry.
struct List {
    entries: Vec<Entry>,
    next: Vec<usize>,
    prev: Vec<usize>,
    /// For a call entry, the index of its return entry.
    ret_of: Vec<usize>,
    /// For a return entry of a completed operation, how many completed returns precede it.
    rank: Vec<usize>,
    /// Whether each operation completed (its return is a real event, not "never").
    completed: Vec<bool>,
}

impl List {
    fn new<I, O>(history: &[Op<I, O>], ops: &[usize]) -> Self {
        // (time, a call before a return at the same time — touching operations overlap —,
        // operation, is-return). A return that never came is after every event.
        let mut keyed: Vec<(u64, bool, usize)> = Vec::with_capacity(ops.len() * 2);
        for (local, &i) in ops.iter().enumerate() {
            let op = &history[i];
            keyed.push((op.call, false, local));
            keyed.push((op.end.as_ref().map_or(u64::MAX, |(t, _)| *t), true, local));
        }
        keyed.sort_unstable();
        let n = keyed.len();
        let head = n;
        let entries: Vec<Entry> = keyed.iter().map(|&(_, ret, op)| Entry { op, call: !ret }).collect();
        let mut call_at = vec![NONE; ops.len()];
        let mut ret_of = vec![NONE; n];
        let mut rank = vec![0; n];
        let completed: Vec<bool> = ops.iter().map(|&i| history[i].end.is_some()).collect();
        let mut returns = 0;
        for (at, e) in entries.iter().enumerate() {
            if e.call {
                call_at[e.op] = at;
            } else {
                ret_of[call_at[e.op]] = at;
                rank[at] = returns;
                returns += 1;
            }
        }
        let mut next: Vec<usize> = (1..=n).collect();
        if let Some(last) = next.last_mut() {
            *last = NONE;
        }
        next.push(if n == 0 { NONE } else { 0 });
        let mut prev: Vec<usize> = (0..n).map(|i| if i == 0 { head } else { i - 1 }).collect();
        prev.push(NONE);
        List {
            entries,
            next,
            prev,
            ret_of,
            rank,
            completed,
        }
    }

    fn head(&self) -> usize {
        self.entries.len()
    }

    fn unlink(&mut self, x: usize) {
        let (p, n) = (self.prev[x], self.next[x]);
        self.next[p] = n;
        if n != NONE {
            self.prev[n] = p;
        }
    }

    /// Puts back an entry unlinked last (restoring in reverse order of unlinking).
    fn relink(&mut self, x: usize) {
        let (p, n) = (self.prev[x], self.next[x]);
        self.next[p] = x;
        if n != NONE {
            self.prev[n] = x;
        }
    }

    fn lift(&mut self, call: usize) {
        self.unlink(call);
        self.unlink(self.ret_of[call]);
    }

    fn unlift(&mut self, call: usize) {
        self.relink(self.ret_of[call]);
        self.relink(call);
    }
}

/// Whether the operations `ops` (indices into `history`, one key's) have a linearization.
pub(super) fn search<S: Spec>(
    spec: &S,
    history: &[Op<S::Input, S::Output>],
    ops: &[usize],
    budget: &mut Budget,
) -> Found {
    let mut list = List::new(history, ops);
    let mut placed = Placed::new(ops.len());
    let mut seen: Seen<S::State> = HashMap::new();
    // The calls lifted on the current path, with the state before each.
    let mut path: Vec<(usize, S::State)> = Vec::new();
    let mut state = spec.init();
    // The furthest completed return any path was stuck at.
    let mut furthest: Option<usize> = None;
    let mut at = list.next[list.head()];
    loop {
        if at == NONE {
            return Found::Linearization;
        }
        let e = list.entries[at];
        if !e.call {
            if !list.completed[e.op] {
                // Every completed operation is placed; those left never returned and may
                // never have taken effect.
                return Found::Linearization;
            }
            if furthest.is_none_or(|f| list.rank[f] < list.rank[at]) {
                furthest = Some(at);
            }
            let Some((call, before)) = path.pop() else {
                let stuck = furthest.expect("stuck at a return");
                return Found::Stuck(Unexplained {
                    op: ops[list.entries[stuck].op],
                    explained: list.rank[stuck],
                });
            };
            placed.flip(list.entries[call].op);
            list.unlift(call);
            state = before;
            at = list.next[call];
            continue;
        }
        if !budget.take() {
            return Found::OutOfSteps;
        }
        let op = &history[ops[e.op]];
        if let Some(next) = spec.step(&state, &op.input, op.end.as_ref().map(|(_, o)| o)) {
            placed.flip(e.op);
            if placed.first_time(&mut seen, &next) {
                path.push((at, std::mem::replace(&mut state, next)));
                list.lift(at);
                at = list.next[list.head()];
                continue;
            }
            placed.flip(e.op);
        }
        at = list.next[at];
    }
}

/// The (placed set, state) pairs explored, by the set's hash and the state.
type Seen<T> = HashMap<(u64, T), Vec<Box<[u64]>>>;

/// The set of operations placed on the current path, with its Zobrist hash (the XOR of a
/// fixed random word per operation) kept as it changes: looking a (set, state) pair up then
/// hashes one word and the state, and copies the set only when the pair is new, where
/// hashing and copying the whole set at every step made a search's step cost grow with the
/// history's length.
struct Placed {
    bits: Box<[u64]>,
    zobrist: Vec<u64>,
    hash: u64,
}

impl Placed {
    fn new(n: usize) -> Self {
        // SplitMix64 over the operation's index: fixed, so the search is the same every run.
        let word = |i: usize| {
            let mut z = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Placed {
            bits: vec![0; n.div_ceil(64)].into_boxed_slice(),
            zobrist: (0..n).map(word).collect(),
            hash: 0,
        }
    }

    fn flip(&mut self, op: usize) {
        self.bits[op / 64] ^= 1 << (op % 64);
        self.hash ^= self.zobrist[op];
    }

    /// Records (this set, `state`) as seen; false if it already was.
    fn first_time<T: Clone + Eq + Hash>(&self, seen: &mut Seen<T>, state: &T) -> bool {
        let sets = seen.entry((self.hash, state.clone())).or_default();
        if sets.contains(&self.bits) {
            return false;
        }
        sets.push(self.bits.clone());
        true
    }
}
