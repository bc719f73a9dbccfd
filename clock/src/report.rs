//! The facts a lock client reports: what only the client knows. Everything else — what the
//! servers did, the resource, the faults, every clock — the harness records by itself.
//!
//! Each call is an `async fn` because it is a point where a scenario's fault can strike
//! (`after = "read_done"`): under the harness a pause that fires there holds the rest of the
//! client's step until it ends, as the native engine holds the rest of a node's step.

use std::future::Future;

/// The recording calls. Leases are the lock value the client stored (the random string it
/// SET), so the harness can match the client's facts with the server's key.
pub trait Report: Clone + Send + Sync + 'static {
    /// The client now holds the lock: `validity_ns` is what it counts on from now, on its
    /// monotonic clock (its deadline is now + validity); `token` the fencing token, if any.
    fn acquired(&self, lease: &str, token: Option<u64>, validity_ns: i64) -> impl Future<Output = ()> + Send;
    /// The counter read from the resource.
    fn read_done(&self, value: u64) -> impl Future<Output = ()> + Send;
    /// The client checked its deadline: `remaining_ns` left, `ok` whether it goes on.
    fn deadline_checked(&self, remaining_ns: i64, ok: bool) -> impl Future<Output = ()> + Send;
    /// A write to the resource is about to be sent.
    fn write_sent(&self, token: Option<u64>, value: u64) -> impl Future<Output = ()> + Send;
    /// The client stops holding: call it *before* sending the release, since the lock may be
    /// someone else's as soon as the release lands.
    fn releasing(&self, lease: &str) -> impl Future<Output = ()> + Send;
    /// The client learned it lost the lock (a deadline passed, a renewal failed).
    fn lost(&self, why: &'static str) -> impl Future<Output = ()> + Send;
    /// A renewal succeeded; the lease now ends at `deadline_mono_ns` on the monotonic clock.
    fn renewed(&self, deadline_mono_ns: u64) -> impl Future<Output = ()> + Send;
}

/// Production: records nothing, costs nothing.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoReport;

impl Report for NoReport {
    async fn acquired(&self, _lease: &str, _token: Option<u64>, _validity_ns: i64) {}
    async fn read_done(&self, _value: u64) {}
    async fn deadline_checked(&self, _remaining_ns: i64, _ok: bool) {}
    async fn write_sent(&self, _token: Option<u64>, _value: u64) {}
    async fn releasing(&self, _lease: &str) {}
    async fn lost(&self, _why: &'static str) {}
    async fn renewed(&self, _deadline_mono_ns: u64) {}
}
