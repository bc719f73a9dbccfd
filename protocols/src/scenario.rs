//! A scenario, validated and resolved: what `World::new` needs plus the expected verdicts.
//! Built from a TOML file by the CLI's loader, or directly in Rust by a user's test.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use locksim_sim::{ClockSpec, FaultPlan, Invariant, Names, NetworkConfig, NodeId};

use crate::lock::resource::ResourceConfig;
use crate::protocol::Protocol;
use crate::setting::Setting;

/// What a scenario expects of an invariant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    Held,
    Violated,
    NotApplicable,
}

impl Expected {
    pub fn word(self) -> &'static str {
        match self {
            Expected::Held => "held",
            Expected::Violated => "violated",
            Expected::NotApplicable => "not_applicable",
        }
    }
}

/// A model with its knobs, shared: a scenario is cloned for every explored seed, the model
/// never changes. Comparable (same model type, equal knobs) so scenarios are.
#[derive(Clone)]
pub struct Model(Arc<dyn Protocol>);

impl Model {
    pub fn new(protocol: Box<dyn Protocol>) -> Self {
        Model(Arc::from(protocol))
    }

    /// The model's own configuration, when it is a `T` (for tests that read a model's knobs).
    pub fn downcast_ref<T: Protocol>(&self) -> Option<&T> {
        (*self.0).as_any().downcast_ref::<T>()
    }
}

impl Deref for Model {
    type Target = dyn Protocol;

    fn deref(&self) -> &dyn Protocol {
        &*self.0
    }
}

impl PartialEq for Model {
    fn eq(&self, other: &Model) -> bool {
        (*self.0).dyn_eq((*other.0).as_any())
    }
}

/// Every model's knobs are plain values: equality is reflexive.
impl Eq for Model {}

impl fmt::Debug for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A runnable scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scenario {
    pub name: String,
    pub description: String,
    /// The seed used when none is given on the command line.
    pub seed: u64,
    pub duration_ns: u64,
    pub protocol: Model,
    pub resource: ResourceConfig,
    pub network: NetworkConfig,
    pub clocks: Vec<(NodeId, ClockSpec)>,
    pub faults: FaultPlan,
    /// Expected verdicts, in invariant order.
    pub expect: Vec<(Invariant, Expected)>,
    /// The catalogue scenarios this one is paired with: the same story without its protection,
    /// expecting `violated` where this one expects `held` (tests/twins.rs checks the pairing).
    pub twins: Vec<String>,
    /// The most events a run may handle: not written in the file (a scenario says what
    /// happens, not how much a host may spend on it); `locksim::load` sets the engine's default
    /// and `--max-events` raises it.
    pub max_events: u64,
}

impl Scenario {
    /// Its nodes' names, in node order (what a fault plan's node ids refer to).
    pub fn names(&self) -> Names {
        self.protocol.layout().names()
    }

    /// What its model runs in: everything but the model and the expectations.
    pub fn setting(&self) -> Setting<'_> {
        Setting {
            duration_ns: self.duration_ns,
            network: &self.network,
            clocks: &self.clocks,
            faults: &self.faults,
            resource: self.resource,
            max_events: self.max_events,
        }
    }

    /// The clock spec of `node` (default: exact, offset 0).
    pub fn clock_of(&self, node: NodeId) -> ClockSpec {
        self.setting().clock_of(node)
    }
}
