//! Snowflake IDs (DESIGN section 4; seed 001): generators `client-<i>` issue 64-bit IDs of 41
//! bits of milliseconds since `epoch_ms` (their own wall clock), 10 bits of node ID and 12 bits
//! of sequence. Node IDs are static (client-i is node i) or leased from `server-0` out of a
//! pool. The known-wrong variants are knobs — a rollback ignored, a sequence that wraps, a last
//! millisecond forgotten in a crash — so the catalogue runs each bug beside its fix, and the
//! generic `unique_ids` and `id_monotonic` checkers judge them.

pub mod generator;
pub mod id;
pub mod msg;
pub mod node_lease;
pub mod obs;
pub mod sequencer;
pub mod world;

use locksim_sim::{NodeId, NodeSetup, Recording};

use crate::ids::IdJudge;
use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS, MAX_MS as MAX_BURST_AT_MS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use generator::{Generator, GeneratorConfig, NodeIds, Rollback};
use id::{MAX_MS, NODE_IDS, SEQUENCES_PER_MS};
use node_lease::NodeLeaseServer;
use obs::{GENERATOR_EVENTS, LEASE_SERVER_EVENTS};
use sequencer::Overflow;
use world::IdNode;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "snowflake",
    summary: "Snowflake ID generators: 41-bit ms since epoch_ms (own wall clock), 10-bit node ID (static or leased from server-0), 12-bit sequence; rollback, overflow and restart policies",
    parse: Snowflake::parse,
    invariants: crate::ids::ID_INVARIANTS,
    // The rollback policy, the last ms on disk, the sequence overflow.
    protections: &[
        "protocol.rollback",
        "protocol.persist_last_ms",
        "protocol.sequence_overflow",
    ],
};

/// `kind = "snowflake"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snowflake {
    pub clients: u32,
    pub generator: GeneratorConfig,
    /// Node IDs leased from `server-0` (absent: static, client-i is node i).
    pub node_lease: Option<NodeLease>,
}

/// The node-ID lease server's knobs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NodeLease {
    /// How many IDs the server's pool has.
    pub pool: u16,
    pub ttl_ns: u64,
}

/// The requests each generator receives: `rate_per_ms` at every tick, and one burst.
struct RequestLoad {
    rate_per_ms: u64,
    burst: u64,
    burst_at_ns: u64,
}

impl RequestLoad {
    /// Reads the load's knobs; a burst time without a burst, or no requests at all, is an error.
    fn parse(k: &mut Knobs) -> Result<Self, KnobError> {
        let rate_per_ms = k.uint(
            "rate_per_ms",
            1,
            0,
            MAX_RATE_PER_MS,
            "ID requests each generator receives at every tick of its clock (one tick per ms)",
        )?;
        let burst = k.uint(
            "burst",
            0,
            0,
            MAX_BURST,
            "extra requests that arrive at once, in one tick, at burst_at_ms (0 = none)",
        )?;
        let burst_at_ns = k.millis(
            "burst_at_ms",
            0,
            0,
            MAX_BURST_AT_MS,
            "when the burst arrives: the first tick at or after this on each generator's monotonic clock",
        )?;
        if burst == 0 && k.has("burst_at_ms") {
            return Err(k.error("burst_at_ms", "there is no burst (set burst)"));
        }
        if rate_per_ms == 0 && burst == 0 {
            return Err(k.error("rate_per_ms", "no requests at all: set rate_per_ms or burst"));
        }
        Ok(RequestLoad {
            rate_per_ms,
            burst,
            burst_at_ns,
        })
    }
}

impl NodeLease {
    /// Reads the node-ID knobs: leased IDs (`Some`), or static ones (`None`), which take no
    /// lease knobs and at most one generator per node ID.
    fn parse(k: &mut Knobs, clients: u32) -> Result<Option<Self>, KnobError> {
        let leased = k.choice(
            "node_ids",
            &[("static", false), ("leased", true)],
            false,
            "node IDs configured (client-i is node i) or leased from server-0",
        )?;
        let ttl_ns = k.millis(
            "node_lease_ttl_ms",
            10_000,
            10,
            HOUR_MS,
            "node-ID lease TTL; renewed every third of it, and asked for again every tenth while none is free",
        )?;
        let pool = k.uint(
            "node_id_pool",
            u64::from(NODE_IDS),
            1,
            u64::from(NODE_IDS),
            "how many node IDs server-0 leases out (0..pool)",
        )? as u16;
        if !leased {
            for key in ["node_lease_ttl_ms", "node_id_pool"] {
                if k.has(key) {
                    return Err(k.error(key, "node IDs are static (set node_ids = \"leased\")"));
                }
            }
            if u64::from(clients) > u64::from(NODE_IDS) {
                return Err(k.error("clients", "static node IDs: at most 1024 generators"));
            }
        }
        Ok(leased.then_some(NodeLease { pool, ttl_ns }))
    }
}

/// Twice what a generator can issue in a millisecond: enough to overload it, and a bound on
/// how many events one tick records.
const MAX_RATE_PER_MS: u64 = 2 * SEQUENCES_PER_MS as u64;
/// A million requests in one burst.
const MAX_BURST: u64 = 1_000_000;

impl Snowflake {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of ID generators client-0..")? as u32;
        let load = RequestLoad::parse(k)?;
        let epoch_ms = k.int(
            "epoch_ms",
            0,
            -(MAX_MS as i64),
            MAX_MS as i64,
            "the wall-clock reading (ms) that is millisecond 0 of the IDs' 41-bit timestamp",
        )?;
        let rollback = k.choice(
            "rollback",
            &[
                ("reject", Rollback::Reject),
                ("wait", Rollback::Wait),
                ("ignore", Rollback::Ignore),
            ],
            Rollback::Reject,
            "clock behind the last ID's ms: refuse requests until it is back, wait, or (wrong) issue anyway",
        )?;
        let persist_last_ms = k.bool(
            "persist_last_ms",
            false,
            "the last ID's ms is written to disk before each ID and read back on restart",
        )?;
        let overflow = k.choice(
            "sequence_overflow",
            &[("wait", Overflow::Wait), ("wrap", Overflow::Wrap)],
            Overflow::Wait,
            "request 4097 of a ms: wait for the next ms, or (wrong) wrap the sequence to 0 in the same ms",
        )?;
        let node_lease = NodeLease::parse(k, clients)?;
        let start_stagger_ns = k.millis(
            "start_stagger_ms",
            10,
            0,
            HOUR_MS,
            "client-i starts at i x this, so stories start in a known order",
        )?;
        Ok(Box::new(Snowflake {
            clients,
            generator: GeneratorConfig {
                rate_per_ms: load.rate_per_ms,
                burst: load.burst,
                burst_at_ns: load.burst_at_ns,
                epoch_ns: epoch_ms * 1_000_000,
                rollback,
                overflow,
                persist_last_ms,
                start_stagger_ns,
            },
            node_lease,
        }))
    }

    /// The nodes: the generators, then the lease server `server-0` when node IDs are leased
    /// (a group of none otherwise, which still documents its events).
    fn declare(&self) -> (Layout, Vec<NodeId>, Option<NodeId>) {
        let mut layout = Layout::default();
        let generators = layout.group("client", self.clients, Role::Client, GENERATOR_EVENTS);
        let leasing = u32::from(self.node_lease.is_some());
        let lease_server = layout.group("server", leasing, Role::Server, LEASE_SERVER_EVENTS);
        (layout, generators, lease_server.first().copied())
    }

    /// The world's nodes: the generators, then the lease server when node IDs are leased.
    pub fn build(&self, setting: Setting<'_>) -> Vec<NodeSetup<IdNode>> {
        let (layout, generators, lease_server) = self.declare();
        let node_ids = match (self.node_lease, lease_server) {
            (Some(lease), Some(server)) => NodeIds::Leased {
                server,
                ttl_ns: lease.ttl_ns,
            },
            _ => NodeIds::Static,
        };
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &g) in generators.iter().enumerate() {
            let generator = Generator::new(self.generator, i as u16, node_ids);
            nodes.add(g, IdNode::Generator(Box::new(generator)));
        }
        if let (Some(lease), Some(server)) = (self.node_lease, lease_server) {
            nodes.add(
                server,
                IdNode::LeaseServer(NodeLeaseServer::new(lease.pool, lease.ttl_ns)),
            );
        }
        nodes.finish()
    }
}

impl Protocol for Snowflake {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        run_world(self.build(setting), setting, seed, recording, IdJudge::default())
    }
}
