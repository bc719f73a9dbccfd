//! Regression snapshots: every catalogue scenario's verdicts and compact timeline, at its own
//! seed, pinned with `insta`. A behaviour change shows up as a reviewable diff of the story a
//! reader sees (`cargo insta review`, or `INSTA_UPDATE=always cargo test --test snapshots`).

mod common;

use locksim::load::load_file;
use locksim::timeline::{TimelineMode, render_run, run_with_timeline};

#[test]
fn every_catalogue_scenario_has_a_pinned_timeline() {
    let root = common::root();
    for path in common::catalogue() {
        let rel = path.strip_prefix(&root).unwrap();
        // Relative paths keep the snapshot independent of where the checkout lives.
        let loaded = load_file(rel).unwrap_or_else(|e| panic!("{e}"));
        let (report, timeline) = run_with_timeline(&loaded, None, TimelineMode::Compact, &mut ());
        let text = render_run(&report, &timeline);
        let name = rel.with_extension("").to_string_lossy().replace(['/', '\\'], "__");
        insta::with_settings!({ snapshot_path => root.join("tests/snapshots"), prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name, text);
        });
    }
}
