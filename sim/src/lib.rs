//! locksim's engine: a seeded discrete-event simulation of processes with their own drifting
//! clocks, pauses, crashes, partitions and lossy links, recording a history. It knows no
//! protocol and judges nothing by itself: models plug in through [`Node`], and their checkers
//! judge the history in the generic vocabulary of [`check`] ([`Invariant`], [`Verdict`]).

pub mod budget;
pub mod check;
pub mod clock;
mod escape;
pub mod fault;
pub mod history;
pub mod ids;
mod members;
pub mod network;
pub mod node;
pub mod pieces;
mod queue;
pub mod record;
pub mod rng;
pub mod time;
pub mod trace;
pub mod world;

pub use budget::{DEFAULT_MAX_EVENTS, Stop};
pub use check::{Invariant, Status, Verdict, Violation};
pub use clock::{ClockSpec, ClockTrack};
pub use fault::{FaultAction, FaultEntry, FaultPlan, Trigger, Unfired};
pub use history::{Event, History, Level, Stats, What};
pub use ids::{Names, NodeId};
pub use members::{MemberKey, Members};
pub use network::{Latency, NetworkConfig};
pub use node::{Ctx, Effect, Message, Node, Observation, Salience, TimerTag};
pub use record::{Keep, Recorder, RunEnd};
pub use trace::Recording;
pub use world::{Finished, NodeSetup, World, WorldConfig};

/// The engine's version, written into every trace.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");
