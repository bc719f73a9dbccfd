//! What a lock client is written against so that locksim can test it: a [`Clock`] (wall and
//! monotonic readings, and a sleep on that clock) and a [`Report`] (the few facts only the
//! client knows). Production code uses [`SystemClock`] and [`NoReport`]; under locksim's
//! madsim front-end each node gets a clock that follows its scenario's `[[clock]]` (offset,
//! drift, jumps, suspend) and a report that feeds locksim's checkers.
//!
//! Why an interface at all: madsim has one clock for every node, so code that reads
//! `std::time` or `tokio::time` directly sees true time, never a node's drift, jump or
//! suspension. Only readings and sleeps taken through a [`Clock`] are per node.
//!
//! No dependency: a library author can depend on this crate from production code.

mod os;
mod report;

use std::future::Future;
use std::time::Duration;

pub use os::SystemClock;
pub use report::{NoReport, Report};

/// A process's clocks, as a lock client reads them.
pub trait Clock: Clone + Send + Sync + 'static {
    /// Wall-clock time (`gettimeofday`), nanoseconds since the Unix epoch: what Redis's key
    /// expiry and a client's `Date.now()` read. It can jump, forwards or back.
    fn wall_ns(&self) -> i64;

    /// The monotonic clock (`CLOCK_MONOTONIC`), nanoseconds from an arbitrary origin: never
    /// steps, and stands still while the machine is suspended.
    fn mono_ns(&self) -> u64;

    /// Sleeps until this clock's monotonic reading has advanced by `d`: on a node whose clock
    /// runs fast the sleep is shorter in true time, and a suspension lengthens it.
    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send;
}

/// Nanoseconds in a [`Duration`], saturating (a lock's times are far below 584 years).
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
