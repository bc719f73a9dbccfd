//! What every lock protocol shares: the facts its clients, servers and protected resource
//! record ([`obs`]), the checkers that judge them ([`check`]), the fenced resource every lock
//! world protects ([`resource`]) and the knobs every lock client reads ([`knobs`]). Single
//! Redis, Redlock, the etcd-style lease and a user's own lock all record [`LockObs`], so one
//! set of checkers judges them all, and a new lock protocol gets them by implementing
//! [`AsLock`].

pub mod check;
mod deadline;
pub mod knobs;
pub mod obs;
pub mod resource;

pub use check::{LockJudge, LockSetup};
pub use obs::LockObs;

/// The layout group of a lock service's servers (`server-0`, `server-1`, ...): bit i of a
/// grant set (`LockObs::Acquired::servers`, `LockObs::AcquireReplies`) is its i-th member. A
/// lock model declares its lock servers as this group; other servers (a replica, a token
/// counter) grant no lock and stay outside it.
pub const SERVER_GROUP: &str = "server";

/// An observation that may be a lock fact: how the lock checkers find the facts they judge in
/// a model's own observation type (which may record other things besides).
pub trait AsLock {
    /// The lock fact this is, if any.
    fn as_lock(&self) -> Option<&LockObs>;
}

impl AsLock for LockObs {
    fn as_lock(&self) -> Option<&LockObs> {
        Some(self)
    }
}
