//! The SVG diagram: escaping, text widths, and small stories drawn as well-formed, readable
//! documents.

use super::*;
use locksim_sim::Salience;
use locksim_sim::history::DropReason;
use locksim_sim::trace::Happening;

use crate::render::test_events::{event, obs, send};

#[test]
fn escapes_markup_and_forbidden_characters() {
    assert_eq!(escape("token 1 < max 5 & 6 > 4"), "token 1 &lt; max 5 &amp; 6 &gt; 4");
    assert_eq!(escape(r#"say "hi" it's"#), "say &quot;hi&quot; it&apos;s");
    assert_eq!(escape("a\nb\u{0}c\td"), "a b c d");
    assert_eq!(escape("&amp;"), "&amp;amp;", "escaped text is escaped again");
    assert_eq!(escape("{0,1,2} — ok · …"), "{0,1,2} — ok · …");
    assert_eq!(escape("\u{FFFE}"), "\u{FFFD}");
}

#[test]
fn escaped_text_parses_back_to_itself() {
    let nasty = "<b>&amp; \"quoted\" 'single' ]]> --> <!-- \u{1}";
    let doc = format!("<r a=\"{0}\" b='{0}'>{0}</r>", escape(nasty));
    let parsed = roxmltree::Document::parse(&doc).expect("well-formed");
    let expected = nasty.replace('\u{1}', " ");
    assert_eq!(parsed.root_element().text(), Some(expected.as_str()));
    assert_eq!(parsed.root_element().attribute("a"), Some(expected.as_str()));
    assert_eq!(parsed.root_element().attribute("b"), Some(expected.as_str()));
}

#[test]
fn widths_round_up() {
    assert_eq!(text_width(""), 0);
    assert_eq!(text_width("a"), 9);
    assert_eq!(text_width("abcde"), 42);
    assert_eq!(text_width("ééééé"), 42, "characters, not bytes");
}

fn ev(index: usize, t_ms: u64, node: &str, what: Happening, text: &str) -> TraceEvent {
    let salience = match what {
        Happening::Send { .. } | Happening::Deliver { .. } | Happening::Drop { .. } => Salience::Chatter,
        _ => Salience::Salient,
    };
    event(index, t_ms * 1_000_000, node, what, salience, text)
}

/// A small story with text that needs escaping, a pause, a drop and a violation: the
/// document parses, the text reads back as the simulator wrote it, and the pause dots
/// the lifeline.
#[test]
fn a_small_story_is_well_formed_and_readable() {
    let pause = Happening::Pause {
        duration_ns: 1_000_000_000,
        suspend: false,
    };
    let events = vec![
        ev(0, 0, "client-0", Happening::Start, "starts"),
        ev(1, 0, "server-0", Happening::Start, "starts"),
        ev(2, 1, "client-0", send("server-0", 1, "SET <k> & \"v\""), ""),
        ev(
            3,
            2,
            "server-0",
            Happening::Deliver {
                from: "client-0".into(),
                msg: "SET <k> & \"v\"".into(),
                msg_id: 1,
            },
            "",
        ),
        ev(4, 2, "server-0", obs("set"), "key <k> := 'v' & more"),
        ev(5, 3, "client-0", pause, "PAUSED for 1 s"),
        ev(6, 3, "server-0", obs("reply"), "replies"),
        ev(7, 3, "server-0", send("client-0", 2, "OK"), ""),
        ev(
            8,
            3,
            "server-0",
            Happening::Drop {
                from: "server-0".into(),
                msg: "OK".into(),
                msg_id: 2,
                reason: DropReason::Loss,
                to: "client-0".into(),
            },
            "",
        ),
        ev(9, 4, "client-0", Happening::Resume, "resumes"),
        ev(10, 4, "client-0", send("server-0", 3, "DEL"), ""),
    ];
    let mut marks = Marks::default();
    marks.add(4, "stale_write");
    let text = svg(&events, &Cast::default(), &marks);
    let doc = roxmltree::Document::parse(&text).expect("well-formed");
    let root = doc.root_element();
    assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
    let groups = |class: &str| -> Vec<roxmltree::Node<'_, '_>> {
        doc.descendants()
            .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').any(|w| w == class)))
            .collect()
    };
    let texts = |n: roxmltree::Node<'_, '_>| -> Vec<String> {
        n.descendants()
            .filter(|d| d.has_tag_name("text"))
            .filter_map(|d| d.text().map(str::to_string))
            .collect()
    };
    let heads: Vec<Vec<String>> = groups("lane-head").into_iter().map(texts).collect();
    assert_eq!(heads, [["client-0"], ["server-0"]]);
    let violation = groups("violation");
    assert_eq!(violation.len(), 1);
    assert_eq!(
        texts(violation[0]),
        ["0.002 s", "key <k> := 'v' & more", "VIOLATES stale_write"]
    );
    assert_eq!(groups("delivered").len(), 1);
    assert_eq!(texts(groups("delivered")[0])[1], "SET <k> & \"v\"");
    let dropped = groups("dropped");
    assert_eq!(dropped.len(), 1);
    assert_eq!(texts(dropped[0])[1], "OK (lost)");
    assert_eq!(texts(groups("in-flight")[0])[1], "DEL (still in flight at the end)");
    assert_eq!(groups("pause").len(), 2, "the pause and the resume");
    // client-0's lifeline: solid, dotted while paused, solid again.
    let dashes: Vec<Option<&str>> = groups("lifeline")
        .iter()
        .filter(|l| l.attribute("x1") == Some(&Grid::new(2, TimeAxis::Rows).centre(0).to_string()))
        .map(|l| l.attribute("stroke-dasharray"))
        .collect();
    assert_eq!(dashes, [None, Some("2,4"), None]);
}

#[test]
fn no_events_still_make_a_document() {
    let text = svg(&[], &Cast::default(), &Marks::default());
    let doc = roxmltree::Document::parse(&text).expect("well-formed");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
}
