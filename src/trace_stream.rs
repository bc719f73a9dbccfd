//! A trace file read as a stream: the top-level keys of its JSON document in whatever order
//! they come, and the elements of its `events` array handed one at a time to a callback, so a
//! trace of any length is read holding one event at a time. Any valid JSON layout is read
//! (pretty-printed, one line, the result before or after the events), through serde_json's
//! own parser: a syntax error is reported exactly as for a document read whole.

use std::fmt;
use std::io::BufReader;
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// What is done with one event: its index in `events` and its value; an error stops the
/// reading and is reported as it is.
pub(crate) type OnEvent<'a> = &'a mut dyn FnMut(usize, Value) -> Result<(), String>;

/// Why a trace could not be read.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Not a regular file, or unreadable.
    Open(String),
    /// Not JSON (serde_json's error: its line and column).
    Json(serde_json::Error),
    /// JSON, but a key or an event is wrong: the message names it (`key `events[3]`: ...`).
    Content(String),
}

/// The top-level keys of a trace besides `events`, as read by [`header`].
pub(crate) struct Top {
    /// The values of the keys in `wanted` that the document has (the last one of a key
    /// written twice, as a whole-document reader would keep).
    pub values: Vec<(&'static str, Value)>,
    /// How many events `events` holds; `None` when the document has no `events`.
    pub events: Option<usize>,
}

/// Reads every key of the trace at `path` but the elements of `events`, which are only
/// counted: the values of the keys in `wanted`, each other key parsed and dropped.
pub(crate) fn header(path: &Path, wanted: &[&'static str]) -> Result<Top, ReadError> {
    let mut top = Top {
        values: Vec::new(),
        events: None,
    };
    let mut doc = Doc {
        wanted,
        top: &mut top,
        on_event: None,
        failure: None,
    };
    scan(path, &mut doc)?;
    Ok(top)
}

/// Hands each element of the trace's `events` to `on_event`, in order; every other key is
/// parsed and dropped.
pub(crate) fn each_event(path: &Path, on_event: OnEvent<'_>) -> Result<(), ReadError> {
    let mut top = Top {
        values: Vec::new(),
        events: None,
    };
    let mut doc = Doc {
        wanted: &[],
        top: &mut top,
        on_event: Some(on_event),
        failure: None,
    };
    scan(path, &mut doc)
}

fn scan(path: &Path, doc: &mut Doc<'_, '_>) -> Result<(), ReadError> {
    let file = crate::input_file::open_regular(path).map_err(ReadError::Open)?;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 16, file));
    let parsed = (&mut de).deserialize_any(&mut *doc).and_then(|()| de.end());
    match (parsed, doc.failure.take()) {
        (_, Some(message)) => Err(ReadError::Content(message)),
        (Err(e), None) => Err(ReadError::Json(e)),
        (Ok(()), None) => Ok(()),
    }
}

/// The visitor of the whole document. A failure of ours is kept in `failure` (serde's error
/// would append a position to it) and the parse is stopped with an empty error.
struct Doc<'w, 'e> {
    wanted: &'w [&'static str],
    top: &'w mut Top,
    on_event: Option<OnEvent<'e>>,
    failure: Option<String>,
}

impl<'de> Visitor<'de> for &mut Doc<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a trace (a JSON object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == "events" {
                if self.top.events.is_some() {
                    self.failure = Some("key `events`: appears twice in the trace".into());
                    return Err(de::Error::custom(""));
                }
                let mut events = Events { doc: &mut *self };
                map.next_value_seed(&mut events)?;
            } else if let Some(wanted) = self.wanted.iter().find(|w| **w == key) {
                let value: Value = map.next_value()?;
                self.top.values.retain(|(k, _)| k != wanted);
                self.top.values.push((wanted, value));
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The visitor of `events`: an array, each element counted and handed on.
struct Events<'d, 'w, 'e> {
    doc: &'d mut Doc<'w, 'e>,
}

impl Events<'_, '_, '_> {
    fn not_an_array<E: de::Error>(&mut self) -> E {
        self.doc.failure = Some("key `events`: must be an array".into());
        E::custom("")
    }
}

impl<'de> DeserializeSeed<'de> for &mut Events<'_, '_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Events<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut count = 0;
        match self.doc.on_event.as_mut() {
            None => {
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    count += 1;
                }
            }
            Some(on_event) => {
                while let Some(event) = seq.next_element::<Value>()? {
                    if let Err(e) = on_event(count, event) {
                        self.doc.failure = Some(e);
                        return Err(de::Error::custom(""));
                    }
                    count += 1;
                }
            }
        }
        self.doc.top.events = Some(count);
        Ok(())
    }

    // Anything but an array is refused with the message a whole-document reader gave.
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.not_an_array())
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.not_an_array())
    }
}
