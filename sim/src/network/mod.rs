//! The simulated network: per-link latency drawn from the seed, FIFO links unless reordering
//! is on, and the network faults — cut links (partitions, isolation, one-way cuts), delay
//! windows, loss and duplication.
//!
//! Nothing here is kept per pair of nodes unless that pair differs from the defaults: latency
//! overrides by link, partitions by node (`cuts.rs`), FIFO order by link in flight
//! (`fifo.rs`). A world of 1,000 clients costs what its messages cost, not a million links.

mod cuts;
mod fifo;

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;

use self::cuts::Cuts;
use self::fifo::Fifo;

use crate::history::DropReason;
use crate::ids::NodeId;
use crate::rng::{chance_ppm, uniform};

/// Latency bounds of one link, both inclusive.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Latency {
    pub min_ns: u64,
    pub max_ns: u64,
}

/// The network as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkConfig {
    pub latency: Latency,
    /// Per-link overrides `(from, to, latency)`.
    pub links: Vec<(NodeId, NodeId, Latency)>,
    /// Off: each link delivers in send order, as a TCP connection does. On: every message
    /// draws its own latency and may overtake earlier ones.
    pub reorder: bool,
}

impl Default for NetworkConfig {
    /// 1-5 ms per message, FIFO links: a LAN, and the madsim peer's setting.
    fn default() -> Self {
        NetworkConfig {
            latency: Latency {
                min_ns: 1_000_000,
                max_ns: 5_000_000,
            },
            links: Vec::new(),
            reorder: false,
        }
    }
}

/// Where a sent message goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Dropped(DropReason),
    /// Arrives at `at_ns`; a second copy at `dup_ns` when duplicated.
    Arrives {
        at_ns: u64,
        dup_ns: Option<u64>,
    },
}

#[derive(Clone, Debug)]
struct DelayRule {
    fault: u32,
    from: NodeId,
    to: NodeId,
    until_ns: u64,
    extra_ns: u64,
}

#[derive(Clone, Debug)]
struct LossRule {
    fault: u32,
    from: Option<NodeId>,
    to: Option<NodeId>,
    until_ns: u64,
    ppm: u32,
    duplicate: bool,
}

impl LossRule {
    fn matches(&self, from: NodeId, to: NodeId) -> bool {
        self.from.is_none_or(|f| f == from) && self.to.is_none_or(|t| t == to)
    }
}

/// The network's state during a run.
pub(crate) struct Network {
    cfg: NetworkConfig,
    /// The links whose latency is not `cfg.latency`, resolved once (the last override of a
    /// link wins).
    latency_overrides: BTreeMap<(NodeId, NodeId), Latency>,
    cuts: Cuts,
    /// Unused when `cfg.reorder`.
    fifo: Fifo,
    delays: Vec<DelayRule>,
    losses: Vec<LossRule>,
}

impl Network {
    pub(crate) fn new(n: usize, cfg: NetworkConfig) -> Self {
        let latency_overrides = cfg.links.iter().map(|&(from, to, l)| ((from, to), l)).collect();
        Network {
            cfg,
            latency_overrides,
            cuts: Cuts::new(n),
            fifo: Fifo::new(),
            delays: Vec::new(),
            losses: Vec::new(),
        }
    }

    /// Cuts (`add`) or restores every link of a partition.
    pub(crate) fn cut(&mut self, groups: &[Vec<NodeId>], one_way: bool, add: bool) {
        if add {
            self.cuts.add(groups, one_way);
        } else {
            self.cuts.remove(groups, one_way);
        }
    }

    pub(crate) fn add_delay(&mut self, fault: u32, from: NodeId, to: NodeId, until_ns: u64, extra_ns: u64) {
        self.delays.push(DelayRule {
            fault,
            from,
            to,
            until_ns,
            extra_ns,
        });
    }

    pub(crate) fn add_loss(
        &mut self,
        fault: u32,
        link: (Option<NodeId>, Option<NodeId>),
        until_ns: u64,
        ppm: u32,
        duplicate: bool,
    ) {
        self.losses.push(LossRule {
            fault,
            from: link.0,
            to: link.1,
            until_ns,
            ppm,
            duplicate,
        });
    }

    /// Closes the delay or loss window of `fault`.
    pub(crate) fn end_window(&mut self, fault: u32) {
        self.delays.retain(|d| d.fault != fault);
        self.losses.retain(|l| l.fault != fault);
    }

    /// Decides the fate of a message sent now. Latency draws come from `rng`; loss and
    /// duplication draws from `loss_rng`, so that turning loss on does not reshuffle latencies.
    #[inline]
    pub(crate) fn route(
        &mut self,
        rng: &mut ChaCha8Rng,
        loss_rng: &mut ChaCha8Rng,
        now_ns: u64,
        from: NodeId,
        to: NodeId,
    ) -> Route {
        if self.cuts.is_empty() && self.losses.is_empty() && self.delays.is_empty() {
            // No network fault in force, as in most of most runs: only the latency is drawn,
            // inline in the sender's step; the fault checks are a call of their own.
            let at_ns = self.arrival(rng, now_ns, (from, to), 0);
            return Route::Arrives { at_ns, dup_ns: None };
        }
        self.route_through_faults(rng, loss_rng, now_ns, from, to)
    }

    /// [`Network::route`] with a partition, a loss or a delay window in force.
    #[inline(never)]
    fn route_through_faults(
        &mut self,
        rng: &mut ChaCha8Rng,
        loss_rng: &mut ChaCha8Rng,
        now_ns: u64,
        from: NodeId,
        to: NodeId,
    ) -> Route {
        if self.cuts.severs(from, to) {
            return Route::Dropped(DropReason::Partition);
        }
        let mut duplicate = false;
        for rule in &self.losses {
            if now_ns < rule.until_ns && rule.matches(from, to) && chance_ppm(loss_rng, rule.ppm) {
                if !rule.duplicate {
                    return Route::Dropped(DropReason::Loss);
                }
                duplicate = true;
            }
        }
        let extra_ns: u64 = self
            .delays
            .iter()
            .filter(|d| d.from == from && d.to == to && now_ns < d.until_ns)
            .map(|d| d.extra_ns)
            .sum();
        let at_ns = self.arrival(rng, now_ns, (from, to), extra_ns);
        let dup_ns = duplicate.then(|| self.arrival(rng, now_ns, (from, to), extra_ns));
        Route::Arrives { at_ns, dup_ns }
    }

    #[inline]
    fn arrival(&mut self, rng: &mut ChaCha8Rng, now_ns: u64, (from, to): (NodeId, NodeId), extra_ns: u64) -> u64 {
        let l = if self.latency_overrides.is_empty() {
            self.cfg.latency
        } else {
            self.latency_overrides
                .get(&(from, to))
                .copied()
                .unwrap_or(self.cfg.latency)
        };
        let at_ns = now_ns + uniform(rng, l.min_ns, l.max_ns) + extra_ns;
        if self.cfg.reorder {
            at_ns
        } else {
            self.fifo.arrival(now_ns, from, to, at_ns)
        }
    }
}

#[cfg(test)]
mod tests {
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
}
