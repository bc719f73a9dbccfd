//! UUIDv7 (RFC 9562 §5.7, §6.2; seed 001): generators `client-<i>` issue 128-bit UUIDs of 48
//! bits of Unix milliseconds from their own wall clock, the version and variant bits, and 74
//! bits of an optional counter over random data drawn from the run's seeded stream. The
//! counter's behaviour on overflow and on a clock step back are knobs, and so is the random
//! tail's width, so a collision can be made likely and the checkers shown to catch it.
//!
//! What it promises is uniqueness, by probability: `unique_ids` and `id_monotonic` judge the
//! generators, and `id_global_order` shows what seed 001 says UUIDv7 does not give — time
//! order across nodes follows their clocks, not the order of events.

pub mod counter;
pub mod generator;
pub mod obs;
pub mod uuid;

use locksim_sim::{NodeId, Recording};

use crate::ids::{ORDERED_ID_INVARIANTS, OrderedIdJudge};
use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use counter::{ClockBack, Overflow, Policy};
use generator::{Generator, GeneratorConfig};
use obs::GENERATOR_EVENTS;
use uuid::FREE_BITS;

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "uuidv7",
    summary: "UUIDv7 generators (RFC 9562): 48-bit Unix ms from each node's wall clock, version and variant bits, an optional counter (§6.2 Method 1) over a seeded random tail; counter-overflow and clock-step-back policies",
    parse: UuidV7::parse,
    invariants: ORDERED_ID_INVARIANTS,
    // The counter (order within a millisecond), its overflow and step-back policies, and the
    // random bits (uniqueness).
    protections: &[
        "protocol.counter_bits",
        "protocol.counter_overflow",
        "protocol.clock_back",
        "protocol.random_bits",
    ],
};

/// `kind = "uuidv7"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UuidV7 {
    pub clients: u32,
    pub generator: GeneratorConfig,
}

/// Enough to overflow any counter of a few bits many times in a millisecond, and a bound on
/// how many events one tick records.
const MAX_RATE_PER_MS: u64 = 10_000;
/// RFC 9562 §6.2: a dedicated counter SHOULD be at least 12 bits, and at most 42.
const MAX_COUNTER_BITS: u64 = 42;

impl UuidV7 {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of UUIDv7 generators client-0..")? as u32;
        let rate_per_ms = k.uint(
            "rate_per_ms",
            1,
            1,
            MAX_RATE_PER_MS,
            "UUID requests each generator receives at every tick of its clock (one tick per ms)",
        )?;
        let counter_bits = k.uint(
            "counter_bits",
            12,
            0,
            MAX_COUNTER_BITS,
            "width of the counter on top of the 74 free bits (RFC 9562 §6.2 Method 1), seeded at random each ms with its top bit clear; 0 = random data only (§5.7)",
        )? as u32;
        let random_bits = k.uint(
            "random_bits",
            u64::from(FREE_BITS - 12),
            0,
            u64::from(FREE_BITS),
            "how many of the bits below the counter are random (the rest are 0); default: all of them (74 - counter_bits)",
        )? as u32;
        let random_bits = if k.has("random_bits") {
            random_bits
        } else {
            FREE_BITS - counter_bits
        };
        if counter_bits + random_bits > FREE_BITS {
            return Err(k.error(
                "random_bits",
                format!(
                    "{random_bits} random bits under a {counter_bits}-bit counter is more than the {FREE_BITS} free bits of a UUIDv7"
                ),
            ));
        }
        let overflow = k.choice(
            "counter_overflow",
            &[
                ("wait", Overflow::Wait),
                ("advance", Overflow::Advance),
                ("wrap", Overflow::Wrap),
            ],
            Overflow::Wait,
            "counter used up in its ms: wait for the next ms, run the timestamp 1 ms ahead of the clock, or (wrong) wrap to 0 in the same ms",
        )?;
        let clock_back = k.choice(
            "clock_back",
            &[
                ("wait", ClockBack::Wait),
                ("keep", ClockBack::Keep),
                ("ignore", ClockBack::Ignore),
            ],
            ClockBack::Keep,
            "clock behind the last UUID's ms: wait until it is back, keep the last timestamp and count on, or (wrong for order) use the clock as it is",
        )?;
        let start_stagger_ns = k.millis(
            "start_stagger_ms",
            10,
            0,
            HOUR_MS,
            "client-i starts at i x this, so stories start in a known order",
        )?;
        Ok(Box::new(UuidV7 {
            clients,
            generator: GeneratorConfig {
                rate_per_ms,
                policy: Policy {
                    counter_bits,
                    random_bits,
                    overflow,
                    clock_back,
                },
                start_stagger_ns,
            },
        }))
    }
}

impl UuidV7 {
    /// The nodes: the generators, and nothing else (a UUIDv7 needs no coordinator).
    fn declare(&self) -> (Layout, Vec<NodeId>) {
        let mut layout = Layout::default();
        let generators = layout.group("client", self.clients, Role::Client, GENERATOR_EVENTS);
        (layout, generators)
    }
}

impl Protocol for UuidV7 {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        let (layout, generators) = self.declare();
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &g) in generators.iter().enumerate() {
            nodes.add(g, Generator::new(self.generator, i as u32));
        }
        run_world(nodes.finish(), setting, seed, recording, OrderedIdJudge::default())
    }
}
