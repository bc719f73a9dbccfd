//! locksim's protocol models. Each model is a set of pure state machines on the engine's
//! [`locksim_sim::Node`] API, with knobs for its known-wrong variants, so a bug and its fix
//! run side by side.

pub mod election;
pub mod etcd;
#[cfg(test)]
mod hand_written;
pub mod ids;
pub mod judge;
pub mod knobs;
pub mod layout;
pub mod lock;
pub mod outcome;
pub mod postgres_lease;
pub mod protocol;
pub mod raft_vote;
pub mod redis;
pub mod redlock;
pub mod refund;
pub mod registry;
pub mod runner;
pub mod scenario;
pub mod scheduler;
pub mod segment_ids;
pub mod session;
pub mod setting;
pub mod snowflake;
pub mod uuidv7;
pub mod zookeeper;

pub use judge::Judge;
pub use layout::{Layout, NodeDecl, Role};
pub use outcome::Outcome;
pub use protocol::{Protocol, ProtocolSpec};
pub use registry::{PROTOCOLS, Registry};
pub use runner::{run, run_world};
pub use scenario::{Expected, Model, Scenario};
pub use setting::Setting;
