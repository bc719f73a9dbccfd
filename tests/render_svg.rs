//! The SVG view on real runs: every catalogue picture is a well-formed, standalone SVG document with a
//! lane per node, draws exactly the Mermaid diagram's arrows and folds, marks a violation in
//! red with its invariant ids (and nothing red where every invariant held), tells the faults
//! apart, and prints the same bytes from a live run and from its trace file.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::mermaid::{arrows, participants, unescape};
use locksim::load::load_file;
use locksim::render::{Cast, Marks, Row, TimeAxis, mermaid, story, svg, svg_on};
use locksim::run_result::RunResult;
use locksim::sim::trace::{Happening, TraceEvent};
use roxmltree::{Document, Node};

/// A story per protocol family and per kind of fault: a pause (held, and violated), a clock
/// jump, a crash, etcd's pause and waiter bug, a failover. The structural checks run on the
/// whole catalogue; these must also draw messages and folds.
const SCENARIOS: &[&str] = &[
    "single-redis/kleppmann-gc-pause-fenced.toml",
    "single-redis/kleppmann-gc-pause.toml",
    "redlock/clock-jump.toml",
    "redlock/crash-restart-empty.toml",
    "etcd/holder-pause.toml",
    "etcd/waiter-bug.toml",
    "failover/failover-race.toml",
];

const SVG_NS: &str = "http://www.w3.org/2000/svg";
/// The window every picture must fit at its natural size.
const FIT_W: i64 = 1_400;
/// Mermaid's violation and refusal backgrounds, which the SVG view mirrors.
const VIOLATION_RGB: &str = "rgb(255, 204, 204)";
const REFUSAL_RGB: &str = "rgb(255, 236, 179)";

/// The events and marks of a catalogue scenario run at its own seed.
fn live(rel: &str) -> (Vec<TraceEvent>, Cast, Marks) {
    let loaded = load_file(&common::scenario(rel)).unwrap_or_else(|e| panic!("{e}"));
    let mut events = Vec::new();
    let report = RunResult::run_into(&loaded, None, &mut events);
    let marks = Marks::from_verdicts(&report.outcome.verdicts);
    (events, Cast::of(&loaded.scenario), marks)
}

fn parse<'a>(rel: &str, text: &'a str) -> Document<'a> {
    Document::parse(text).unwrap_or_else(|e| panic!("{rel}: not well-formed XML: {e}"))
}

/// Elements whose `class` has the word `class`, in document order.
fn with_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .collect()
}

/// The text of each `<text>` under `node`.
fn texts(node: Node<'_, '_>) -> Vec<String> {
    node.descendants()
        .filter(|d| d.has_tag_name("text"))
        .map(|d| d.text().unwrap_or_default().to_string())
        .collect()
}

fn title(node: Node<'_, '_>) -> String {
    node.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .unwrap_or_default()
        .to_string()
}

/// The fill of the first `<rect>` under `node`.
fn fill<'a>(node: Node<'a, '_>) -> &'a str {
    node.descendants()
        .find(|d| d.has_tag_name("rect"))
        .and_then(|r| r.attribute("fill"))
        .unwrap_or_default()
}

fn nodes_of(events: &[TraceEvent]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for e in events {
        if e.node != "network" && !seen.contains(&e.node.as_str()) {
            seen.push(&e.node);
        }
    }
    seen
}

/// (from, to, kind, text) of each arrow, in order, as node names and plain text.
type Arrows = Vec<(String, String, &'static str, String)>;

/// The Mermaid diagram's arrows, its participant ids turned back into node names and its
/// entity codes into characters.
fn mermaid_arrows(diagram: &str) -> Arrows {
    let names = participants(diagram);
    let name = |id: &str| names.iter().find(|(i, _)| i == id).expect("a participant").1.clone();
    arrows(diagram)
        .into_iter()
        .map(|(from, op, to, text)| {
            let kind = match op {
                "->>" => "delivered",
                "-x" => "dropped",
                _ => "in-flight",
            };
            (name(&from), name(&to), kind, unescape(&text))
        })
        .collect()
}

/// The SVG's arrows: each `arrow` group's kind, its title (`from -> to: text`), and its label,
/// which must be the title's text.
fn svg_arrows(doc: &Document<'_>) -> Arrows {
    with_class(doc, "arrow")
        .into_iter()
        .map(|g| {
            let class = g.attribute("class").unwrap();
            let kind = ["delivered", "dropped", "in-flight"]
                .into_iter()
                .find(|k| class.split(' ').any(|w| w == *k))
                .unwrap_or_else(|| panic!("arrow of no kind: {class}"));
            let title = title(g);
            let (ends, text) = title.split_once(": ").expect("from -> to: text");
            let (from, to) = ends.split_once(" -> ").expect("from -> to");
            assert_eq!(texts(g).last().map(String::as_str), Some(text), "label = title");
            (from.to_string(), to.to_string(), kind, text.to_string())
        })
        .collect()
}

/// Every catalogue scenario, relative to `scenarios/`.
fn catalogue() -> Vec<String> {
    let dir = common::root().join("scenarios");
    common::catalogue()
        .iter()
        .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn every_picture_is_a_standalone_well_formed_svg_document() {
    for rel in &catalogue() {
        let (events, cast, marks) = live(rel);
        for axis in [TimeAxis::Rows, TimeAxis::Proportional] {
            standalone(rel, &svg_on(&events, &cast, &marks, axis));
        }
    }
}

/// `text` is a well-formed SVG document that fetches nothing, scales to its container, and
/// keeps every coordinate an integer inside its picture.
fn standalone(rel: &str, text: &str) {
    assert!(text.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\""), "{rel}");
    let doc = parse(rel, text);
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{rel}");
    assert_eq!(root.tag_name().namespace(), Some(SVG_NS), "{rel}");
    assert_eq!(root.attribute("version"), Some("1.1"), "{rel}");
    // It scales to its container: a viewBox, a width of 100% and no fixed height.
    assert_eq!(root.attribute("width"), Some("100%"), "{rel}");
    assert_eq!(root.attribute("height"), None, "{rel}");
    let view: Vec<i64> = root
        .attribute("viewBox")
        .unwrap_or_else(|| panic!("{rel}: no viewBox"))
        .split(' ')
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{rel}: viewBox {v:?}")))
        .collect();
    assert_eq!(view[..2], [0, 0], "{rel}");
    let (w, h) = (view[2], view[3]);
    // Sized for a 1,400 px window (8 nodes of a Redlock story included), at 14 px.
    assert!(w <= FIT_W, "{rel}: {w} px wide");
    assert_eq!(root.attribute("font-size"), Some("14"), "{rel}");
    for n in doc.descendants().filter(|n| n.is_element()) {
        let tag = n.tag_name();
        assert_eq!(tag.namespace(), Some(SVG_NS), "{rel}: {tag:?}");
        // Nothing to fetch or run: no scripts, style sheets, images, fonts or links.
        assert!(
            ![
                "script",
                "style",
                "image",
                "font",
                "font-face",
                "a",
                "foreignObject",
                "use"
            ]
            .contains(&tag.name()),
            "{rel}: <{}>",
            tag.name()
        );
        for a in n.attributes() {
            assert!(!a.name().contains("href"), "{rel}: {}", a.name());
            assert!(
                !a.value().contains("url(") || a.value().starts_with("url(#"),
                "{rel}: {}",
                a.value()
            );
            // Integer coordinates, inside the picture (the picture's own width is its container's).
            if n != root && ["x", "y", "x1", "y1", "x2", "y2", "width", "height", "cx", "cy", "r"].contains(&a.name()) {
                let v: i64 = a
                    .value()
                    .parse()
                    .unwrap_or_else(|_| panic!("{rel}: {}={:?} is not an integer", a.name(), a.value()));
                let in_transform = n.ancestors().any(|p| p.has_attribute("transform"));
                let limit = if a.name().starts_with('x') || a.name() == "cx" || a.name() == "width" {
                    w
                } else {
                    h
                };
                assert!(in_transform || (0..=limit).contains(&v), "{rel}: {}={v}", a.name());
            }
        }
        if tag.name() == "rect" && !n.ancestors().any(|p| p.has_attribute("transform")) {
            let at = |k: &str| n.attribute(k).unwrap().parse::<i64>().unwrap();
            assert!(
                at("x") + at("width") <= w && at("y") + at("height") <= h,
                "{rel}: a box sticks out"
            );
        }
    }
}

#[test]
fn every_node_has_a_lane_and_the_arrows_and_folds_are_the_mermaid_diagrams() {
    for rel in &catalogue() {
        let (events, cast, marks) = live(rel);
        let text = svg(&events, &cast, &marks);
        let doc = parse(rel, &text);
        let nodes = nodes_of(&events);
        for class in ["lane-head", "lane-foot"] {
            let lanes: Vec<Vec<String>> = with_class(&doc, class).into_iter().map(texts).collect();
            let expected: Vec<Vec<String>> = nodes.iter().map(|n| vec![n.to_string()]).collect();
            assert_eq!(lanes, expected, "{rel}: a {class} per node, in order of appearance");
        }
        let diagram = mermaid(&events, &cast, &marks);
        let drawn = svg_arrows(&doc);
        assert!(
            !drawn.is_empty() || !SCENARIOS.contains(&rel.as_str()),
            "{rel}: no arrow"
        );
        assert_eq!(
            drawn,
            mermaid_arrows(&diagram),
            "{rel}: the same arrows, in the same order"
        );
        let folds: Vec<String> = with_class(&doc, "fold").into_iter().flat_map(texts).collect();
        let mermaid_folds: Vec<String> = diagram
            .lines()
            .filter(|l| l.contains(" routine events, "))
            .map(|l| l.split_once(": ").unwrap().1.to_string())
            .collect();
        assert!(
            !folds.is_empty() || !SCENARIOS.contains(&rel.as_str()),
            "{rel}: a long run folds"
        );
        assert_eq!(folds, mermaid_folds, "{rel}");
        // A box per shown event, except the messages the arrows draw (unless they violate).
        let boxed: Vec<usize> = with_class(&doc, "event")
            .into_iter()
            .map(|g| {
                let t = title(g);
                let n = t.strip_prefix("event #").and_then(|r| r.split(' ').next());
                n.and_then(|n| n.parse().ok())
                    .unwrap_or_else(|| panic!("{rel}: title {t:?}"))
            })
            .collect();
        let shown: Vec<usize> = story(&events, &marks)
            .into_iter()
            .filter_map(|r| match r {
                Row::Event(e) => Some(e),
                Row::Folded(_) => None,
            })
            .filter(|e| {
                let message = matches!(
                    e.what,
                    Happening::Send { .. } | Happening::Deliver { .. } | Happening::Drop { .. }
                );
                !message || marks.contains(e.index)
            })
            .map(|e| e.index)
            .collect();
        assert_eq!(boxed, shown, "{rel}: a box per shown event, in order");
        // Each row's true time is in the gutter, in order.
        let times: Vec<f64> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text") && n.attribute("text-anchor") == Some("end"))
            .filter_map(|n| n.text()?.strip_suffix(" s")?.parse().ok())
            .collect();
        assert!(times.len() >= drawn.len(), "{rel}");
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "{rel}: times go down the page in order"
        );
    }
}

#[test]
fn a_violation_is_red_with_its_invariant_ids_and_a_held_run_has_none() {
    let (events, cast, marks) = live("single-redis/kleppmann-gc-pause.toml");
    let text = svg(&events, &cast, &marks);
    let doc = parse("kleppmann-gc-pause", &text);
    let red = with_class(&doc, "violation");
    let marked: Vec<&TraceEvent> = events.iter().filter(|e| marks.contains(e.index)).collect();
    assert!(!marked.is_empty());
    assert_eq!(red.len(), marked.len(), "one red box per violating event");
    for (g, e) in red.iter().zip(&marked) {
        assert_eq!(fill(*g), VIOLATION_RGB);
        assert!(
            title(*g).starts_with(&format!("event #{} on {}", e.index, e.node)),
            "{}",
            title(*g)
        );
        let lines = texts(*g);
        assert!(lines.contains(&e.text), "{lines:?}");
        assert_eq!(
            lines.last().unwrap(),
            &format!("VIOLATES {}", marks.of(e.index).join(", "))
        );
    }
    assert!(texts(red[0]).last().unwrap().contains("stale_write"));

    let (events, cast, marks) = live("single-redis/kleppmann-gc-pause-fenced.toml");
    assert!(marks.is_empty());
    let text = svg(&events, &cast, &marks);
    let doc = parse("kleppmann-gc-pause-fenced", &text);
    assert!(with_class(&doc, "violation").is_empty());
    assert!(!text.contains("VIOLATES"));
    // Only the legend's swatch has the violation colour.
    assert_eq!(text.matches(VIOLATION_RGB).count(), 1);
    // The late write is refused, in amber.
    let amber = with_class(&doc, "refusal");
    assert!(!amber.is_empty());
    assert!(amber.iter().all(|g| fill(*g) == REFUSAL_RGB));
    assert!(
        amber.iter().any(|g| texts(*g)
            .iter()
            .any(|t| t.contains("REJECTED write from client-0 (token 1 < max "))),
        "{text}"
    );
}

#[test]
fn faults_are_told_apart() {
    // (scenario, fault class, words in its box)
    let cases = [
        (
            "single-redis/kleppmann-gc-pause-fenced.toml",
            "pause",
            "PAUSED for 15 s",
        ),
        ("redlock/clock-jump.toml", "clock", "wall clock JUMPS"),
        ("redlock/clock-jump.toml", "network", "PARTITION"),
        ("redlock/crash-restart-empty.toml", "crash", "CRASHED"),
        ("failover/failover-race.toml", "failover", "FAILOVER"),
    ];
    let mut fills = BTreeSet::new();
    for (rel, class, words) in cases {
        let (events, cast, marks) = live(rel);
        let text = svg(&events, &cast, &marks);
        let doc = parse(rel, &text);
        let boxes = with_class(&doc, class);
        let g = boxes
            .iter()
            .find(|g| texts(**g).iter().any(|t| t.contains(words)))
            .unwrap_or_else(|| panic!("{rel}: no {class} box with {words:?}"));
        assert!(g.attribute("class").unwrap().split(' ').any(|w| w == "fault"));
        fills.insert(fill(*g).to_string());
        let plain = with_class(&doc, "event")
            .into_iter()
            .find(|g| g.attribute("class") == Some("event"))
            .unwrap();
        assert_ne!(fill(*g), fill(plain), "{rel}: a {class} looks like any event");
    }
    assert_eq!(fills.len(), 5, "each kind of fault has its own colour: {fills:?}");

    // A paused node's lifeline is dotted while it is paused; a crashed one's is missing.
    let lifelines = |rel: &str| -> Vec<(String, Option<String>)> {
        let (events, cast, marks) = live(rel);
        let text = svg(&events, &cast, &marks);
        let doc = parse(rel, &text);
        with_class(&doc, "lifeline")
            .into_iter()
            .map(|l| {
                (
                    l.attribute("x1").unwrap().to_string(),
                    l.attribute("stroke-dasharray").map(str::to_string),
                )
            })
            .collect()
    };
    let paused = lifelines("single-redis/kleppmann-gc-pause-fenced.toml");
    assert_eq!(
        paused.iter().filter(|(_, dash)| dash.is_some()).count(),
        1,
        "{paused:?}"
    );
    let crashed = lifelines("redlock/crash-restart-empty.toml");
    assert!(crashed.iter().all(|(_, dash)| dash.is_none()));
    let mut xs: Vec<&String> = crashed.iter().map(|(x, _)| x).collect();
    xs.dedup();
    assert_eq!(
        crashed.len(),
        xs.len() + 1,
        "one lifeline broken by the crash: {crashed:?}"
    );
}

#[test]
fn rendering_is_deterministic() {
    let (a, cast_a, marks_a) = live("redlock/clock-jump.toml");
    let (b, cast_b, marks_b) = live("redlock/clock-jump.toml");
    for axis in [TimeAxis::Rows, TimeAxis::Proportional] {
        assert_eq!(svg_on(&a, &cast_a, &marks_a, axis), svg_on(&b, &cast_b, &marks_b, axis));
    }
}

/// The stroke of the first `<path>` under `node`.
fn stroke<'a>(node: Node<'a, '_>) -> &'a str {
    node.descendants()
        .find(|d| d.has_tag_name("path"))
        .and_then(|p| p.attribute("stroke"))
        .unwrap_or_default()
}

#[test]
fn a_dropped_message_has_its_own_colour_not_the_violations() {
    // Sentinel's failover race and Redlock's partition both lose messages, and both violate.
    for rel in ["failover/failover-race.toml", "redlock/clock-jump.toml"] {
        let (events, cast, marks) = live(rel);
        let text = svg(&events, &cast, &marks);
        let doc = parse(rel, &text);
        let dropped = with_class(&doc, "dropped");
        assert!(!dropped.is_empty(), "{rel}: a dropped message");
        let red = with_class(&doc, "violation");
        assert!(!red.is_empty(), "{rel}: a violation");
        let violation_ink: BTreeSet<&str> = red
            .iter()
            .flat_map(|g| {
                g.descendants()
                    .filter_map(|d| d.attribute("stroke").or(d.attribute("fill")))
            })
            .collect();
        for g in &dropped {
            let colour = stroke(*g);
            assert!(!violation_ink.contains(colour), "{rel}: a dropped message in {colour}");
            // Its label too, and it is one colour throughout.
            let label = g
                .descendants()
                .find(|d| d.has_tag_name("text") && d.text() != texts(*g).first().map(String::as_str));
            assert_eq!(label.and_then(|l| l.attribute("fill")), Some(colour), "{rel}");
        }
    }
}

#[test]
fn expiries_and_lease_ends_stand_out() {
    // (scenario, words in the box): a key expiring on a single Redis, an etcd lease expiring,
    // and the holder learning its lease is gone.
    let cases = [
        ("single-redis/kleppmann-gc-pause.toml", "lock key (lease caa5) EXPIRED"),
        ("etcd/holder-pause.toml", "LEASE 6552 EXPIRED"),
        ("etcd/holder-pause-fenced.toml", "LOCK LOST"),
    ];
    for (rel, words) in cases {
        let (events, cast, marks) = live(rel);
        let text = svg(&events, &cast, &marks);
        let doc = parse(rel, &text);
        let g = with_class(&doc, "expiry")
            .into_iter()
            .find(|g| texts(*g).iter().any(|t| t.contains(words)))
            .unwrap_or_else(|| panic!("{rel}: no expiry box with {words:?}"));
        let plain = with_class(&doc, "event")
            .into_iter()
            .find(|g| g.attribute("class") == Some("event"))
            .unwrap();
        assert_ne!(fill(g), fill(plain), "{rel}: an expiry looks like any event");
        // Unlike every fault, refusal and violation the legend names.
        let legend = with_class(&doc, "legend")[0];
        let swatches: Vec<(&str, String)> = legend
            .children()
            .filter(|c| c.is_element())
            .map(|c| (fill(c), texts(c).join("")))
            .collect();
        let own: Vec<&String> = swatches.iter().filter(|(f, _)| *f == fill(g)).map(|(_, l)| l).collect();
        assert_eq!(own, ["expiry, lease end"], "{rel}");
    }
}

#[test]
fn the_caption_says_which_run_it_draws_and_how_to_replay_it() {
    let scenario = "scenarios/single-redis/kleppmann-gc-pause.toml";
    let ran = common::locksim(&["run", scenario, "--seed", "3", "--view", "svg"]);
    assert!(common::stderr(&ran).is_empty(), "{}", common::stderr(&ran));
    let text = common::stdout(&ran);
    let doc = parse("kleppmann-gc-pause", &text);
    let caption = texts(with_class(&doc, "caption")[0]);
    assert_eq!(caption[0], "kleppmann-gc-pause, seed 3");
    assert!(
        caption[1].starts_with("client-0 pauses 15 s after reading"),
        "{caption:?}"
    );
    assert_eq!(
        caption.last().unwrap(),
        &format!("replay: locksim run {scenario} --seed 3")
    );
}

#[test]
fn a_proportional_axis_from_a_run_and_from_its_trace() {
    let dir = common::scratch_dir("render-svg-time");
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    let trace = dir.join("run.trace.json");
    let ran = common::locksim(&[
        "run",
        path_str(&scenario),
        "--trace",
        path_str(&trace),
        "--view",
        "svg",
        "--time-axis",
        "proportional",
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", common::stderr(&ran));
    let rendered = common::locksim(&[
        "render",
        path_str(&trace),
        "--view",
        "svg",
        "--time-axis",
        "proportional",
    ]);
    assert_eq!(rendered.status.code(), Some(0), "{}", common::stderr(&rendered));
    let text = common::stdout(&rendered);
    assert_eq!(text, common::stdout(&ran));
    let doc = parse("kleppmann-gc-pause", &text);
    // The quiet of client-0's 15 s pause, from its start (0.012 s) to the key's expiry (10.002 s),
    // folded into a marked break.
    let breaks: Vec<Vec<String>> = with_class(&doc, "break").into_iter().map(texts).collect();
    assert!(breaks.contains(&vec!["≈ 10.0 s quiet".to_string()]), "{breaks:?}");
    assert!(!with_class(&doc, "tick").is_empty());
    let rows = common::locksim(&["render", path_str(&trace), "--view", "svg"]);
    assert_ne!(common::stdout(&rows), text, "the default is one row after another");
    assert!(with_class(&parse("rows", &common::stdout(&rows)), "break").is_empty());
    // Refused for the views it does not apply to, before any work.
    for args in [
        vec!["run", path_str(&scenario), "--time-axis", "proportional"],
        vec![
            "run",
            path_str(&scenario),
            "--view",
            "mermaid",
            "--time-axis",
            "proportional",
        ],
        vec!["render", path_str(&trace), "--time-axis", "rows"],
        vec![
            "render",
            path_str(&trace),
            "--view",
            "text",
            "--time-axis",
            "proportional",
        ],
    ] {
        let o = common::locksim(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(common::stdout(&o).is_empty(), "{args:?}");
        assert!(
            common::stderr(&o).contains("--time-axis applies to the svg view only"),
            "{args:?}: {}",
            common::stderr(&o)
        );
    }
    let o = common::locksim(&["render", path_str(&trace), "--view", "svg", "--time-axis", "log"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("proportional"), "{}", common::stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_trace_file_renders_exactly_as_the_live_run() {
    let dir = common::scratch_dir("render-svg");
    for rel in ["single-redis/kleppmann-gc-pause.toml", "etcd/holder-pause.toml"] {
        let scenario = common::scenario(rel);
        let trace = dir.join("run.trace.json");
        let ran = common::locksim(&[
            "run",
            path_str(&scenario),
            "--trace",
            path_str(&trace),
            "--render",
            "svg",
        ]);
        assert_eq!(ran.status.code(), Some(0), "{}", common::stderr(&ran));
        let rendered = common::locksim(&["render", path_str(&trace), "--format", "svg"]);
        assert_eq!(rendered.status.code(), Some(0), "{}", common::stderr(&rendered));
        assert!(common::stderr(&rendered).is_empty());
        let stdout = common::stdout(&rendered);
        assert_eq!(stdout, common::stdout(&ran), "{rel}");
        // And it is the library's picture of the same run, violations marked, its caption
        // naming the scenario file as the command did.
        let (events, cast, marks) = live(rel);
        let cast = cast.from_file(path_str(&scenario));
        assert_eq!(stdout, svg(&events, &cast, &marks), "{rel}");
        assert!(stdout.contains("VIOLATES stale_write"), "{rel}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
