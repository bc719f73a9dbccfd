//! When a lock holder's hold ends by its own clock, or that it tracks no end: one type, so no
//! reader has to know which number stands for "no deadline".

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Until when a client holds the lock it acquired, on its own monotonic clock. A client that
/// tracks no deadline holds until it releases or learns the lock is lost. Serialized as the
/// clock reading, and "untracked" as `u64::MAX` (the trace format's number for it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Deadline {
    Mono(u64),
    Untracked,
}

impl Deadline {
    /// The monotonic clock reading it ends at, if it ends.
    pub fn mono_ns(self) -> Option<u64> {
        match self {
            Deadline::Mono(ns) => Some(ns),
            Deadline::Untracked => None,
        }
    }
}

impl Serialize for Deadline {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.mono_ns().unwrap_or(u64::MAX))
    }
}

impl<'de> Deserialize<'de> for Deadline {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match u64::deserialize(deserializer)? {
            u64::MAX => Deadline::Untracked,
            ns => Deadline::Mono(ns),
        })
    }
}
