//! The network's routing: FIFO order, partitions, delay and loss windows, overrides, and
//! the quiet path against the full one.

use super::*;
use crate::rng::stream;

fn net() -> (Network, ChaCha8Rng, ChaCha8Rng) {
    (
        Network::new(3, NetworkConfig::default()),
        stream(1, "network"),
        stream(1, "loss"),
    )
}

const A: NodeId = NodeId(0);
const B: NodeId = NodeId(1);
const C: NodeId = NodeId(2);

#[test]
fn fifo_links_never_reorder() {
    let (mut n, mut r, mut l) = net();
    let mut last = 0;
    for i in 0..200 {
        let Route::Arrives { at_ns, .. } = n.route(&mut r, &mut l, i * 10, A, B) else {
            panic!()
        };
        assert!(at_ns >= last && at_ns >= i * 10 + 1_000_000);
        last = at_ns;
    }
}

#[test]
fn one_way_cut_drops_one_direction_and_heals() {
    let (mut n, mut r, mut l) = net();
    let groups = vec![vec![A], vec![B, C]];
    n.cut(&groups, true, true);
    assert_eq!(n.route(&mut r, &mut l, 0, A, B), Route::Dropped(DropReason::Partition));
    assert!(matches!(n.route(&mut r, &mut l, 0, B, A), Route::Arrives { .. }));
    n.cut(&groups, true, false);
    assert!(matches!(n.route(&mut r, &mut l, 0, A, B), Route::Arrives { .. }));
}

#[test]
fn delay_window_adds_latency_only_inside_it() {
    let (mut n, mut r, mut l) = net();
    n.add_delay(0, A, B, 1_000, 90_000_000_000);
    let Route::Arrives { at_ns, .. } = n.route(&mut r, &mut l, 0, A, B) else {
        panic!()
    };
    assert!(at_ns >= 90_000_000_000);
    let Route::Arrives { at_ns, .. } = n.route(&mut r, &mut l, 0, B, A) else {
        panic!()
    };
    assert!(at_ns < 10_000_000);
    n.end_window(0);
    assert!(n.delays.is_empty());
}

/// With no fault in force the route skips the fault checks: it must draw exactly what the
/// full path draws when its rules are all out of their windows.
#[test]
fn the_quiet_path_routes_as_the_full_path_with_no_rule_in_force() {
    let (mut quiet, mut r1, mut l1) = net();
    let (mut full, mut r2, mut l2) = net();
    full.add_loss(0, (None, None), 10, 1_000_000, false);
    full.add_delay(1, A, B, 10, 1_000_000_000);
    for i in 0..100u64 {
        let (now, from, to) = (100 + i * 1_000, if i % 2 == 0 { A } else { B }, C);
        assert_eq!(
            quiet.route(&mut r1, &mut l1, now, from, to),
            full.route(&mut r2, &mut l2, now, from, to)
        );
    }
}

#[test]
fn certain_loss_drops() {
    let (mut n, mut r, mut l) = net();
    n.add_loss(0, (None, Some(C)), u64::MAX, 1_000_000, false);
    assert_eq!(n.route(&mut r, &mut l, 0, A, C), Route::Dropped(DropReason::Loss));
    assert!(matches!(n.route(&mut r, &mut l, 0, A, B), Route::Arrives { .. }));
}

/// The dense table per pair of nodes the network kept before: the reference for FIFO order.
fn dense_arrivals(sends: &[(u64, NodeId, NodeId)], n: usize) -> Vec<u64> {
    let mut rng = stream(7, "network");
    let mut last = vec![0; n * n];
    let cfg = NetworkConfig::default();
    sends
        .iter()
        .map(|&(now, from, to)| {
            let link = from.index() * n + to.index();
            let at = (now + uniform(&mut rng, cfg.latency.min_ns, cfg.latency.max_ns)).max(last[link]);
            last[link] = at;
            at
        })
        .collect()
}

#[test]
fn fifo_in_flight_only_matches_a_table_per_pair_and_stays_small() {
    let n = 1_000;
    // A server answering 999 clients, bursts of replies on the same links, time moving on.
    let mut pick = stream(3, "test");
    let sends: Vec<(u64, NodeId, NodeId)> = (0..50_000u64)
        .map(|i| {
            let client = NodeId(1 + uniform(&mut pick, 0, n as u64 - 2) as u32);
            let now = i * 20_000;
            if i % 2 == 0 {
                (now, NodeId(0), client)
            } else {
                (now, client, NodeId(0))
            }
        })
        .collect();
    let mut net = Network::new(n, NetworkConfig::default());
    let (mut rng, mut loss) = (stream(7, "network"), stream(7, "loss"));
    let ours: Vec<u64> = sends
        .iter()
        .map(|&(now, from, to)| match net.route(&mut rng, &mut loss, now, from, to) {
            Route::Arrives { at_ns, dup_ns: None } => at_ns,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ours, dense_arrivals(&sends, n));
    // ~500 messages in flight at a time (5 ms at most, one send per 20 us): ~1,000 entries
    // at most between sweeps, never a million.
    assert!(net.fifo.links() <= 2_000, "{} links kept", net.fifo.links());
}

#[test]
fn partition_of_a_thousand_nodes_cuts_across_groups_only_until_healed() {
    let n = 1_000u32;
    let mut net = Network::new(n as usize, NetworkConfig::default());
    let (mut r, mut l) = (stream(1, "network"), stream(1, "loss"));
    let groups = vec![
        (0..500).map(NodeId).collect::<Vec<_>>(),
        (500..999).map(NodeId).collect(),
    ];
    let cut = |net: &mut Network, r: &mut ChaCha8Rng, l: &mut ChaCha8Rng, a: u32, b: u32| {
        net.route(r, l, 0, NodeId(a), NodeId(b)) == Route::Dropped(DropReason::Partition)
    };
    net.cut(&groups, false, true);
    // Twice over: a link stays cut until both partitions heal.
    net.cut(&groups, false, true);
    assert!(cut(&mut net, &mut r, &mut l, 3, 700) && cut(&mut net, &mut r, &mut l, 700, 3));
    assert!(!cut(&mut net, &mut r, &mut l, 3, 499) && !cut(&mut net, &mut r, &mut l, 500, 998));
    // Node 999 is in no group: none of its links is cut.
    assert!(!cut(&mut net, &mut r, &mut l, 999, 3) && !cut(&mut net, &mut r, &mut l, 700, 999));
    net.cut(&groups, false, false);
    assert!(cut(&mut net, &mut r, &mut l, 3, 700));
    net.cut(&groups, false, false);
    assert!(!cut(&mut net, &mut r, &mut l, 3, 700) && !cut(&mut net, &mut r, &mut l, 700, 3));
}

#[test]
fn a_link_override_sets_that_link_only() {
    let slow = Latency {
        min_ns: 7_000_000_000,
        max_ns: 7_000_000_000,
    };
    let cfg = NetworkConfig {
        links: vec![(A, B, slow)],
        ..NetworkConfig::default()
    };
    let (mut n, mut r, mut l) = (Network::new(3, cfg), stream(1, "network"), stream(1, "loss"));
    assert_eq!(
        n.route(&mut r, &mut l, 0, A, B),
        Route::Arrives {
            at_ns: 7_000_000_000,
            dup_ns: None
        }
    );
    let Route::Arrives { at_ns, .. } = n.route(&mut r, &mut l, 0, B, A) else {
        panic!()
    };
    assert!(at_ns <= 5_000_000);
}
