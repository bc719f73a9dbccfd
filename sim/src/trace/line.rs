//! A trace line written straight from a typed event into one reused buffer: the same bytes as
//! the serde path ([`super::TraceEvent::new`]) without building a [`super::Happening`], its
//! strings or a JSON value per event — a long run's trace costs little more than the run.
//! Keys come in the trace format's order (DESIGN section 6): the stamp, `kind` and the
//! happening's fields (sorted, as the format has always written them), salience, text.

use std::fmt::{self, Write};

use serde_json::Value;

use crate::history::{DropReason, Event, What};
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation, Salience};

use super::erase::salience;
use super::text::{any_node, write_group, write_text};

/// Writes trace lines, reusing its buffer from one line to the next.
#[derive(Default)]
pub struct LineWriter {
    buf: Vec<u8>,
}

impl LineWriter {
    /// Writes event `index` of a run whose nodes are `names` as its trace line (no newline),
    /// and returns the line and the event's salience.
    pub fn write<M: Message, O: Observation>(
        &mut self,
        names: &Names,
        index: usize,
        e: &Event<M, O>,
    ) -> (&str, Salience) {
        self.buf.clear();
        let mut w = Json(&mut self.buf);
        w.raw("{\"i\":");
        w.uint(index as u64);
        w.raw(",\"t_ns\":");
        w.uint(e.t_ns);
        w.key_str("node", names.of(e.node));
        w.raw(",\"wall_ns\":");
        w.int(e.wall_ns);
        w.raw(",\"mono_ns\":");
        w.uint(e.mono_ns);
        happening(&mut w, names, &e.what);
        let salience = salience(&e.what);
        w.key_str(
            "salience",
            match salience {
                Salience::Chatter => "chatter",
                Salience::Routine => "routine",
                Salience::Salient => "salient",
            },
        );
        w.raw(",\"text\":\"");
        write_text(&mut Escaped(w.0), names, &e.what).expect("a Vec takes any text");
        w.raw("\"}");
        let line = std::str::from_utf8(&self.buf).expect("a trace line is UTF-8: written from `str`s");
        (line, salience)
    }
}

/// The `kind` and the fields of `what`, each preceded by a comma.
fn happening<M: Message, O: Observation>(w: &mut Json<'_>, names: &Names, what: &What<M, O>) {
    let name = |n: &NodeId| names.of(*n);
    match what {
        What::Observe(o) => observation(w, o),
        What::Start => w.kind("start"),
        What::Send { to, msg_id, msg } => {
            w.kind("send");
            w.key_display("msg", msg);
            w.key_uint("msg_id", *msg_id);
            w.key_str("to", name(to));
        }
        What::Deliver { from, msg_id, msg } => {
            w.kind("deliver");
            w.key_str("from", name(from));
            w.key_display("msg", msg);
            w.key_uint("msg_id", *msg_id);
        }
        What::Drop {
            from,
            to,
            msg_id,
            msg,
            reason,
        } => {
            w.kind("drop");
            w.key_str("from", name(from));
            w.key_display("msg", msg);
            w.key_uint("msg_id", *msg_id);
            let reason = match reason {
                DropReason::Partition => "partition",
                DropReason::Loss => "loss",
                DropReason::Down => "down",
            };
            w.key_str("reason", reason);
            w.key_str("to", name(to));
        }
        What::Timer { tag } => {
            w.kind("timer");
            w.key_uint("tag", u64::from(*tag));
        }
        What::Pause { duration_ns, suspend } => {
            w.kind("pause");
            w.key_uint("duration_ns", *duration_ns);
            w.key_bool("suspend", *suspend);
        }
        What::Resume => w.kind("resume"),
        What::Crash { restart_after_ns } => {
            w.kind("crash");
            w.raw(",\"restart_after_ns\":");
            match restart_after_ns {
                Some(r) => w.uint(*r),
                None => w.raw("null"),
            }
        }
        What::Restart => w.kind("restart"),
        What::ClockJump { by_ns } => {
            w.kind("clock_jump");
            w.raw(",\"by_ns\":");
            w.int(*by_ns);
        }
        What::Partition { fault, groups, one_way } => {
            w.kind("partition");
            w.key_uint("fault", u64::from(*fault));
            w.raw(",\"groups\":[");
            for (i, g) in groups.iter().enumerate() {
                w.raw(if i == 0 { "\"" } else { ",\"" });
                write_group(&mut Escaped(w.0), names, g).expect("a Vec takes any text");
                w.raw("\"");
            }
            w.raw("]");
            w.key_bool("one_way", *one_way);
        }
        What::Heal { fault } => {
            w.kind("heal");
            w.key_uint("fault", u64::from(*fault));
        }
        What::Delay {
            fault,
            from,
            to,
            window_ns,
            extra_ns,
        } => {
            w.kind("delay");
            w.key_uint("extra_ns", *extra_ns);
            w.key_uint("fault", u64::from(*fault));
            w.key_str("from", name(from));
            w.key_str("to", name(to));
            w.key_uint("window_ns", *window_ns);
        }
        What::Lossy {
            fault,
            from,
            to,
            ppm,
            duplicate,
        } => {
            w.kind("lossy");
            w.key_bool("duplicate", *duplicate);
            w.key_uint("fault", u64::from(*fault));
            w.key_str("from", any_node(names, from));
            w.key_uint("ppm", u64::from(*ppm));
            w.key_str("to", any_node(names, to));
        }
        What::Failover { primary } => {
            w.kind("failover");
            w.key_str("primary", name(primary));
        }
        What::WindowEnd { fault } => {
            w.kind("window_end");
            w.key_uint("fault", u64::from(*fault));
        }
    }
}

/// An observation: its event name as `kind`, then its fields in key order (they go through a
/// JSON map, which sorts them, as [`super::Observed`] does).
fn observation<O: Observation>(w: &mut Json<'_>, o: &O) {
    w.kind(o.kind());
    let Value::Object(fields) = serde_json::to_value(o).expect("observations serialize") else {
        panic!("an observation must serialize to a JSON object");
    };
    for (key, value) in &fields {
        w.raw(",");
        serde_json::to_writer(&mut *w.0, key).expect("a Vec takes any JSON");
        w.raw(":");
        serde_json::to_writer(&mut *w.0, value).expect("a Vec takes any JSON");
    }
}

/// JSON written into a byte buffer by hand.
struct Json<'a>(&'a mut Vec<u8>);

impl Json<'_> {
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn uint(&mut self, n: u64) {
        self.raw(itoa::Buffer::new().format(n));
    }

    fn int(&mut self, n: i64) {
        self.raw(itoa::Buffer::new().format(n));
    }

    /// `,"key":` — every key this writer writes is plain ASCII, no escape needed.
    fn key(&mut self, key: &str) {
        self.raw(",\"");
        self.raw(key);
        self.raw("\":");
    }

    fn kind(&mut self, kind: &str) {
        self.key_str("kind", kind);
    }

    fn key_str(&mut self, key: &str, value: &str) {
        self.key(key);
        self.raw("\"");
        Escaped(self.0).write_str(value).expect("a Vec takes any text");
        self.raw("\"");
    }

    fn key_display(&mut self, key: &str, value: &impl fmt::Display) {
        self.key(key);
        self.raw("\"");
        write!(Escaped(self.0), "{value}").expect("a Vec takes any text");
        self.raw("\"");
    }

    fn key_uint(&mut self, key: &str, n: u64) {
        self.key(key);
        self.uint(n);
    }

    fn key_bool(&mut self, key: &str, b: bool) {
        self.key(key);
        self.raw(if b { "true" } else { "false" });
    }
}

/// The inside of a JSON string: text escaped exactly as `serde_json` escapes it (`"`, `\`,
/// the short escapes `\b \f \n \r \t`, other control characters as `\u00xx`), so a line
/// written here is byte for byte the line serde wrote.
struct Escaped<'a>(&'a mut Vec<u8>);

impl Write for Escaped<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let bytes = s.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let escape: &[u8] = match b {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0..0x20 => {
                    self.0.extend_from_slice(&bytes[start..i]);
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    self.0.extend_from_slice(&[
                        b'\\',
                        b'u',
                        b'0',
                        b'0',
                        HEX[usize::from(b >> 4)],
                        HEX[usize::from(b & 15)],
                    ]);
                    start = i + 1;
                    continue;
                }
                _ => continue,
            };
            self.0.extend_from_slice(&bytes[start..i]);
            self.0.extend_from_slice(escape);
            start = i + 1;
        }
        self.0.extend_from_slice(&bytes[start..]);
        Ok(())
    }
}
