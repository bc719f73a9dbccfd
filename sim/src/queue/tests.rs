//! The queue's order against its promises and a sorted reference.

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
    let times =
        |q: &mut Queue<()>, n: usize| -> Vec<u64> { (0..n).map_while(|_| q.pop_until(100)).map(|(t, _)| t).collect() };
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

/// The heap against a sorted reference, with pushes (messages and timers) and pops
/// interleaved (slots are reused, and a pop's hole at the root is filled by a timer, by a
/// message or by the next pop) and many equal times (the insertion order must break ties).
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
    let pop = |q: &mut Queue<u32>| match q.pop_until(u64::MAX) {
        Some((t, Popped::Due(Due::Deliver { msg, .. }))) => Some((t, msg)),
        Some((t, Popped::Timer { node, .. })) => Some((t, node.0)),
        Some((_, Popped::Due(other))) => panic!("{other:?}"),
        None => None,
    };
    let mut now = 0u64;
    for id in 0..5_000u32 {
        let t = now + next() % 8;
        match next() % 6 {
            0..=2 => {
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
                reference.push((t, q.seq, id));
            }
            3 => {
                let seq = q.next_seq();
                q.push_timer(t, seq, NodeId(id), 0);
                reference.push((t, seq, id));
            }
            _ => {
                if let Some((t, id)) = pop(&mut q) {
                    reference.sort();
                    let (rt, _, rid) = reference.remove(0);
                    assert_eq!((t, id), (rt, rid));
                    now = t;
                }
            }
        }
    }
    reference.sort();
    for (rt, _, rid) in reference {
        assert_eq!(pop(&mut q), Some((rt, rid)));
    }
    assert!(q.pop_until(u64::MAX).is_none());
}
