//! The insta recipe: your own scenarios' verdicts and compact timelines pinned as snapshots,
//! so that a change of a scenario, of your lock's configuration or of locksim shows up in
//! review as a diff of the story a reader sees, not as a silent change of a verdict.
//!
//! In your own crate: `locksim` and `insta` as dev-dependencies, this file as
//! `tests/scenario_snapshots.rs`, `SCENARIOS` set to your folder (`"scenarios"`). Accept new or
//! changed snapshots with `cargo insta review`, or `INSTA_UPDATE=always cargo test --test
//! scenario_snapshots`; in CI (`CI=true`) a snapshot that differs fails the test. Here, in
//! locksim's repository, it runs as one of locksim's tests on `examples/ci/scenarios/`.

use std::path::{Path, PathBuf};

use locksim::load::load_file;
use locksim::timeline::{TimelineMode, render_run, run_with_timeline};

/// The scenario folder, relative to the crate's root (`cargo test` runs there).
const SCENARIOS: &str = "examples/ci/scenarios";

fn scenarios() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(SCENARIOS)
        .expect("the scenario folder is readable")
        .map(|e| e.expect("a folder entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenario in {SCENARIOS}");
    files
}

#[test]
fn every_scenario_meets_its_expectations_and_tells_its_pinned_story() {
    for path in scenarios() {
        // A relative path keeps the snapshot independent of where the checkout lives.
        let loaded = load_file(Path::new(&path)).unwrap_or_else(|e| panic!("{e}"));
        let (result, timeline) = run_with_timeline(&loaded, None, TimelineMode::Compact, &mut ());
        let story = render_run(&result, &timeline);
        assert!(result.as_expected(), "{story}");
        let name = path.file_stem().expect("a file name").to_string_lossy().into_owned();
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name, story);
        });
    }
}
