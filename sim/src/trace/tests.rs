//! The trace line format, pinned for one event of each kind (the catalogue pins cover only
//! the kinds its scenarios produce), and every line read back to the event it was written from.

use serde::Serialize;

use super::*;
use crate::history::{DropReason, Event, History, Stats, What};
use crate::ids::{Names, NodeId};
use crate::node::Observation;

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum Obs {
    Noted {
        zeta: u64,
        alpha: Option<String>,
    },
    /// Nested objects: their keys are sorted too.
    Checked {
        within: Within,
        a: Vec<Within>,
    },
    /// Written by hand: [`Observation::write_members`].
    ByHand {
        zeta: u64,
        alpha: Option<&'static str>,
        within: Within,
        flag: bool,
        none: Option<u64>,
        some: Option<u64>,
    },
    /// Not a struct: a map, whose keys are sorted the general way.
    Mapped(std::collections::BTreeMap<&'static str, Within>),
}

#[derive(Clone, Debug, Serialize)]
struct Within {
    zz: i64,
    at: &'static str,
}

impl Observation for Obs {
    fn kind(&self) -> &'static str {
        match self {
            Obs::Noted { .. } => "noted",
            Obs::ByHand { .. } => "by_hand",
            Obs::Checked { .. } => "checked",
            Obs::Mapped(_) => "mapped",
        }
    }

    fn describe(&self, names: &Names) -> String {
        match self {
            Obs::ByHand { .. } => format!("noted by {}", names.of(A)),
            _ => "noted it".into(),
        }
    }

    /// `ByHand`'s text names a node and says it is plain: copied unscanned when the names are
    /// plain, escaped when they are not ([`the_line_writer_escapes_as_serde_does`]).
    fn plain_text(&self) -> bool {
        matches!(self, Obs::ByHand { .. })
    }

    /// `ByHand` writes its members itself (the rest go through serde): the same bytes.
    fn write_members(&self, m: &mut crate::Members<'_>) -> bool {
        let Obs::ByHand {
            zeta,
            alpha,
            within,
            flag,
            none,
            some,
        } = self
        else {
            return false;
        };
        match alpha {
            Some(alpha) => m.str("alpha", alpha),
            None => m.null("alpha"),
        }
        m.kind("event");
        m.bool("flag", *flag);
        m.opt_uint("none", *none);
        m.opt_uint("some", *some);
        m.object("within", |m| {
            m.str("at", within.at);
            m.int("zz", within.zz);
        });
        m.uint("zeta", *zeta);
        true
    }
}

const A: NodeId = NodeId(0);
const B: NodeId = NodeId(1);

fn history() -> History<&'static str, Obs> {
    let whats = vec![
        What::Start,
        What::Send {
            to: B,
            msg_id: 1,
            msg: "hi \"there\"",
        },
        What::Deliver {
            from: A,
            msg_id: 1,
            msg: "hi \"there\"",
        },
        What::Drop {
            from: A,
            to: B,
            msg_id: 2,
            msg: "lost",
            reason: DropReason::Down,
        },
        What::Timer { tag: 3 },
        What::Pause {
            duration_ns: 5,
            suspend: true,
        },
        What::Resume,
        What::Crash { restart_after_ns: None },
        What::Restart,
        What::ClockJump { by_ns: -7 },
        What::Partition {
            fault: 0,
            groups: vec![vec![A], vec![B]],
            one_way: true,
        },
        What::Heal { fault: 0 },
        What::Delay {
            fault: 1,
            from: A,
            to: B,
            window_ns: 8,
            extra_ns: 9,
        },
        What::Lossy {
            fault: 2,
            from: None,
            to: Some(B),
            ppm: 10,
            duplicate: true,
        },
        What::WindowEnd { fault: 2 },
        What::Failover { primary: B },
        What::Observe(Obs::Noted {
            zeta: u64::MAX,
            alpha: None,
        }),
        What::Observe(Obs::Checked {
            within: Within { zz: -1, at: "\"q\"" },
            a: vec![Within { zz: 2, at: "" }],
        }),
        What::Observe(Obs::ByHand {
            zeta: 0,
            alpha: None,
            within: Within { zz: i64::MIN, at: "" },
            flag: false,
            none: None,
            some: Some(u64::MAX),
        }),
        What::Observe(Obs::ByHand {
            zeta: u64::MAX,
            alpha: Some("q\"\\\n\u{1}é"),
            within: Within { zz: 1, at: "\"" },
            flag: true,
            none: None,
            some: Some(0),
        }),
        What::Observe(Obs::Mapped(
            [("z", Within { zz: 3, at: "y" }), ("b", Within { zz: 4, at: "x" })].into(),
        )),
    ];
    let events = whats
        .into_iter()
        .enumerate()
        .map(|(i, what)| Event {
            t_ns: i as u64,
            node: A,
            wall_ns: -(i as i64),
            mono_ns: 2 * i as u64,
            what,
        })
        .collect();
    History {
        names: Names::new(vec!["a".into(), "b".into()]),
        events,
        clocks: Vec::new(),
        end_ns: 100,
        stats: Stats::default(),
    }
}

#[test]
fn lines_keep_the_trace_format() {
    let trace = erase(&history());
    let line = |i: usize| trace[i].json.as_str();
    assert_eq!(
        line(3),
        r#"{"i":3,"t_ns":3,"node":"a","wall_ns":-3,"mono_ns":6,"kind":"drop","from":"a","msg":"lost","msg_id":2,"reason":"down","to":"b","salience":"chatter","text":"message a -> b dropped (Down): lost"}"#
    );
    assert_eq!(
        line(7),
        r#"{"i":7,"t_ns":7,"node":"a","wall_ns":-7,"mono_ns":14,"kind":"crash","restart_after_ns":null,"salience":"salient","text":"CRASHED (never restarts)"}"#
    );
    assert_eq!(
        line(13),
        r#"{"i":13,"t_ns":13,"node":"a","wall_ns":-13,"mono_ns":26,"kind":"lossy","duplicate":true,"fault":2,"from":"*","ppm":10,"to":"b","salience":"salient","text":"messages * -> b duplicated with probability 10 ppm"}"#
    );
    // An observation's fields in key order, its own tag among them.
    assert_eq!(
        line(16),
        r#"{"i":16,"t_ns":16,"node":"a","wall_ns":-16,"mono_ns":32,"kind":"noted","alpha":null,"event":"noted","zeta":18446744073709551615,"salience":"routine","text":"noted it"}"#
    );
}

#[test]
fn every_line_reads_back_to_its_event() {
    for e in erase(&history()) {
        let line: serde_json::Value = serde_json::from_str(&e.json).unwrap();
        assert_eq!(TraceEvent::from_line(&line).unwrap(), e, "{}", e.json);
    }
    let bad: serde_json::Value = serde_json::from_str(r#"{"i":0,"t_ns":0}"#).unwrap();
    assert!(TraceEvent::from_line(&bad).is_err());
}

#[test]
fn the_line_writer_writes_the_serde_line_and_passes_the_same_event() {
    let h = history();
    let mut lines = LineWriter::default();
    let mut kept: Vec<TraceEvent> = Vec::new();
    for (index, e) in h.events.iter().enumerate() {
        let (line, salience) = lines.write(&h.names, index, e);
        let erased = erase_event(&h.names, index, e);
        assert_eq!(line, erased.json);
        assert_eq!(salience, erased.salience);
        lines.pass(&h.names, index, e, &mut kept);
    }
    assert_eq!(kept, erase(&h));
    assert!(
        kept[17]
            .json
            .contains(r#""kind":"checked","a":[{"at":"","zz":2}],"event":"checked","within":{"at":"\"q\"","zz":-1},"#)
    );
    assert!(
        kept[18].json.contains(
            r#""kind":"by_hand","alpha":null,"event":"by_hand","flag":false,"none":null,"some":18446744073709551615,"within":{"at":"","zz":-9223372036854775808},"zeta":0,"#
        )
    );
    assert!(
        kept[20]
            .json
            .contains(r#""kind":"mapped","b":{"at":"x","zz":4},"event":"mapped","z":{"at":"y","zz":3},"#)
    );
}

/// A stamp's clocks equal to true time or not, alone or together (the writer copies the
/// digits of equal ones), at the ends of their ranges; each twice and then on another node
/// (the writer copies a stamp equal to the last one).
#[test]
fn the_line_writer_writes_every_stamp_as_serde_does() {
    let h = history();
    let mut lines = LineWriter::default();
    let stamps = [
        (0, 0, 0),
        (5, 5, 5),
        (5, 5, 6),
        (5, 6, 5),
        (5, -5, 5),
        (5, 4, 4),
        (u64::MAX, -1, u64::MAX),
        (1 << 63, i64::MIN, 1 << 63),
        (i64::MAX as u64, i64::MAX, 0),
    ];
    for (t_ns, wall_ns, mono_ns) in stamps {
        for node in [A, A, B, A] {
            let e = Event {
                t_ns,
                node,
                wall_ns,
                mono_ns,
                ..h.events[4].clone()
            };
            assert_eq!(lines.write(&h.names, 7, &e).0, erase_event(&h.names, 7, &e).json);
        }
    }
}

#[test]
fn the_line_writer_escapes_as_serde_does() {
    let mut h = history();
    let nasty = "q\"b\\n\nr\rt\tb\u{8}f\u{c}z\u{0}\u{1f}\u{7f}é";
    h.names = Names::new(vec![nasty.into(), "b".into()]);
    let mut lines = LineWriter::default();
    for (index, e) in h.events.iter().enumerate() {
        assert_eq!(lines.write(&h.names, index, e).0, erase_event(&h.names, index, e).json);
    }
}

#[test]
fn the_hash_streams_what_sha256_hex_hashes() {
    let lines = ["{\"a\":1}", "", "é"];
    let mut hash = TraceHash::default();
    lines.iter().for_each(|l| hash.update(l));
    assert_eq!(hash.hex(), sha256_hex(lines));
    assert_eq!(
        sha256_hex([]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
}

/// The pages a line writer hands on hold every line it passed, each followed by a newline:
/// hashed as pages (across several, and the last flushed), they hash as the lines do.
#[test]
fn the_line_writers_pages_hash_as_its_lines() {
    let h = history();
    let mut lines = LineWriter::default();
    let mut sinks = (TraceHash::default(), Vec::<TraceEvent>::new());
    for (index, e) in h.events.iter().cycle().take(10 * h.events.len()).enumerate() {
        lines.pass(&h.names, index, e, &mut sinks);
    }
    lines.flush(&mut sinks);
    let (hash, kept) = sinks;
    assert!(kept.iter().map(|e| e.json.len() + 1).sum::<usize>() > 3 * sink::PAGE);
    assert_eq!(hash.hex(), sha256_hex(kept.iter().map(|e| e.json.as_str())));
}
