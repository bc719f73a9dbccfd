//! The simulated network: per-link latency drawn from the seed, FIFO links unless reordering
//! is on, and the network faults — cut links (partitions, isolation, one-way cuts), delay
//! windows, loss and duplication.

use rand_chacha::ChaCha8Rng;

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
    n: usize,
    cfg: NetworkConfig,
    /// Per link (`from * n + to`): the latency bounds, resolved once.
    latency: Vec<Latency>,
    /// Per link: how many active cuts cover it.
    cuts: Vec<u16>,
    /// Per link: the latest arrival scheduled, to keep links FIFO.
    last_arrival_ns: Vec<u64>,
    delays: Vec<DelayRule>,
    losses: Vec<LossRule>,
}

impl Network {
    pub(crate) fn new(n: usize, cfg: NetworkConfig) -> Self {
        let mut latency = vec![cfg.latency; n * n];
        for &(from, to, l) in &cfg.links {
            latency[from.index() * n + to.index()] = l;
        }
        Network {
            n,
            cfg,
            latency,
            cuts: vec![0; n * n],
            last_arrival_ns: vec![0; n * n],
            delays: Vec::new(),
            losses: Vec::new(),
        }
    }

    /// Cuts (`add`) or restores every link of a partition.
    pub(crate) fn cut(&mut self, groups: &[Vec<NodeId>], one_way: bool, add: bool) {
        for (gi, ga) in groups.iter().enumerate() {
            if one_way && gi > 0 {
                break;
            }
            for (gj, gb) in groups.iter().enumerate() {
                if gi == gj {
                    continue;
                }
                for a in ga {
                    for b in gb {
                        let c = &mut self.cuts[a.index() * self.n + b.index()];
                        *c = if add { *c + 1 } else { *c - 1 };
                    }
                }
            }
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
    pub(crate) fn route(
        &mut self,
        rng: &mut ChaCha8Rng,
        loss_rng: &mut ChaCha8Rng,
        now_ns: u64,
        from: NodeId,
        to: NodeId,
    ) -> Route {
        let link = from.index() * self.n + to.index();
        if self.cuts[link] > 0 {
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
        let at_ns = self.arrival(rng, link, now_ns, extra_ns);
        let dup_ns = duplicate.then(|| self.arrival(rng, link, now_ns, extra_ns));
        Route::Arrives { at_ns, dup_ns }
    }

    fn arrival(&mut self, rng: &mut ChaCha8Rng, link: usize, now_ns: u64, extra_ns: u64) -> u64 {
        let l = self.latency[link];
        let mut at_ns = now_ns + uniform(rng, l.min_ns, l.max_ns) + extra_ns;
        if !self.cfg.reorder {
            at_ns = at_ns.max(self.last_arrival_ns[link]);
            self.last_arrival_ns[link] = at_ns;
        }
        at_ns
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

    #[test]
    fn certain_loss_drops() {
        let (mut n, mut r, mut l) = net();
        n.add_loss(0, (None, Some(C)), u64::MAX, 1_000_000, false);
        assert_eq!(n.route(&mut r, &mut l, 0, A, C), Route::Dropped(DropReason::Loss));
        assert!(matches!(n.route(&mut r, &mut l, 0, A, B), Route::Arrives { .. }));
    }
}
