//! Every catalogue scenario's trace, pinned by its SHA-256 at seeds 1, 2, 3 and its own,
//! with its verdicts, and the SHA-256 of each of its views (full timeline, lanes, Mermaid, SVG)
//! at its own seed, and of the HTML viewer for two stories: a refactoring must leave every byte
//! of every trace and picture as it was.
//! The snapshots pin what a reader sees in the compact timeline; this pins the rest.
//!
//! After an intended behaviour change, rewrite the pins with
//! `LOCKSIM_UPDATE_PINS=1 cargo test --test trace_hashes` and review the diff.

mod common;

use locksim::load::load_file;
use locksim::render::{Cast, Marks, Page, html, lanes, mermaid, svg};
use locksim::run_result::RunResult;
use locksim::sim::trace::sha256_hex;
use locksim::timeline::{TimelineMode, render_run, run_with_timeline};

const PINS: &str = "tests/pins/trace_hashes.txt";

/// The scenarios whose `--view html` page is pinned too.
const HTML_PINNED: [&str; 2] = ["single-redis/kleppmann-gc-pause.toml", "redlock/clock-jump.toml"];

/// One line per (scenario, seed): path, seed, trace hash, and each verdict's word.
fn lines() -> Vec<String> {
    let root = common::root();
    let mut out = Vec::new();
    for path in common::catalogue() {
        let rel = path.strip_prefix(&root).unwrap();
        let loaded = load_file(rel).unwrap_or_else(|e| panic!("{e}"));
        let mut seeds = vec![loaded.scenario.seed, 1, 2, 3];
        seeds.sort_unstable();
        seeds.dedup();
        for seed in seeds {
            let report = RunResult::run(&loaded, Some(seed));
            let verdicts: Vec<String> = report
                .outcome
                .verdicts
                .iter()
                .map(|v| format!("{}={}", v.invariant, v.status.word()))
                .collect();
            out.push(format!(
                "{} {seed} {} {}",
                rel.display(),
                report.trace_sha256.as_deref().expect("a traced run is hashed"),
                verdicts.join(",")
            ));
        }
        let mut events = Vec::new();
        let (report, timeline) = run_with_timeline(&loaded, None, TimelineMode::All, &mut events);
        let events = &events;
        let marks = Marks::from_verdicts(&report.outcome.verdicts);
        let cast = Cast::of(&loaded.scenario);
        let views = [
            render_run(&report, &timeline),
            lanes(events, &marks),
            mermaid(events, &cast, &marks),
            svg(events, &cast, &marks),
        ];
        let hashes: Vec<String> = views
            .iter()
            .map(|v| sha256_hex([v.as_str()])[..16].to_string())
            .collect();
        out.push(format!("{} views {}", rel.display(), hashes.join(" ")));
        // The HTML viewer, pinned for the stories it was made for (its own line: the views
        // line above keeps its bytes).
        if HTML_PINNED.iter().any(|p| rel.ends_with(p)) {
            let s = &loaded.scenario;
            let page = Page::of_run(&s.name, &s.description, report.seed, &report.outcome.verdicts);
            let hash = sha256_hex([html(events, &cast, &page).as_str()]);
            out.push(format!("{} html {}", rel.display(), &hash[..16]));
        }
    }
    out
}

#[test]
fn every_catalogue_trace_is_byte_identical_to_its_pin() {
    let root = common::root();
    let got = lines();
    let text = got.join("\n") + "\n";
    if std::env::var_os("LOCKSIM_UPDATE_PINS").is_some() {
        std::fs::write(root.join(PINS), &text).expect("the pins file is writable");
        return;
    }
    let pinned = std::fs::read_to_string(root.join(PINS)).expect("tests/pins/trace_hashes.txt exists");
    let pinned: Vec<&str> = pinned.lines().collect();
    let differing: Vec<String> = got
        .iter()
        .zip(&pinned)
        .filter(|(g, p)| g != p)
        .map(|(g, p)| format!("  pinned: {p}\n  now:    {g}"))
        .collect();
    assert!(
        differing.is_empty() && got.len() == pinned.len(),
        "{} of {} traces differ from their pins ({} pinned):\n{}",
        differing.len(),
        got.len(),
        pinned.len(),
        differing.join("\n")
    );
}
