//! locksim's async front-end (issue 13): a user's own async lock client runs on madsim nodes,
//! against locksim's own single-Redis server and fenced resource (the native models, hosted
//! unchanged), under the scenario's per-node clocks and fault plan; every event goes through
//! the native engine's judge ([`locksim_protocols::lock::LockJudge`]) and trace line writer,
//! so the verdicts are the native checkers' and the trace is the native format
//! (`locksim render` reads it).
//!
//! The user's code reads its time through [`locksim_clock::Clock`] and reports its facts
//! through [`locksim_clock::Report`]: code that reads `std::time` or `tokio::time` directly
//! sees madsim's one true clock, the same on every node — no offset, drift, jump or suspend.
//!
//! Everything here is built with `RUSTFLAGS="--cfg madsim"` only (and in a target directory
//! of its own: the flag changes every crate of the build).
#![cfg(madsim)]

pub mod clock;
pub mod explore;
mod gate;
pub mod host;
pub mod hunt;
pub mod refuse;
pub mod report;
pub mod resp;
pub mod run;
pub mod world;

pub use clock::SimClock;
pub use explore::{SharedSink, Summary, explore, run_traced, seed_from_env};
pub use report::SimReport;
pub use run::{ClientEnv, ClientFn, Run, run};
