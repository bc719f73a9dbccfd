//! The run as a Mermaid `sequenceDiagram`, drawn for a projector: a caption (title, the
//! scenario's description and seed), a participant per node, messages as arrows (a lost one on
//! a band of its own colour), notes coloured by what they are (`look.rs`: each kind of fault,
//! an expiry, a refusal, a violation — the same colours as the SVG's), and the lifeline of a
//! node that crashed for good ended (`destroy`). The output is the content of a
//! ```` ```mermaid ```` block and renders on a GitHub page as it is.
//!
//! A diagram is only useful if it stays readable, so it shows the story view
//! (`story.rs`, `messages.rs`), shared with the SVG view (`diagram.rs`). Consecutive events of
//! one node's step that look alike share a note. Mermaid's grammar limits are handled in
//! `mermaid_text.rs`, its settings and caption in `mermaid_head.rs`; every catalogue diagram is
//! checked with Mermaid's own parser (`tests/mermaid_parse.rs`).

use std::collections::BTreeSet;

use locksim_sim::trace::{Happening, TraceEvent};

use super::cast::Cast;
use super::diagram::{
    Emphasis, Item, arrow_label, describe, drawn_as_arrow, emphasis, fold_text, header, items, network_nodes,
};
use super::look::{DROPPED_RGB, Look, look, plain};
use super::mermaid_head::{caption_note, head};
use super::mermaid_text::{narrow, participant_ids};
use super::messages::Fate;
use super::{Marks, NETWORK, nodes};

/// The Mermaid diagram of `events` of a run with `cast`, violations marked.
pub fn mermaid(events: &[TraceEvent], cast: &Cast, marks: &Marks) -> String {
    let names = nodes(events);
    let ids = participant_ids(&names);
    let id = |name: &str| names.iter().position(|n| *n == name).map(|i| ids[i].as_str());
    let lock_servers = cast.lock_servers();

    let mut out = Out {
        text: head(cast.caption()),
        band: None,
    };
    for (name, id) in names.iter().zip(&ids) {
        out.text.push_str(&format!("    participant {id} as {name}\n"));
    }
    let everyone = match (ids.first(), ids.last()) {
        (Some(a), Some(b)) if a != b => format!("{a},{b}"),
        (Some(a), _) => a.clone(),
        _ => return out.text,
    };
    if let Some(caption) = caption_note(cast.caption()) {
        out.line(None, &format!("Note over {everyone}: {caption}"));
    }
    let last_crashes = last_crashes(events);
    // Crashed for good, lifeline not ended yet: ended by the next arrow to or from it.
    let mut dying: BTreeSet<&str> = BTreeSet::new();
    let mut note: Option<Note> = None;
    for item in items(events, marks) {
        match item {
            Item::Event(e) => {
                if drawn_as_arrow(e, marks) {
                    continue;
                }
                let over = if e.node == NETWORK {
                    network_over(e, &id).unwrap_or_else(|| everyone.clone())
                } else {
                    match id(&e.node) {
                        Some(i) => i.to_string(),
                        None => continue,
                    }
                };
                if last_crashes.contains(&e.index)
                    && let Some(i) = id(&e.node)
                {
                    dying.insert(i);
                }
                let lines: Vec<String> = describe(e, lock_servers).iter().map(|l| narrow(l)).collect();
                let emphasis = emphasis(e, marks);
                let look = look(e, emphasis.as_ref());
                if let Some(n) = note.as_mut()
                    && n.emphasis.is_none()
                    && emphasis.is_none()
                    && n.look == look
                    && n.over == over
                    && n.t_ns == e.t_ns
                {
                    n.lines.extend(lines);
                    continue;
                }
                flush(&mut note, &mut out);
                note = Some(Note {
                    over,
                    t_ns: e.t_ns,
                    header: header(e),
                    lines,
                    emphasis,
                    look,
                });
            }
            Item::Fold(f) => {
                flush(&mut note, &mut out);
                out.line(None, &format!("Note over {everyone}: {}", fold_text(&f)));
            }
            Item::Arrow(a) => {
                let (Some(from), Some(to)) = (id(&a.from), id(&a.to)) else {
                    continue;
                };
                flush(&mut note, &mut out);
                let op = match &a.fate {
                    Fate::Delivered => "->>",
                    Fate::Dropped(_) => "-x",
                    Fate::InFlight => "-)",
                };
                let band = matches!(a.fate, Fate::Dropped(_)).then_some(DROPPED_RGB);
                for end in [from, to] {
                    if dying.remove(end) {
                        out.line(band, &format!("destroy {end}"));
                    }
                }
                out.line(band, &format!("{from}{op}{to}: {}", narrow(&arrow_label(&a))));
            }
        }
    }
    flush(&mut note, &mut out);
    out.close();
    out.text
}

/// The diagram's text, and the band of colour its last lines stand in, if any: consecutive
/// lines of one colour share a `rect`.
struct Out {
    text: String,
    band: Option<&'static str>,
}

impl Out {
    fn line(&mut self, band: Option<&'static str>, line: &str) {
        if self.band != band {
            self.close();
            if let Some(rgb) = band {
                self.text.push_str(&format!("    rect {rgb}\n"));
            }
            self.band = band;
        }
        let indent = if band.is_some() { "        " } else { "    " };
        self.text.push_str(&format!("{indent}{line}\n"));
    }

    fn close(&mut self) {
        if self.band.take().is_some() {
            self.text.push_str("    end\n");
        }
    }
}

/// The crashes after which a node never restarts, by trace index: its lifeline ends there
/// (Mermaid's `destroy`). A node that restarts keeps its lifeline, the crash and the restart
/// noted on it: Mermaid cannot create a participant again under the same id, and a created
/// participant must first appear as a message's receiver, while a restarted node's first line
/// is its own restart.
fn last_crashes(events: &[TraceEvent]) -> BTreeSet<usize> {
    let mut last: Vec<(&str, Option<usize>)> = Vec::new();
    for e in events {
        let down = match e.what {
            Happening::Crash { .. } => Some(e.index),
            Happening::Restart => None,
            _ => continue,
        };
        match last.iter_mut().find(|(n, _)| *n == e.node) {
            Some(entry) => entry.1 = down,
            None => last.push((&e.node, down)),
        }
    }
    last.into_iter().filter_map(|(_, i)| i).collect()
}

/// One note: the events of one node's step that look alike, or a single emphasised event.
struct Note {
    over: String,
    t_ns: u64,
    header: String,
    lines: Vec<String>,
    emphasis: Option<Emphasis>,
    look: Look,
}

/// Writes the note, in a band of its look's colour of its own unless it is a plain one.
fn flush(note: &mut Option<Note>, out: &mut Out) {
    let Some(n) = note.take() else { return };
    let mut text = format!("{}<br>{}", narrow(&n.header), n.lines.join("<br>"));
    if let Some(Emphasis::Violation(ids)) = &n.emphasis {
        // Whole, so that the mark reads (and is found) as one phrase.
        text.push_str(&format!("<br>VIOLATES {ids}"));
    }
    let band = (!plain(&n.look)).then_some(n.look.fill);
    out.close();
    out.line(band, &format!("Note over {}: {text}", n.over));
    out.close();
}

/// The participants a network event's note spans: a failover's primary, a delay's link.
fn network_over<'a>(e: &TraceEvent, id: &impl Fn(&str) -> Option<&'a str>) -> Option<String> {
    let (first, second) = network_nodes(e)?;
    let a = id(first)?;
    match second.and_then(id) {
        Some(b) if b != a => Some(format!("{a},{b}")),
        _ => Some(a.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use locksim_protocols::Role;
    use locksim_protocols::lock::obs::{Deadline, LockObs};
    use locksim_sim::Salience;
    use locksim_sim::history::DropReason;
    use locksim_sim::trace::{Happening, Observed};

    use crate::render::mermaid_head::INIT;
    use crate::render::test_events::{deliver, dropped, event, obs, send};

    fn ev(index: usize, t_ms: u64, node: &str, what: Happening, salience: Salience, text: &str) -> TraceEvent {
        event(index, t_ms * 1_000_000, node, what, salience, text)
    }

    fn cut(from: &str, to: &str, msg_id: u64, msg: &str) -> Happening {
        dropped(from, to, msg_id, msg, DropReason::Partition)
    }

    #[test]
    fn a_small_story_renders_exactly() {
        use Salience::{Chatter, Routine, Salient};
        let partition = Happening::Partition {
            fault: 0,
            groups: vec!["{client-0}".into(), "{server-1}".into()],
            one_way: false,
        };
        let acquired = Happening::Observe(Observed::of(&LockObs::Acquired {
            lease: 14602105199120797149,
            token: Some(7),
            validity_ns: 9995000000,
            deadline_mono_ns: Deadline::Mono(10_000_000_000),
            servers: 1,
        }));
        let crash = Happening::Crash { restart_after_ns: None };
        let down = |from: &str, to: &str, id: u64, msg: &str| dropped(from, to, id, msg, DropReason::Down);
        let mut events = vec![
            ev(0, 0, "client-0", Happening::Start, Chatter, "starts"),
            ev(1, 0, "server-0", Happening::Start, Chatter, "starts"),
            ev(2, 0, "server-1", Happening::Start, Chatter, "starts"),
            ev(
                3,
                0,
                "network",
                partition,
                Salient,
                "PARTITION: {client-0} | {server-1}",
            ),
            ev(4, 1, "client-0", send("server-0", 1, "SET lock; x"), Chatter, ""),
            ev(5, 1, "client-0", send("server-1", 2, "unseen"), Chatter, ""),
            ev(6, 1, "client-0", cut("client-0", "server-1", 2, "unseen"), Chatter, ""),
            ev(7, 3, "server-0", deliver("client-0", 1, "SET lock; x"), Chatter, ""),
            ev(8, 3, "server-0", obs("key_set"), Routine, "lock key := lease caa5"),
            ev(9, 3, "server-0", send("client-0", 3, "OK"), Chatter, ""),
            ev(10, 5, "client-0", deliver("server-0", 3, "OK"), Chatter, ""),
            ev(11, 5, "client-0", acquired, Routine, "ACQUIRED ..."),
            ev(12, 5, "client-0", obs("read_done"), Routine, "read counter = 0"),
            ev(
                13,
                6,
                "client-0",
                obs("write_refused"),
                Salient,
                "REJECTED (token 1 < max 2)",
            ),
            ev(14, 6, "client-0", send("server-1", 4, "DEL"), Chatter, ""),
            ev(15, 6, "client-0", cut("client-0", "server-1", 4, "DEL"), Chatter, ""),
            ev(16, 6, "client-0", send("server-0", 5, "DEL"), Chatter, ""),
            ev(17, 7, "server-1", crash, Salient, "CRASHED (never restarts)"),
            ev(18, 8, "client-0", Happening::Timer { tag: 0 }, Chatter, ""),
            ev(19, 8, "client-0", obs("acquire_started"), Chatter, "tries to acquire"),
            ev(20, 8, "client-0", send("server-1", 6, "SET"), Chatter, ""),
            ev(21, 9, "server-1", down("client-0", "server-1", 6, "SET"), Chatter, ""),
        ];
        events[12].wall_ns = 7_500_000;
        let mut marks = Marks::default();
        marks.add(11, "mutual_exclusion");
        let expected = format!(
            "{INIT}\n{}",
            "\
sequenceDiagram
    title locksim sequence diagram
    participant client_0 as client-0
    participant server_0 as server-0
    participant server_1 as server-1
    rect rgb(204, 251, 241)
        Note over client_0,server_1: 0.000 s<br>PARTITION: {client-0} |<br>{server-1}
    end
    client_0->>server_0: SET lock#59; x
    Note over server_0: 0.003 s<br>lock key := lease caa5
    server_0->>client_0: OK
    rect rgb(255, 204, 204)
        Note over client_0: 0.005 s<br>ACQUIRED lease caa5 ·<br>token 7 · validity 9.995 s<br>on server-0 (1 of 2)<br>VIOLATES mutual_exclusion
    end
    Note over client_0: 0.005 s · wall 0.007 s<br>read counter = 0
    rect rgb(255, 236, 179)
        Note over client_0: 0.006 s<br>REJECTED (token 1 #lt; max 2)
    end
    rect rgb(254, 215, 170)
        client_0-xserver_1: DEL (cut by the partition)
    end
    client_0-)server_0: DEL (still in flight at<br>the end)
    rect rgb(212, 212, 212)
        Note over server_1: 0.007 s<br>CRASHED (never restarts)
    end
    Note over client_0: 0.008 s<br>tries to acquire
    rect rgb(254, 215, 170)
        destroy server_1
        client_0-xserver_1: SET (receiver down or<br>restarted)
    end
"
        );
        let cast = Cast::new(
            [
                ("client-0", Role::Client),
                ("server-0", Role::Server),
                ("server-1", Role::Server),
            ]
            .map(|(n, r)| (n.to_string(), r))
            .to_vec(),
            vec!["server-0".into(), "server-1".into()],
        );
        assert_eq!(mermaid(&events, &cast, &marks), expected);
    }

    #[test]
    fn a_long_note_is_broken_into_short_lines() {
        let text = "lock key := lease caa5 (expires at wall 10.002 s)";
        let events = vec![
            ev(0, 0, "client-0", Happening::Start, Salience::Chatter, "starts"),
            ev(1, 2, "server-0", obs("key_set"), Salience::Routine, text),
        ];
        let cast = Cast::new(
            vec![("client-0".into(), Role::Client), ("server-0".into(), Role::Server)],
            vec!["server-0".into()],
        );
        let diagram = mermaid(&events, &cast, &Marks::default());
        assert!(
            diagram.contains(
                "\n    Note over server_0: 0.002 s<br>lock key := lease caa5<br>(expires at wall 10.002 s)\n"
            ),
            "{diagram}"
        );
    }
}
