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
mod tests;
