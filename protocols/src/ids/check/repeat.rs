//! The earliest repeated ID among the generators' issues, and that ID's first issue.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::binary_heap::PeekMut;

use locksim_sim::NodeId;
use locksim_sim::check::NodeTable;

use super::chunks::Chunks;

/// One issued ID. Ordered by ID, then event index (distinct), as the repeat search needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Issue<I> {
    pub(super) id: I,
    pub(super) index: usize,
    pub(super) t_ns: u64,
}

/// An issue and its generator.
pub(super) type Placed<I> = (Issue<I>, NodeId);
/// A repeated ID: its first issue, and the repeat.
type Repeat<I> = (Placed<I>, Placed<I>);

/// Up to this many generators whose IDs all increase are compared pair by pair: (k - 1)
/// steps per ID for k generators, which beat the merge's heap up to about this many.
const PAIRWISE_UP_TO: usize = 8;

/// How many IDs were issued, and the earliest repeat with its ID's first issue. `increasing`
/// says every generator's IDs strictly increase (so its list is sorted, without repeats).
///
/// The first violation is the repeat with the smallest event index; its ID's first issue is
/// that ID's earliest.
pub(super) fn first_repeat<I: Ord + Copy>(
    issued: NodeTable<Chunks<Issue<I>>>,
    increasing: bool,
) -> (usize, Option<Repeat<I>>) {
    let runs: Vec<(NodeId, Chunks<Issue<I>>)> = issued.into_entries().filter(|(_, v)| v.len() > 0).collect();
    let total = runs.iter().map(|(_, ids)| ids.len()).sum();
    if increasing && runs.len() <= PAIRWISE_UP_TO {
        return (total, pairwise(&runs));
    }
    let mut runs: Vec<(NodeId, Vec<Issue<I>>)> = runs.into_iter().map(|(node, ids)| (node, ids.into_vec())).collect();
    for (_, ids) in &mut runs {
        ids.sort();
    }
    (total, merged(&runs))
}

/// Each pair of sorted lists without repeats walked side by side, as a merge would, looking
/// only for an ID both hold: ~10 instructions a step where the heap's merge took ~110 an ID.
/// An ID issued by several generators meets its first issue in one of the pairs, where the
/// later of the two is its second issue, the repeat; later issues of it pair with an earlier
/// one as the later of two, so they never take the repeat's place.
fn pairwise<I: Ord + Copy>(runs: &[(NodeId, Chunks<Issue<I>>)]) -> Option<Repeat<I>> {
    let mut first: Option<Repeat<I>> = None;
    for (a, (node_a, ids_a)) in runs.iter().enumerate() {
        for (node_b, ids_b) in &runs[a + 1..] {
            let (mut chunks_a, mut chunks_b) = (ids_a.slices(), ids_b.slices());
            let (mut xs, mut ys): (&[Issue<I>], &[Issue<I>]) = (&[], &[]);
            loop {
                // Chunk by chunk: the walk within two slices below is the step that counts.
                if xs.is_empty() {
                    let Some(next) = chunks_a.next() else { break };
                    xs = next;
                    continue;
                }
                if ys.is_empty() {
                    let Some(next) = chunks_b.next() else { break };
                    ys = next;
                    continue;
                }
                // Each side's ID is held, and read again only when that side steps: ~10
                // instructions a step, where reading both at every step took ~12 (Snowflake: -6
                // per event).
                let (mut i, mut j) = (0, 0);
                let (mut x, mut y) = (xs[0].id, ys[0].id);
                loop {
                    if x < y {
                        i += 1;
                        let Some(next) = xs.get(i) else { break };
                        x = next.id;
                    } else if y < x {
                        j += 1;
                        let Some(next) = ys.get(j) else { break };
                        y = next.id;
                    } else {
                        let (a, b) = (xs[i], ys[j]);
                        let pair = if a.index < b.index {
                            ((a, *node_a), (b, *node_b))
                        } else {
                            ((b, *node_b), (a, *node_a))
                        };
                        let key = |(first, again): &Repeat<I>| (again.0.index, first.0.index);
                        if first.is_none_or(|f| key(&pair) < key(&f)) {
                            first = Some(pair);
                        }
                        (i, j) = (i + 1, j + 1);
                        let (Some(next_x), Some(next_y)) = (xs.get(i), ys.get(j)) else {
                            break;
                        };
                        (x, y) = (next_x.id, next_y.id);
                    }
                }
                (xs, ys) = (&xs[i..], &ys[j..]);
            }
        }
    }
    first
}

/// The sorted lists merged in (ID, event index) order, where a repeat sits right after an
/// earlier issue of its ID, and the ID's first issue is the one before the earliest repeat
/// (every issue of an ID after the first is later than the second).
fn merged<I: Ord + Copy>(runs: &[(NodeId, Vec<Issue<I>>)]) -> Option<Repeat<I>> {
    let key = |i: &Issue<I>, run: usize| Reverse((i.id, i.index, run));
    let mut heads: BinaryHeap<_> = runs.iter().enumerate().map(|(r, (_, ids))| key(&ids[0], r)).collect();
    let mut next = vec![0; runs.len()];
    let (mut prev, mut first): (Option<Placed<I>>, Option<Repeat<I>>) = (None, None);
    // The smallest head is replaced in place by its run's next issue (one sift down), not
    // popped and pushed (two sifts): the merge takes one step per issued ID.
    while let Some(mut head) = heads.peek_mut() {
        let Reverse((_, _, r)) = *head;
        let (node, ids) = &runs[r];
        let here = (ids[next[r]], *node);
        next[r] += 1;
        match ids.get(next[r]) {
            Some(i) => *head = key(i, r),
            None => {
                PeekMut::pop(head);
            }
        }
        if let Some(before) = prev
            && before.0.id == here.0.id
            && first.is_none_or(|(_, again)| here.0.index < again.0.index)
        {
            first = Some((before, here));
        }
        prev = Some(here);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both searches against a plain sort of every issue, on random lists (increasing or not,
    /// some empty, many repeats, up to twice the generators compared pair by pair).
    #[test]
    fn match_sorting_every_issue() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..600 {
            let k = 1 + next() % (2 * PAIRWISE_UP_TO as u64);
            let (ids, increasing) = (1 + next() % 40, round % 3 != 0);
            let mut runs = vec![Vec::new(); k as usize];
            for index in 0..next() % 80 {
                runs[(next() % k) as usize].push(Issue {
                    id: next() % ids,
                    index: index as usize,
                    t_ns: next(),
                });
            }
            if increasing {
                for ids in &mut runs {
                    ids.sort();
                    ids.dedup_by_key(|i| i.id);
                }
            }
            let (mut table, mut all) = (NodeTable::<Chunks<Issue<u64>>>::new(), Vec::new());
            for (n, ids) in runs.into_iter().enumerate() {
                let node = NodeId(n as u32);
                for issue in ids {
                    table.get_mut(node).push(issue);
                    all.push((issue, node));
                }
            }
            all.sort();
            let expected = all
                .windows(2)
                .filter(|w| w[0].0.id == w[1].0.id)
                .map(|w| (w[0], w[1]))
                .min_by_key(|(_, again)| again.0.index);
            assert_eq!(first_repeat(table, increasing), (all.len(), expected), "round {round}");
        }
    }
}
