//! A trace line written straight from a typed event into one reused buffer: the same bytes as
//! the serde path ([`super::TraceEvent::new`]) without building a [`super::Happening`], its
//! strings or a JSON value per event — a long run's trace costs little more than the run.
//! Keys come in the trace format's order (DESIGN section 6): the stamp, `kind` and the
//! happening's fields (sorted, as the format has always written them), salience, text.

use crate::history::{DropReason, Event, What};
use crate::ids::{Names, NodeId};
use crate::node::{Message, Observation, Salience};

use super::erase::salience;
use super::facts::Facts;
use super::index::LineIndex;
use super::plain::debug_assert_plain;
use super::sent::Sent;
use super::stamp::LastStamp;
use super::text::{any_node, write_group, write_text};
use super::timer::TimerTails;
use crate::escape::{Escaped, escape_tail, push_escaped};
use crate::pieces::push_uint;

/// `,"key":` as one constant (every key this writer writes is plain ASCII): a line's
/// punctuation goes in as few pieces as it can, each piece a capacity check and a copy.
macro_rules! key {
    ($key:literal) => {
        concat!(",\"", $key, "\":")
    };
}

/// `,"key":"`: a key and the opening quote of its string value.
macro_rules! key_quote {
    ($key:literal) => {
        concat!(",\"", $key, "\":\"")
    };
}

/// `,"kind":"kind"` for one of the engine's own events, plain ASCII.
macro_rules! kind {
    ($kind:literal) => {
        concat!(",\"kind\":\"", $kind, "\"")
    };
}

/// `,"salience":"salience","text":"`: a line's salience and the opening of its text.
macro_rules! salience_text {
    ($salience:literal) => {
        concat!(",\"salience\":\"", $salience, "\",\"text\":\"")
    };
}

/// Writes trace lines, reusing its buffer from one line to the next. One writer serves one
/// run's events, in order: a delivery or drop carries the message of the send with its
/// `msg_id` (as the engine's do), whose text it reuses.
#[derive(Default)]
pub struct LineWriter {
    /// The page: the lines written since it was last handed on, each followed by a newline
    /// (what [`super::TraceHash`] hashes), never much over [`super::sink::PAGE`] bytes.
    pub(super) page: String,
    /// Where each line of the page ends: the offset of its newline.
    pub(super) ends: Vec<usize>,
    index: LineIndex,
    sent: Sent,
    facts: Facts,
    stamp: LastStamp,
    timers: TimerTails,
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
        // No sink takes the page: it holds this line alone.
        self.page.clear();
        self.ends.clear();
        let salience = self.append_line(names, index, e);
        (&self.page[..self.page.len() - 1], salience)
    }

    /// Appends [`Self::write`]'s line and its newline to the page and returns the line's
    /// salience; the page is the caller's to hand on and clear ([`LineWriter::pass`], its one
    /// caller per line, inlines this).
    #[inline(always)]
    pub(super) fn append_line<M: Message, O: Observation>(
        &mut self,
        names: &Names,
        index: usize,
        e: &Event<M, O>,
    ) -> Salience {
        self.index.push(&mut self.page, index);
        self.page.push_str(self.stamp.of(names, e));
        // A timer's line past its stamp is kept by tag, copied whole ([`TimerTails`]).
        let tail = self.page.len();
        if let What::Timer { tag } = e.what
            && let Some(known) = self.timers.get(tag)
        {
            self.page.push_str(known);
            return salience(&e.what);
        }
        // A fact that writes its own line past the stamp: debug builds write it this writer's
        // way too, and check the two agree byte for byte.
        if let What::Observe(o) = &e.what
            && let Some(salience) = o.write_line_after_stamp(names, &mut self.page)
        {
            self.page.push_str("\"}\n");
            #[cfg(debug_assertions)]
            {
                let whole = self.page.split_off(tail);
                assert_eq!(self.write_tail(names, e), salience, "{o:?}'s salience");
                assert_eq!(self.page[tail..], whole, "{o:?}'s own line past its stamp");
            }
            return salience;
        }
        let salience = self.write_tail(names, e);
        if let What::Timer { tag } = e.what {
            self.timers.keep(tag, &self.page[tail..]);
        }
        salience
    }

    /// Writes `e`'s line past its stamp — its kind and fields, salience and text, the closing
    /// `"}` and the newline — and returns its salience.
    #[inline(always)]
    fn write_tail<M: Message, O: Observation>(&mut self, names: &Names, e: &Event<M, O>) -> Salience {
        let plain = match &e.what {
            What::Observe(o) => self.facts.plain(names, o),
            _ => false,
        };
        let mut w = Json(&mut self.page);
        let msg = happening(&mut w, names, &mut self.sent, &mut self.facts, plain, &e.what);
        let salience = salience(&e.what);
        match msg {
            // A message's text ends with the message, escaped already for its `msg` field:
            // copied, not formatted twice.
            Some(msg) => message_text(&mut w, names, &e.what, msg),
            None => {
                w.raw(match salience {
                    Salience::Chatter => salience_text!("chatter"),
                    Salience::Routine => salience_text!("routine"),
                    Salience::Salient => salience_text!("salient"),
                });
                let start = w.0.len();
                match &e.what {
                    // `write_text`'s line for an observation, written in place.
                    What::Observe(o) => o.describe_into(names, w.0),
                    what => write_text(w.0, names, what).expect("a String takes any text"),
                }
                if plain {
                    debug_assert_plain(&w.0[start..]);
                } else {
                    escape_tail(w.0, start);
                }
            }
        }
        w.raw("\"}\n");
        salience
    }
}

/// The timeline text of a message event (`write_text`'s, byte for byte), its message `msg`
/// escaped already; its salience (a message event is chatter, [`salience`]) goes in with the
/// text's first words, one piece.
fn message_text<M, O>(w: &mut Json<'_>, names: &Names, what: &What<M, O>, msg: &str) {
    let name = |w: &mut Json<'_>, n: &NodeId| w.raw(names.json(*n));
    match what {
        What::Send { to, .. } => {
            w.raw(concat!(salience_text!("chatter"), "-> "));
            name(w, to);
        }
        What::Deliver { from, .. } => {
            w.raw(concat!(salience_text!("chatter"), "<- "));
            name(w, from);
        }
        What::Drop { from, to, reason, .. } => {
            w.raw(concat!(salience_text!("chatter"), "message "));
            name(w, from);
            w.raw(" -> ");
            name(w, to);
            w.raw(match reason {
                DropReason::Partition => " dropped (Partition)",
                DropReason::Loss => " dropped (Loss)",
                DropReason::Down => " dropped (Down)",
            });
        }
        _ => unreachable!("only message events carry a message"),
    }
    w.raw(": ");
    w.raw(msg);
}

/// The `kind` and the fields of `what`, each preceded by a comma; for a message event, its
/// escaped message, kept in `sent` (a send's for its delivery).
fn happening<'s, M: Message, O: Observation>(
    w: &mut Json<'_>,
    names: &Names,
    sent: &'s mut Sent,
    facts: &mut Facts,
    plain: bool,
    what: &What<M, O>,
) -> Option<&'s str> {
    let name = |n: &NodeId| names.json(*n);
    let mut msg_at = None;
    match what {
        What::Observe(o) => facts.write(w.0, plain, o),
        What::Start => w.raw(kind!("start")),
        // Three events in four: the constants between two values (a string's closing quote,
        // the next key) go in as one piece, a capacity check and a copy each.
        What::Send { to, msg_id, msg } => {
            w.raw(concat!(kind!("send"), key_quote!("msg")));
            let text = sent.text(*msg_id, msg, true);
            w.raw(text);
            w.raw(concat!("\"", key!("msg_id")));
            w.uint(*msg_id);
            w.key_escaped(key_quote!("to"), name(to));
            msg_at = Some(text);
        }
        What::Deliver { from, msg_id, msg } => {
            w.raw(concat!(kind!("deliver"), key_quote!("from")));
            w.raw(name(from));
            w.raw(concat!("\"", key_quote!("msg")));
            let text = sent.text(*msg_id, msg, false);
            w.raw(text);
            w.raw(concat!("\"", key!("msg_id")));
            w.uint(*msg_id);
            msg_at = Some(text);
        }
        What::Drop {
            from,
            to,
            msg_id,
            msg,
            reason,
        } => {
            w.raw(kind!("drop"));
            w.key_escaped(key_quote!("from"), name(from));
            let text = sent.text(*msg_id, msg, false);
            w.key_escaped(key_quote!("msg"), text);
            msg_at = Some(text);
            w.key_uint(key!("msg_id"), *msg_id);
            let reason = match reason {
                DropReason::Partition => "partition",
                DropReason::Loss => "loss",
                DropReason::Down => "down",
            };
            w.key_escaped(key_quote!("reason"), reason);
            w.key_escaped(key_quote!("to"), name(to));
        }
        What::Timer { tag } => {
            w.raw(kind!("timer"));
            w.key_uint(key!("tag"), u64::from(*tag));
        }
        What::Pause { duration_ns, suspend } => {
            w.raw(kind!("pause"));
            w.key_uint(key!("duration_ns"), *duration_ns);
            w.key_bool(key!("suspend"), *suspend);
        }
        What::Resume => w.raw(kind!("resume")),
        What::Crash { restart_after_ns } => {
            w.raw(kind!("crash"));
            w.raw(",\"restart_after_ns\":");
            match restart_after_ns {
                Some(r) => w.uint(*r),
                None => w.raw("null"),
            }
        }
        What::Restart => w.raw(kind!("restart")),
        What::ClockJump { by_ns } => {
            w.raw(kind!("clock_jump"));
            w.raw(",\"by_ns\":");
            w.int(*by_ns);
        }
        What::Partition { fault, groups, one_way } => {
            w.raw(kind!("partition"));
            w.key_uint(key!("fault"), u64::from(*fault));
            w.raw(",\"groups\":[");
            for (i, g) in groups.iter().enumerate() {
                w.raw(if i == 0 { "\"" } else { ",\"" });
                write_group(&mut Escaped(w.0), names, g).expect("a String takes any text");
                w.raw("\"");
            }
            w.raw("]");
            w.key_bool(key!("one_way"), *one_way);
        }
        What::Heal { fault } => {
            w.raw(kind!("heal"));
            w.key_uint(key!("fault"), u64::from(*fault));
        }
        What::Delay {
            fault,
            from,
            to,
            window_ns,
            extra_ns,
        } => {
            w.raw(kind!("delay"));
            w.key_uint(key!("extra_ns"), *extra_ns);
            w.key_uint(key!("fault"), u64::from(*fault));
            w.key_escaped(key_quote!("from"), name(from));
            w.key_escaped(key_quote!("to"), name(to));
            w.key_uint(key!("window_ns"), *window_ns);
        }
        What::Lossy {
            fault,
            from,
            to,
            ppm,
            duplicate,
        } => {
            w.raw(kind!("lossy"));
            w.key_bool(key!("duplicate"), *duplicate);
            w.key_uint(key!("fault"), u64::from(*fault));
            w.key_str(key_quote!("from"), any_node(names, from));
            w.key_uint(key!("ppm"), u64::from(*ppm));
            w.key_str(key_quote!("to"), any_node(names, to));
        }
        What::Failover { primary } => {
            w.raw(kind!("failover"));
            w.key_escaped(key_quote!("primary"), name(primary));
        }
        What::WindowEnd { fault } => {
            w.raw(kind!("window_end"));
            w.key_uint(key!("fault"), u64::from(*fault));
        }
    }
    msg_at
}

/// JSON written into a line by hand.
struct Json<'a>(&'a mut String);

// Inlined: the keys and punctuation are constants, copied without a call each.
impl Json<'_> {
    #[inline(always)]
    fn raw(&mut self, s: &str) {
        self.0.push_str(s);
    }

    #[inline(always)]
    fn uint(&mut self, n: u64) {
        push_uint(self.0, n);
    }

    #[inline(always)]
    fn int(&mut self, n: i64) {
        self.raw(itoa::Buffer::new().format(n));
    }

    /// `key` (from [`key_quote!`]) and a string, escaped.
    #[inline(always)]
    fn key_str(&mut self, key: &str, value: &str) {
        self.raw(key);
        push_escaped(self.0, value);
        self.0.push('"');
    }

    /// `key` (from [`key_quote!`]) and a string escaped already (a node's name from
    /// [`Names::json`]) or plain ASCII.
    #[inline(always)]
    fn key_escaped(&mut self, key: &str, value: &str) {
        self.raw(key);
        self.raw(value);
        self.0.push('"');
    }

    #[inline(always)]
    fn key_uint(&mut self, key: &str, n: u64) {
        self.raw(key);
        self.uint(n);
    }

    #[inline(always)]
    fn key_bool(&mut self, key: &str, b: bool) {
        self.raw(key);
        self.raw(if b { "true" } else { "false" });
    }
}
