//! The run as text with a lane per node: one line per event that matters, true time and the
//! node's local clocks side by side, and a column per node that shows who acts (`*`), who is
//! frozen (`:` while paused or suspended), who is down (blank while crashed) and where an
//! invariant breaks (`!`, with `<== VIOLATES id` at the end of the line).
//!
//! The compact timeline of `locksim run` answers "what happened"; the lanes answer "who was
//! doing what meanwhile" — a paused client's dotted lane beside another client's acquisition
//! is the whole Kleppmann story at a glance. Both show the same selection ([`mod@super::select`]).

use std::borrow::Borrow;

use locksim_sim::trace::TraceEvent;

use super::life::{Life, Lives};
use super::select::{Row, TimelineMode, select};
use super::{MAX_COLUMN_WIDTH, Marks, NETWORK, nodes, secs};

/// What a node's lane shows between its own events.
impl Life {
    fn glyph(self) -> char {
        match self {
            Life::Running => '|',
            Life::Paused => ':',
            Life::Crashed => ' ',
        }
    }
}

/// Short lane headings: `client-0` -> `c0`, `server-2` -> `s2`, `resource` -> `re`; lane
/// numbers when two names would share a heading.
fn headings(names: &[&str]) -> Vec<String> {
    let short: Vec<String> = names
        .iter()
        .map(|n| match n.rsplit_once('-') {
            Some((word, digits))
                if !word.is_empty() && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) =>
            {
                format!("{}{digits}", word.chars().next().unwrap_or('n'))
            }
            _ => n.chars().take(2).collect(),
        })
        .collect();
    let unique = short.iter().enumerate().all(|(i, s)| !short[..i].contains(s));
    if unique {
        short
    } else {
        (1..=names.len()).map(|i| i.to_string()).collect()
    }
}

/// The lane view of `events`, violations marked.
pub fn lanes(events: &[TraceEvent], marks: &Marks) -> String {
    let rows = select(events, marks, TimelineMode::Compact);
    lanes_of(&rows, &nodes(events), events, marks)
}

/// The lane view of `rows` (the compact selection, made with `marks` known), where `names` are
/// every node in order of first appearance and `life_events` are the events in order, or only
/// those that change a node's life ([`super::changes_life`]): what a view selected from a
/// stream keeps.
pub(crate) fn lanes_of<E: Borrow<TraceEvent>>(
    rows: &[Row<E>],
    names: &[&str],
    life_events: &[TraceEvent],
    marks: &Marks,
) -> String {
    let heads = headings(names);
    let lane_width = (heads.iter().map(String::len).max().unwrap_or(1) + 1).min(MAX_COLUMN_WIDTH);
    let node_width = names
        .iter()
        .map(|n| n.len())
        .max()
        .unwrap_or(4)
        .max(NETWORK.len())
        .min(MAX_COLUMN_WIDTH);
    // Lane states follow every event, shown or folded, so a pause reads right inside a fold.
    let mut lives = Lives::new(life_events, names);
    let lane_of = |name: &str| names.iter().position(|n| *n == name);

    let legend: Vec<String> = heads.iter().zip(names).map(|(h, n)| format!("{h} {n}")).collect();
    let mut out = format!(
        "lanes: {}   (* acts, : paused, blank: crashed, ! violates)\n",
        legend.join(", ")
    );
    let lane_heads: String = heads.iter().map(|h| format!("{h:>lane_width$}")).collect();
    out.push_str(&format!(
        "{:>10}  {:>10}  {:>10}  {lane_heads}   {:<node_width$}  event\n",
        "true time", "local wall", "local mono", "node"
    ));
    for row in rows {
        match row {
            Row::Event(e) => {
                let e: &TraceEvent = e.borrow();
                // The lane shows the state the event leaves (a pause line starts the dots), and
                // the actor's own mark on its line.
                let life = lives.advance(e.index);
                let ids = marks.of(e.index);
                let glyph = if ids.is_empty() { '*' } else { '!' };
                let actor = lane_of(&e.node).map(|lane| (lane, glyph));
                let line = event_line(e, &lane_text(life, actor, lane_width), ids, node_width);
                out.push_str(line.trim_end());
                out.push('\n');
            }
            Row::Folded(f) => {
                let life = lives.advance(f.last_index);
                let line = format!(
                    "{:>10}  {:>10}  {:>10}  {}   {:<node_width$}  ... {} routine events from {} s to {} s ...",
                    "",
                    "",
                    "",
                    lane_text(life, None, lane_width),
                    "",
                    f.count,
                    secs(f.first_t_ns as i64),
                    secs(f.last_t_ns as i64)
                );
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

/// Every lane's glyph for the state `life` leaves, the actor's own mark in its lane.
fn lane_text(life: &[Life], actor: Option<(usize, char)>, lane_width: usize) -> String {
    life.iter()
        .enumerate()
        .map(|(i, l)| {
            let glyph = match actor {
                Some((a, g)) if a == i => g,
                _ => l.glyph(),
            };
            format!("{glyph:>lane_width$}")
        })
        .collect()
}

/// An event's line: true time, the node's local clocks (none for the network), the lanes, the
/// node, the text and the invariants it violates.
fn event_line(e: &TraceEvent, lanes: &str, ids: &[String], node_width: usize) -> String {
    let local = if e.node == NETWORK {
        format!("{:>10}  {:>10}", "", "")
    } else {
        format!("{:>10}  {:>10}", secs(e.wall_ns), secs(e.mono_ns as i64))
    };
    let mark = if ids.is_empty() {
        String::new()
    } else {
        format!("   <== VIOLATES {}", ids.join(", "))
    };
    format!(
        "{:>10}  {local}  {lanes}   {:<node_width$}  {}{mark}",
        secs(e.t_ns as i64),
        e.node,
        e.text
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_are_short_and_unique() {
        assert_eq!(
            headings(&["client-0", "client-1", "server-0", "replica-0", "resource"]),
            ["c0", "c1", "s0", "r0", "re"]
        );
        assert_eq!(headings(&["server-0", "sx-0"]), ["1", "2"]);
    }

    /// Issue 12: a node name of 65,536 characters or more made `format!` panic ("Formatting
    /// argument out of range") on the node column's width, and a digit suffix that long on the
    /// lane heading's.
    #[test]
    fn a_node_name_past_the_widest_column_does_not_panic() {
        use crate::render::test_events::{event, obs};
        use locksim_sim::Salience;
        let long = format!("client-{}", "7".repeat(70_000));
        let events = [
            event(0, 0, &long, obs("acquired"), Salience::Salient, "acquired"),
            event(1, 1, "server-0", obs("granted"), Salience::Salient, "granted"),
        ];
        let text = lanes(&events, &Marks::default());
        assert!(text.contains(&long), "{}", &text[..200]);
        assert!(text.contains("server-0"));
    }
}
