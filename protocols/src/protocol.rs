//! The open description of a protocol model. A model is a folder that exports one
//! [`ProtocolSpec`] (its kind, written once, its knob parser, what it judges and which knobs
//! are its protections) and a configuration type implementing [`Protocol`] (its nodes, its
//! faults' targets, and how to run and judge a scenario). Nothing outside the model's folder
//! names its type: the registry lists its spec, and everything else goes through the trait.
//!
//! A model runs in a [`Setting`] (duration, network, clocks, faults, resource), not a whole
//! [`Scenario`](crate::Scenario): the scenario holds the model, and [`crate::runner::run`]
//! joins the two. A model's `run` builds its nodes from its [`Layout`] and hands them to
//! [`crate::runner::run_world`] with its checker.

use std::any::Any;
use std::fmt;

use locksim_sim::{Invariant, Recording};

use crate::knobs::{KnobError, Knobs};
use crate::layout::Layout;
use crate::outcome::Outcome;
use crate::setting::Setting;

/// What the registry, the loader and `locksim list` know of a model before parsing a scenario.
pub struct ProtocolSpec {
    /// `kind` in `[protocol]`.
    pub kind: &'static str,
    /// One paragraph for `locksim list`.
    pub summary: &'static str,
    /// Reads the `[protocol]` knobs into the model's configuration.
    pub parse: fn(&mut Knobs) -> Result<Box<dyn Protocol>, KnobError>,
    /// The invariants every run of the model returns a verdict on, in verdict order: what
    /// `[expect]` and `explore --invariant` may name for this kind.
    pub invariants: &'static [Invariant],
    /// The scenario keys (`protocol.<knob>`, `resource.<knob>`) that switch one of the model's
    /// protections on or off: the only settings in which a catalogue twin may differ.
    pub protections: &'static [&'static str],
}

/// Equality across trait objects: two models are equal when they are the same type with equal
/// knobs. Blanket-implemented, so a model only derives `PartialEq`.
pub trait DynEq: Any {
    /// The model as `Any`, to compare or downcast.
    fn as_any(&self) -> &dyn Any;
    /// Whether `other` is a `Self` equal to this one.
    fn dyn_eq(&self, other: &dyn Any) -> bool;
}

impl<T: PartialEq + Any> DynEq for T {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn dyn_eq(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<T>().is_some_and(|other| self == other)
    }
}

/// A model with its knobs parsed: everything the loader, the explorer and the runner ask of it.
pub trait Protocol: DynEq + fmt::Debug + Send + Sync + 'static {
    /// The description the model was parsed by.
    fn spec(&self) -> &'static ProtocolSpec;
    /// `kind` in `[protocol]`.
    fn kind(&self) -> &'static str {
        self.spec().kind
    }
    /// The world's nodes in `NodeId` order: names, roles and the events each records.
    fn layout(&self) -> Layout;
    /// The nodes a `failover` fault may name: primaries that have a replica.
    fn failover_targets(&self) -> Vec<String> {
        Vec::new()
    }
    /// Whether the scenario may configure a fenced resource (`[resource]`).
    fn has_resource(&self) -> bool {
        false
    }
    /// Whether the protocol's own store can hold the protected counter (`kind = "etcd-txn"`).
    fn has_store_resource(&self) -> bool {
        false
    }
    /// Whether the lock service hands out fencing tokens a resource could check.
    fn issues_tokens(&self) -> bool {
        false
    }
    /// Runs the model in `setting` with `seed` and judges it: one verdict per
    /// `spec().invariants`, in that order. (The setting, not the scenario: a scenario holds
    /// its model, see [`crate::setting`].)
    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome;
}
