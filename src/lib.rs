//! locksim: a deterministic simulation test harness for distributed lock protocols.
//!
//! The umbrella library re-exports the engine ([`sim`]) and the protocol models
//! ([`protocols`]) and adds what the `locksim` binary needs: scenario loading, run reports,
//! timelines, views (lanes, Mermaid) and trace files.

pub use locksim_protocols as protocols;
pub use locksim_sim as sim;

mod atomic_file;
pub mod cli;
pub mod explore;
pub mod list;
pub mod load;
pub mod render;
pub mod report;
pub mod timeline;
pub mod trace_file;
