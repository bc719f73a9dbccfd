//! Segment IDs (seed 001; Meituan's Leaf): an allocator database (`server-0`) atomically moves
//! a business's max by `step` — 10000 to 11000 — and hands `(10000, 11000]` to one process;
//! processes `client-<i>` issue IDs from their segment locally and prefetch the next before it
//! runs out (the double buffer). Optionally the database has a replica (`replica-0`), fed
//! asynchronously or semi-synchronously, which a `failover` promotes.
//!
//! The known-wrong variants are knobs — a non-atomic read-then-write allocation, a segment
//! resumed after a crash to avoid a gap, an asynchronous replica promoted behind the primary
//! — judged by `unique_ids` and `id_monotonic`. `id_global_order` is judged too, to show what
//! segment IDs do not promise: with two processes on adjacent segments a smaller ID is not an
//! earlier one.

pub mod allocator;
pub mod buffer;
pub mod msg;
pub mod obs;
pub mod process;
pub mod world;

use locksim_sim::{NodeId, Recording};

use crate::ids::{ORDERED_ID_INVARIANTS, OrderedIdJudge};
use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use allocator::{Allocator, Replication};
use obs::{ALLOCATOR_EVENTS, PROCESS_EVENTS};
use process::{AfterCrash, Allocation, Process, ProcessConfig};
use world::SegNode;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "segment-ids",
    summary: "segment IDs (Leaf): server-0 atomically moves a business's max by step and hands (old, new] to one process, which issues locally and prefetches the next (double buffer); optional async or semi-sync replica-0 promoted by failover",
    parse: SegmentIds::parse,
    invariants: ORDERED_ID_INVARIANTS,
    protections: &["protocol.allocation", "protocol.after_crash", "protocol.replication"],
};

/// `kind = "segment-ids"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentIds {
    pub clients: u32,
    pub process: ProcessConfig,
    /// The business's max before the first allocation.
    pub initial_max: u64,
    pub replication: Replication,
}

/// Enough to use up a segment of a few IDs many times a millisecond, and a bound on how many
/// events one tick records.
const MAX_RATE_PER_MS: u64 = 10_000;
/// A billion IDs a segment; with the initial max, far from the 64-bit limit in any run.
const MAX_STEP: u64 = 1_000_000_000;
const MAX_INITIAL_MAX: u64 = 1 << 50;

impl SegmentIds {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint(
            "clients",
            2,
            1,
            MAX_CLIENTS,
            "number of ID-issuing processes client-0..",
        )? as u32;
        let rate_per_ms = k.uint(
            "rate_per_ms",
            1,
            1,
            MAX_RATE_PER_MS,
            "ID requests each process receives at every tick of its clock (one tick per ms)",
        )?;
        let step = k.uint(
            "step",
            1000,
            1,
            MAX_STEP,
            "IDs per segment: how far one allocation moves the max",
        )?;
        let initial_max = k.uint(
            "initial_max",
            10_000,
            0,
            MAX_INITIAL_MAX,
            "the business's max_id before the first allocation (the first segment is (initial_max, initial_max + step])",
        )?;
        let prefetch_at_percent = k.uint(
            "prefetch_at_percent",
            10,
            1,
            100,
            "ask for the next segment once this share of the current one is used (Leaf: 10)",
        )?;
        let allocation = k.choice(
            "allocation",
            &[("atomic", Allocation::Atomic), ("read_then_write", Allocation::ReadThenWrite)],
            Allocation::Atomic,
            "one transaction moves the max and returns it, or (wrong) the process reads the max and writes max + step back in two round trips",
        )?;
        let after_crash = k.choice(
            "after_crash",
            &[
                ("new_segment", AfterCrash::NewSegment),
                ("resume_segment", AfterCrash::ResumeSegment),
            ],
            AfterCrash::NewSegment,
            "a restarted process asks for a new segment (the unused IDs are a gap), or (wrong) resumes the segment it was using from its start, to leave no gap",
        )?;
        let replication = Self::parse_replication(k)?;
        let retry_ns = k.millis(
            "retry_ms",
            100,
            1,
            HOUR_MS,
            "how long a process waits for the allocator before asking again",
        )?;
        let start_stagger_ns = k.millis(
            "start_stagger_ms",
            10,
            0,
            HOUR_MS,
            "client-i starts at i x this, so stories start in a known order",
        )?;
        Ok(Box::new(SegmentIds {
            clients,
            process: ProcessConfig {
                rate_per_ms,
                step,
                prefetch_at_percent,
                allocation,
                after_crash,
                retry_ns,
                start_stagger_ns,
            },
            initial_max,
            replication,
        }))
    }

    /// The replica's knobs: none, or how it is fed; a lag without asynchronous replication is
    /// an error.
    fn parse_replication(k: &mut Knobs) -> Result<Replication, KnobError> {
        #[derive(Copy, Clone, PartialEq)]
        enum Kind {
            None,
            Async,
            SemiSync,
        }
        let kind = k.choice(
            "replication",
            &[("none", Kind::None), ("async", Kind::Async), ("semi_sync", Kind::SemiSync)],
            Kind::None,
            "server-0's replica-0 (a failover promotes it): none, fed asynchronously (answers do not wait), or semi-synchronously (answers wait for its ack)",
        )?;
        let lag_ns = k.millis(
            "replication_lag_ms",
            200,
            0,
            HOUR_MS,
            "asynchronous replication: how long after a change the primary ships the max to replica-0",
        )?;
        if kind != Kind::Async && k.has("replication_lag_ms") {
            return Err(k.error(
                "replication_lag_ms",
                "replication is not asynchronous (set replication = \"async\")",
            ));
        }
        Ok(match kind {
            Kind::None => Replication::None,
            Kind::Async => Replication::Async { lag_ns },
            Kind::SemiSync => Replication::SemiSync,
        })
    }

    /// The nodes: the processes, the allocator `server-0`, and `replica-0` when replicated.
    fn declare(&self) -> (Layout, Vec<NodeId>, NodeId, Option<NodeId>) {
        let mut layout = Layout::default();
        let processes = layout.group("client", self.clients, Role::Client, PROCESS_EVENTS);
        let primary = layout.group("server", 1, Role::Server, ALLOCATOR_EVENTS)[0];
        let replicated = u32::from(self.replication != Replication::None);
        let replica = layout.group("replica", replicated, Role::Server, ALLOCATOR_EVENTS);
        (layout, processes, primary, replica.first().copied())
    }
}

impl Protocol for SegmentIds {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn failover_targets(&self) -> Vec<String> {
        match self.replication {
            Replication::None => Vec::new(),
            _ => vec!["server-0".into()],
        }
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (layout, processes, primary, replica) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &p) in processes.iter().enumerate() {
            let process = Process::new(self.process, i as u32, primary);
            nodes.add(p, SegNode::Process(Box::new(process)));
        }
        let (step, max, repl) = (self.process.step, self.initial_max, self.replication);
        let allocator = Allocator::primary(step, max, repl, replica, processes.clone());
        nodes.add(primary, SegNode::Allocator(allocator));
        if let Some(r) = replica {
            let replica_node = Allocator::replica(step, max, repl, primary, processes);
            nodes.add(r, SegNode::Allocator(replica_node));
        }
        run_world(nodes.finish(), setting, seed, recording, OrderedIdJudge::default())
    }
}
