//! The trace viewer (`--view html`) in a real browser: headless Chromium driven through
//! `chromedriver` (WebDriver). The page is rendered from a trace file by the CLI, opened from
//! `file://`, stepped with real key presses, and every state it shows — the cursor's event, the
//! clocks of each node, the verdicts and their links, the filters — is compared with what the
//! trace file records, computed here from the trace itself.
//!
//! It also writes screenshots for review to `target/test-artifacts/screenshots/`: for three
//! catalogue stories, the SVG view at a 1,400 px wide window (the whole page) and the viewer
//! with its cursor just before the expiry (or the key's loss) and at the violation.
//!
//! Without Chromium and its driver (Debian: `apt-get install chromium chromium-driver`) the test
//! says it is skipped and passes — unless `LOCKSIM_REQUIRE_BROWSER` is set (and not `0`), as
//! `.ci/run` does: then it fails.

mod common;
#[path = "browser/webdriver.rs"]
mod webdriver;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use webdriver::{ARROW_LEFT, ARROW_RIGHT, Browser, END, HOME};

/// A catalogue scenario's trace (at its own seed) and its view, written by the CLI.
struct Rendered {
    trace: Value,
    view: PathBuf,
}

fn render(scenario: &str, view: &str, dir: &Path) -> Rendered {
    let stem = scenario.replace(['/', '.'], "-");
    let trace_path = dir.join(format!("{stem}.trace.json"));
    let exe = env!("CARGO_BIN_EXE_locksim");
    let run = Command::new(exe)
        .current_dir(common::root())
        .args(["run", &format!("scenarios/{scenario}"), "--trace"])
        .arg(&trace_path)
        .output()
        .expect("locksim runs");
    assert!(
        run.status.success(),
        "{scenario}: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let out = Command::new(exe)
        .args(["render", "--view", view])
        .arg(&trace_path)
        .output()
        .expect("locksim renders");
    assert!(
        out.status.success(),
        "{scenario}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view_path = dir.join(format!("{stem}.{view}"));
    std::fs::write(&view_path, &out.stdout).expect("the scratch folder is writable");
    let trace = serde_json::from_slice(&std::fs::read(&trace_path).expect("the trace")).expect("the trace is JSON");
    Rendered { trace, view: view_path }
}

/// `LOCKSIM_REQUIRE_BROWSER` set and not `0`: a missing Chromium fails the test.
fn browser_required() -> bool {
    std::env::var("LOCKSIM_REQUIRE_BROWSER").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says `line` on the real stderr, past the harness's capture, so a skip shows in `cargo test`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// A headless browser, or `None` (having said why) when Chromium is missing and not required.
fn browser(width: u32, height: u32) -> Option<Browser> {
    let Some((chromium, driver)) = webdriver::find() else {
        assert!(
            !browser_required(),
            "browser: chromium or chromedriver not found, and LOCKSIM_REQUIRE_BROWSER is set \
             (Debian: apt-get install chromium chromium-driver)"
        );
        say("browser: SKIPPED — chromium or chromedriver not found (Debian: apt-get install chromium chromium-driver)");
        return None;
    };
    Some(Browser::start(&chromium, &driver, width, height).unwrap_or_else(|e| panic!("browser: {e}")))
}

fn file_url(path: &Path) -> String {
    format!("file://{}", path.canonicalize().expect("the page exists").display())
}

/// The viewer's cursor: `#viewer`'s `data-cursor`.
fn cursor(b: &mut Browser) -> u64 {
    let got = b
        .eval("return document.getElementById('viewer').dataset.cursor")
        .expect("cursor");
    got.as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("data-cursor is {got}"))
}

/// Seconds with milliseconds, as the views print them (the trace's own unit is ns).
fn secs(ns: i64) -> String {
    let ms = ns.unsigned_abs() / 1_000_000;
    format!("{}{}.{:03}", if ns < 0 { "-" } else { "" }, ms / 1000, ms % 1000)
}

/// Checks that the cursor is on event `at` and that every node's clocks are those of its last
/// event at or before it, as the trace records them.
fn check_cursor(b: &mut Browser, events: &[Value], at: u64) {
    assert_eq!(cursor(b), at, "the cursor");
    let shown = b
        .eval("return [document.getElementById('cursor-event').dataset.eventIndex, document.getElementById('cursor-text').textContent]")
        .expect("the cursor panel");
    assert_eq!(shown[0], at.to_string(), "the cursor panel's event");
    assert_eq!(shown[1], events[at as usize]["text"], "the cursor panel's text");
    let mut nodes: Vec<&str> = events
        .iter()
        .filter_map(|e| e["node"].as_str())
        .filter(|n| *n != "network")
        .collect();
    nodes.dedup();
    nodes.sort_unstable();
    nodes.dedup();
    for node in nodes {
        let last = events[..=at as usize].iter().rev().find(|e| e["node"] == node);
        let row = b
            .eval(&format!(
                "const r = document.getElementById('clock-{node}'); \
                 return r && [r.dataset.wallNs || null, r.dataset.monoNs || null, r.dataset.asOf || null, \
                 r.children[1].textContent, r.children[2].textContent]"
            ))
            .expect("a clock row");
        match last {
            None => assert_eq!(row[2], Value::Null, "{node} has no event yet at {at}"),
            Some(e) => {
                let (wall, mono) = (e["wall_ns"].as_i64().unwrap(), e["mono_ns"].as_i64().unwrap());
                assert_eq!(row[0], wall.to_string(), "{node}'s wall clock at event {at}");
                assert_eq!(row[1], mono.to_string(), "{node}'s mono clock at event {at}");
                assert_eq!(
                    row[2],
                    e["i"].to_string(),
                    "{node}'s clocks are read from its last event"
                );
                assert_eq!(
                    (row[3].as_str(), row[4].as_str()),
                    (Some(secs(wall).as_str()), Some(secs(mono).as_str()))
                );
            }
        }
    }
}

#[test]
fn the_viewer_steps_shows_clocks_verdicts_and_filters_in_chromium() {
    let Some(mut b) = browser(1400, 1000) else { return };
    let dir = common::scratch_dir("browser");
    let page = render("single-redis/kleppmann-gc-pause.toml", "html", &dir);
    let events = page.trace["events"].as_array().expect("events").clone();
    b.open(&file_url(&page.view)).expect("the page opens");

    // Stepping with the keyboard.
    check_cursor(&mut b, &events, 0);
    b.press(&[ARROW_RIGHT; 30]).unwrap();
    check_cursor(&mut b, &events, 30);
    b.press(&[ARROW_LEFT; 5]).unwrap();
    check_cursor(&mut b, &events, 25);
    b.press(&[END]).unwrap();
    check_cursor(&mut b, &events, events.len() as u64 - 1);
    b.press(&[HOME]).unwrap();
    check_cursor(&mut b, &events, 0);

    // The verdict panel: one entry per invariant, with the trace's word; each violation a link.
    let verdicts = page.trace["result"]["verdicts"].as_object().expect("verdicts");
    let listed = b
        .eval("return [...document.querySelectorAll('#verdicts li')].map(li => [li.id, li.className])")
        .unwrap();
    let expected: Vec<Value> = verdicts
        .iter()
        .map(|(inv, word)| serde_json::json!([format!("verdict-{inv}"), format!("v-{}", word.as_str().unwrap())]))
        .collect();
    assert_eq!(listed, Value::Array(expected), "the verdict panel");
    let violations = page.trace["result"]["violations"].as_array().expect("violations");
    assert!(!violations.is_empty(), "gc-pause violates");
    for v in violations {
        let inv = v["invariant"].as_str().unwrap();
        b.press(&[HOME]).unwrap();
        b.click(&format!("#verdict-{inv} a.violation")).unwrap();
        check_cursor(&mut b, &events, v["event"].as_u64().unwrap());
    }

    // Clicking an event, in the list or on its lane, moves the cursor to it.
    b.click("#event-list div[data-event-index='30']").unwrap();
    check_cursor(&mut b, &events, 30);
    let marked = violations[0]["event"].as_u64().unwrap();
    b.click(&format!("#marks .tick[data-event-index='{marked}']")).unwrap();
    check_cursor(&mut b, &events, marked);

    // Zoom: + doubles, 0 fits.
    let width = "return Number(document.getElementById('lanes').getAttribute('width'))";
    let fit = b.eval(width).unwrap().as_f64().unwrap();
    b.press(&["+"]).unwrap();
    assert_eq!(
        b.eval("return document.getElementById('viewer').dataset.zoom").unwrap(),
        "2"
    );
    assert!(
        b.eval(width).unwrap().as_f64().unwrap() > 1.5 * fit,
        "zooming in widens the lanes"
    );
    b.press(&["0"]).unwrap();
    assert_eq!(b.eval(width).unwrap().as_f64().unwrap(), fit);

    // Filters: only salient events left, in the list, on the lanes and for the keys.
    b.click("#filter-chatter").unwrap();
    b.click("#filter-routine").unwrap();
    let salient: Vec<u64> = events
        .iter()
        .filter(|e| e["salience"] == "salient")
        .map(|e| e["i"].as_u64().unwrap())
        .collect();
    let visible = b
        .eval(
            "return [[...document.querySelectorAll('#event-list div:not([hidden])')].map(r => Number(r.dataset.eventIndex)), \
             document.querySelectorAll('#marks .tick:not([hidden])').length]",
        )
        .unwrap();
    assert_eq!(
        visible[0],
        serde_json::json!(salient),
        "the list shows only salient events"
    );
    assert_eq!(visible[1], salient.len(), "the lanes mark only salient events");
    b.press(&[HOME]).unwrap();
    check_cursor(&mut b, &events, salient[0]);
    b.press(&[ARROW_RIGHT]).unwrap();
    check_cursor(&mut b, &events, salient[1]);
    say(&format!(
        "browser: viewer of kleppmann-gc-pause checked in Chromium ({} events, {} bytes)",
        events.len(),
        std::fs::metadata(&page.view).map_or(0, |m| m.len())
    ));
}

/// Where the screenshots go: `target/test-artifacts/screenshots/`, beside the binary's target.
fn artifacts() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_locksim"));
    let target = exe.parent().and_then(Path::parent).expect("target/<profile>/locksim");
    let dir = target.join("test-artifacts/screenshots");
    std::fs::create_dir_all(&dir).expect("the target folder is writable");
    dir
}

/// The event the story turns on: a key that expired, or was lost with its server.
fn expiry(events: &[Value]) -> Option<u64> {
    events
        .iter()
        .find(|e| e["kind"] == "key_expired" || (e["kind"] == "key_deleted" && e["cause"] == "crash"))
        .and_then(|e| e["i"].as_u64())
}

#[test]
fn screenshots_of_three_stories() {
    let Some(mut b) = browser(1400, 1000) else { return };
    let dir = common::scratch_dir("browser-shots");
    let out = artifacts();
    for scenario in [
        "single-redis/kleppmann-gc-pause.toml",
        "redlock/clock-jump.toml",
        "failover/failover-race.toml",
    ] {
        let name = scenario.trim_end_matches(".toml").replace('/', "-");
        let svg = render(scenario, "svg", &dir);
        b.open(&file_url(&svg.view)).unwrap();
        let png = b.screenshot(true).unwrap();
        assert!(png.starts_with(b"\x89PNG"), "{name}: a PNG");
        std::fs::write(out.join(format!("{name}.svg.png")), png).unwrap();

        let html = render(scenario, "html", &dir);
        let events = html.trace["events"].as_array().unwrap().clone();
        let turn = expiry(&events).unwrap_or_else(|| panic!("{name}: no expiry in the trace"));
        // Zoomed (by a power of two) so the story, up to its last violation, fills the window.
        let last_t = events.last().and_then(|e| e["t_ns"].as_u64()).unwrap_or(1);
        let story_t = html.trace["result"]["violations"]
            .as_array()
            .and_then(|v| v.iter().filter_map(|x| x["t_ns"].as_u64()).max())
            .unwrap_or(last_t);
        let zoom = (last_t as f64 / (story_t as f64 * 1.3).max(1.0))
            .log2()
            .floor()
            .clamp(0.0, 10.0)
            .exp2();
        let url = format!("{}#event={}&zoom={zoom}", file_url(&html.view), turn.saturating_sub(1));
        b.open(&url).unwrap();
        check_cursor(&mut b, &events, turn.saturating_sub(1));
        std::fs::write(
            out.join(format!("{name}.html-before-expiry.png")),
            b.screenshot(false).unwrap(),
        )
        .unwrap();
        b.press(&[HOME]).unwrap();
        let first = html.trace["result"]["violations"]
            .as_array()
            .and_then(|v| v.iter().filter_map(|x| x["event"].as_u64()).min())
            .expect("a violation");
        b.click(&format!("#verdicts a.violation[data-event-index='{first}']"))
            .unwrap();
        check_cursor(&mut b, &events, first);
        std::fs::write(
            out.join(format!("{name}.html-violation.png")),
            b.screenshot(false).unwrap(),
        )
        .unwrap();
    }
    say(&format!("browser: screenshots in {}", out.display()));
}
