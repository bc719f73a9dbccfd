//! What every lock protocol shares: the facts its clients, servers and protected resource
//! record ([`obs`]) and the checkers that judge them ([`check`]). Single Redis, Redlock, the
//! etcd-style lease and a user's own lock all record [`LockObs`], so one set of checkers
//! judges them all, and a new lock protocol gets them by implementing [`AsLock`].

pub mod check;
mod deadline;
pub mod obs;

pub use check::{LockSetup, check_lock};
pub use obs::LockObs;

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
