//! What a trace event is, typed: the engine's own events with the fields their trace line
//! carries (node names as strings, so a trace read back from a file gives the same values), or
//! a model's observation as its event name and fields. Renderers match on this, so a view never
//! depends on how a line spells its keys.

use serde::de::Error as _;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::history::DropReason;
use crate::node::Observation;

/// One event of a trace. Serialized as the line's `kind` and its fields; each variant lists its
/// fields in alphabetical order because the trace format has always written them sorted (they
/// went through a JSON map), and the trace hashes pin every byte.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Happening {
    /// The node's process starts (at time 0, or after a crash).
    Start,
    Send {
        msg: String,
        msg_id: u64,
        to: String,
    },
    Deliver {
        from: String,
        msg: String,
        msg_id: u64,
    },
    Drop {
        from: String,
        msg: String,
        msg_id: u64,
        reason: DropReason,
        to: String,
    },
    Timer {
        tag: u32,
    },
    /// A stop-the-world pause, or a VM suspend (its monotonic clock stops too).
    Pause {
        duration_ns: u64,
        suspend: bool,
    },
    Resume,
    Crash {
        restart_after_ns: Option<u64>,
    },
    Restart,
    ClockJump {
        by_ns: i64,
    },
    /// Links cut between the groups (each written `{a, b}`), or only from the first group to
    /// the others when `one_way`.
    Partition {
        fault: u32,
        groups: Vec<String>,
        one_way: bool,
    },
    Heal {
        fault: u32,
    },
    /// Messages from `from` to `to` sent in the next `window_ns` are delayed `extra_ns` more.
    Delay {
        extra_ns: u64,
        fault: u32,
        from: String,
        to: String,
        window_ns: u64,
    },
    /// Messages on matching links (`*`: any node) are lost, or duplicated, with probability
    /// `ppm` / 10^6.
    Lossy {
        duplicate: bool,
        fault: u32,
        from: String,
        ppm: u32,
        to: String,
    },
    /// The operator's failover tool replaced `primary`.
    Failover {
        primary: String,
    },
    /// A delay or loss window closed.
    WindowEnd {
        fault: u32,
    },
    /// Anything else is a model's observation.
    #[serde(untagged)]
    Observe(Observed),
}

/// A model's observation, erased: its event name (what a fault's `after` names, the line's
/// `kind`) and the fields it serializes to. A renderer that knows the model's vocabulary
/// decodes the fields back into it (its observation type derives `Deserialize` for that).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    pub event: String,
    pub fields: Map<String, Value>,
}

impl Observed {
    /// `o`, erased.
    pub fn of<O: Observation>(o: &O) -> Self {
        let fields = match serde_json::to_value(o).expect("observations serialize") {
            Value::Object(fields) => fields,
            other => panic!("an observation must serialize to a JSON object, not {other}"),
        };
        Observed {
            event: o.kind().to_string(),
            fields,
        }
    }

    /// The fields decoded as `T` (a model's observation type), if they are one.
    pub fn decode<T: for<'de> Deserialize<'de>>(&self) -> Option<T> {
        T::deserialize(&Value::Object(self.fields.clone())).ok()
    }
}

impl Serialize for Observed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len() + 1))?;
        map.serialize_entry("kind", &self.event)?;
        for (key, value) in &self.fields {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Observed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut fields = Map::deserialize(deserializer)?;
        let event = match fields.remove("kind") {
            Some(Value::String(event)) => event,
            _ => return Err(D::Error::custom("an event needs a string `kind`")),
        };
        Ok(Observed { event, fields })
    }
}
