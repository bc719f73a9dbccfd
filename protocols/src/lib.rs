//! locksim's protocol models. Each model is a set of pure state machines on the engine's
//! [`locksim_sim::Node`] API, with knobs for its known-wrong variants, so a bug and its fix
//! run side by side.

pub mod etcd;
pub mod ids;
pub mod knobs;
pub mod lock;
pub mod lock_client;
pub mod lock_world;
pub mod protocol;
pub mod redis;
pub mod redlock;
pub mod registry;
pub mod resource;
pub mod scenario;
pub mod scheduler;
pub mod session;
pub mod snowflake;

pub use protocol::Protocol;
pub use registry::{Outcome, PROTOCOLS, run};
pub use scenario::{Expected, ProtocolConfig, Role, Scenario};
