//! locksim: a deterministic simulation test harness for distributed lock protocols.
//!
//! The umbrella library re-exports the engine ([`sim`]) and the protocol models
//! ([`protocols`]) and adds what the `locksim` binary needs: scenario loading, run reports,
//! timelines, views (lanes, Mermaid) and trace files — and, for a user's own property tests,
//! proptest strategies for fault plans ([`plans`]) and a run-and-judge entry point ([`check`]).

pub use locksim_protocols as protocols;
pub use locksim_sim as sim;
/// The proptest this library's strategies are built with, so a user's tests use the same one.
pub use proptest;

// The library API for a user's own property tests (README: "Using locksim from your own
// tests"): plan strategies, the shape and fault space they draw from, and the run-and-judge
// entry point.
pub use explore::{Plan, PlanShape, ShapeNode, check, plans, violation};
pub use fault_space::{FaultKind, FaultSpace, KindLimits};
pub use locksim_protocols::{Role, Scenario};
pub use locksim_sim::{Invariant, Status, Stop, Verdict, Violation};

mod atomic_file;
pub mod cli;
pub mod explore;
pub mod fault_space;
mod input_file;
pub mod list;
pub mod load;
pub mod merge;
pub mod render;
pub mod report;
pub mod run_result;
pub mod run_stop;
mod temp_file;
pub mod timeline;
pub mod trace_file;
pub mod trace_replay;
mod trace_stream;
pub mod trace_view;
pub mod trace_write;
