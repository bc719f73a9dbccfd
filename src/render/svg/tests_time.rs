//! The SVG's size, caption and time axis on hand-made stories: a picture that scales to its
//! window, says which run it draws, and — on a proportional axis — puts a 15 s pause far below
//! a 1 ms step, folds the quiet span with its length marked, and scales the gutter in seconds.

use super::*;
use locksim_sim::Salience;
use roxmltree::{Document, Node};

use crate::render::Caption;
use crate::render::test_events::{event, obs};

/// A salient event of `node` at `t_ms`, saying `text`.
fn at(index: usize, t_ms: u64, node: &str, text: &str) -> TraceEvent {
    event(index, t_ms * 1_000_000, node, obs(text), Salience::Salient, text)
}

/// Three steps 1 ms apart, a 15 s pause, its end, and one more step 1 ms later.
fn pause_story() -> Vec<TraceEvent> {
    let pause = Happening::Pause {
        duration_ns: 15_000_000_000,
        suspend: false,
    };
    vec![
        at(0, 0, "client-0", "step-a"),
        at(1, 1, "client-0", "step-b"),
        at(2, 2, "server-0", "step-c"),
        event(3, 3_000_000, "client-0", pause, Salience::Salient, "PAUSED for 15 s"),
        event(
            4,
            15_003_000_000,
            "client-0",
            Happening::Resume,
            Salience::Salient,
            "resumes",
        ),
        at(5, 15_004, "server-0", "step-d"),
    ]
}

use locksim_sim::trace::Happening;

/// The y of the note whose text contains `words`.
fn y_of(doc: &Document<'_>, words: &str) -> i64 {
    let note = doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.starts_with("event")))
        .find(|n| texts(*n).iter().any(|t| t.contains(words)))
        .unwrap_or_else(|| panic!("no note with {words:?}"));
    let rect = note.descendants().find(|d| d.has_tag_name("rect")).unwrap();
    rect.attribute("y").unwrap().parse().unwrap()
}

fn texts(n: Node<'_, '_>) -> Vec<String> {
    n.descendants()
        .filter(|d| d.has_tag_name("text"))
        .filter_map(|d| d.text().map(str::to_string))
        .collect()
}

fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .collect()
}

fn draw_on(events: &[TraceEvent], axis: TimeAxis) -> String {
    svg_on(events, &Cast::default(), &Marks::default(), axis)
}

#[test]
fn a_long_pause_is_drawn_long_on_a_proportional_axis() {
    let events = pause_story();
    let rows = draw_on(&events, TimeAxis::Rows);
    let rows = Document::parse(&rows).unwrap();
    let proportional = draw_on(&events, TimeAxis::Proportional);
    let proportional = Document::parse(&proportional).unwrap();
    let spans = |doc: &Document<'_>| {
        (
            y_of(doc, "step-b") - y_of(doc, "step-a"),
            y_of(doc, "resumes") - y_of(doc, "PAUSED"),
        )
    };
    let (step, pause) = spans(&rows);
    assert_eq!(step, pause, "one row after another, whatever the time between");
    let (step, pause) = spans(&proportional);
    assert!(pause > 8 * step, "15 s against 1 ms: {pause} px against {step} px");
    // A 1 ms step still keeps its text apart: the next row starts below this one's box.
    let box_h = i64::from(LINE + 2 * PAD);
    assert!(step >= box_h + i64::from(GAP), "{step}");
}

#[test]
fn a_long_quiet_span_is_folded_into_a_marked_break() {
    let events = pause_story();
    let text = draw_on(&events, TimeAxis::Proportional);
    let doc = Document::parse(&text).unwrap();
    let breaks: Vec<Vec<String>> = with_class(&doc, "break").into_iter().map(texts).collect();
    assert_eq!(breaks, [["≈ 15.0 s quiet"]]);
    // Folded: the pause takes less room than 15 s at the scale of the seconds around it.
    let pause = y_of(&doc, "resumes") - y_of(&doc, "PAUSED");
    assert!(pause < 15 * i64::try_from(place::PX_PER_S).unwrap(), "{pause}");
    // One row after another, nothing is folded and there is no scale.
    let rows = draw_on(&events, TimeAxis::Rows);
    assert!(!rows.contains("class=\"break\"") && !rows.contains("time-scale"));
}

#[test]
fn the_gutter_has_a_time_scale_in_whole_seconds() {
    let events = vec![
        at(0, 0, "client-0", "start"),
        at(1, 1_500, "client-0", "middle"),
        at(2, 3_200, "client-0", "end"),
    ];
    let text = draw_on(&events, TimeAxis::Proportional);
    let doc = Document::parse(&text).unwrap();
    let ticks: Vec<(String, i64)> = with_class(&doc, "tick")
        .into_iter()
        .map(|t| {
            (
                t.text().unwrap().to_string(),
                t.attribute("y").unwrap().parse().unwrap(),
            )
        })
        .collect();
    let labels: Vec<&str> = ticks.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["0 s", "1 s", "2 s", "3 s"]);
    assert!(ticks.windows(2).all(|w| w[0].1 < w[1].1), "{ticks:?}");
    // Each tick (its label 4 px below it) between the rows around it.
    let (start, middle, end) = (y_of(&doc, "start"), y_of(&doc, "middle"), y_of(&doc, "end"));
    assert_eq!(ticks[0].1, start + 4);
    assert!(start < ticks[1].1 && ticks[1].1 < middle + 4);
    assert!(middle < ticks[2].1 && ticks[3].1 < end + 4);
}

#[test]
fn the_same_story_draws_the_same_bytes() {
    let events = pause_story();
    for axis in [TimeAxis::Rows, TimeAxis::Proportional] {
        assert_eq!(draw_on(&events, axis), draw_on(&events, axis));
    }
}

#[test]
fn it_scales_to_its_container() {
    let text = draw_on(&pause_story(), TimeAxis::Rows);
    let doc = Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("width"), Some("100%"));
    assert_eq!(root.attribute("height"), None, "no fixed height: it follows the width");
    let view: Vec<i32> = root
        .attribute("viewBox")
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(view[..2], [0, 0]);
    assert!(view[2] <= FIT_W + MARGIN);
    assert_eq!(root.attribute("font-size"), Some("14"), "readable when projected");
}

#[test]
fn a_long_note_wraps_within_the_columns() {
    let long = "word ".repeat(80);
    let events = vec![at(0, 0, "client-0", long.trim())];
    let text = draw_on(&events, TimeAxis::Rows);
    let doc = Document::parse(&text).unwrap();
    let width: i32 = doc
        .root_element()
        .attribute("viewBox")
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    let grid = Grid::new(1, TimeAxis::Rows);
    assert_eq!(width, grid.width(), "the note did not widen the picture");
    let lines = texts(with_class(&doc, "event")[0]);
    assert_eq!(lines[0], "0.000 s", "the time, then the note's lines");
    assert!(lines.len() > 2, "{lines:?}");
    assert_eq!(lines[1..].join(" "), long.trim());
}

#[test]
fn the_caption_names_the_run_and_how_to_replay_it() {
    let caption = Caption {
        name: "kleppmann-gc-pause".into(),
        description: "client-0 pauses <15 s> after reading".into(),
        seed: 4,
        file: "scenarios/single-redis/kleppmann-gc-pause.toml".into(),
    };
    let (drawn, h) = heading::heading(&caption, 1000);
    let doc = Document::parse(&drawn).unwrap();
    assert_eq!(
        texts(doc.root_element()),
        [
            "kleppmann-gc-pause, seed 4",
            "client-0 pauses <15 s> after reading",
            "replay: locksim run scenarios/single-redis/kleppmann-gc-pause.toml --seed 4"
        ]
    );
    let unknown = Caption {
        file: String::new(),
        ..caption
    };
    let (drawn, shorter) = heading::heading(&unknown, 1000);
    assert!(!drawn.contains("replay") && shorter < h);
}
