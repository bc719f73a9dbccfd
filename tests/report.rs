//! The committed `reports/` is what `locksim report` generates: the matrix from the committed
//! bug catalogue with the CI budget, and the Redlock walkthrough from the scenarios it runs.
//! Regenerated here through the binary into a scratch folder and compared byte for byte. A
//! model, checker, explorer or renderer change that moves a cell, a verdict or a picture fails
//! this test until the report is regenerated (`locksim report --out reports/`) and the diff
//! reviewed.

mod common;

/// Every file `locksim report` writes.
const REPORTS: [&str; 4] = ["matrix.md", "matrix.json", "redlock-debate.md", "redlock-debate.html"];

/// GitHub draws a Mermaid block only up to Mermaid's default `maxTextSize`.
const MERMAID_MAX_TEXT: usize = 50_000;

#[test]
fn the_committed_report_is_what_the_catalogue_generates() {
    let scratch = common::scratch_dir("report");
    let out = common::locksim(&["report", "--out", scratch.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for name in REPORTS {
        let committed = std::fs::read_to_string(common::root().join("reports").join(name))
            .unwrap_or_else(|e| panic!("reports/{name}: {e}"));
        let generated = std::fs::read_to_string(scratch.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        if committed != generated {
            let first = committed
                .lines()
                .zip(generated.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| committed.lines().count().min(generated.lines().count()));
            panic!(
                "reports/{name} is stale (first difference at line {}):\n  committed: {}\n  generated: {}\n\
                 regenerate with `locksim report --out reports/` and review the diff",
                first + 1,
                committed.lines().nth(first).unwrap_or("<end>"),
                generated.lines().nth(first).unwrap_or("<end>"),
            );
        }
    }
}

#[test]
fn a_report_of_an_empty_catalogue_is_a_clear_error() {
    let scratch = common::scratch_dir("report-empty");
    let empty = scratch.join("catalogue");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = common::locksim(&[
        "report",
        "--out",
        scratch.join("out").to_str().expect("utf-8 path"),
        "--catalogue",
        empty.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("catalogue"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!scratch.join("out/matrix.md").exists(), "nothing half-written");
}

/// A configuration whose runs stall has no answer under any fault kind: the report says which
/// cell and why (exit 2) and writes nothing, rather than a matrix whose "-" would read as
/// "nothing violated".
#[test]
fn a_cell_whose_seeds_stop_short_is_an_error_not_a_dash() {
    let scratch = common::scratch_dir("report-stalled");
    let catalogue = scratch.join("catalogue");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&catalogue).expect("mkdir");
    common::write_whole(
        &catalogue.join("spin.toml"),
        "name = \"spin\"\nduration_ms = 1000\n[protocol]\nkind = \"single-redis\"\nwork_ms = 0\nthink_ms = 0\n\
         [network]\nlatency_min_ms = 0\nlatency_max_ms = 0\n[explore]\nfaults = [\"pause\"]\n\
         [expect]\nmutual_exclusion = \"held\"\n",
    );
    let out = common::locksim(&[
        "report",
        "--seeds",
        "2",
        "--out",
        scratch.join("out").to_str().expect("utf-8 path"),
        "--catalogue",
        catalogue.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("spin under pause faults: seed 0 stopped short") && err.contains("stopped advancing"),
        "{err}"
    );
    assert!(!scratch.join("out/matrix.md").exists(), "nothing half-written");
}

/// The walkthrough's page is one file that loads nothing: no script, no style sheet, no image
/// or font fetched (links to the posts are fine: the reader follows them or not).
#[test]
fn the_walkthrough_page_loads_nothing() {
    let page = std::fs::read_to_string(common::root().join("reports/redlock-debate.html")).expect("the page");
    for fetch in ["<script", "<link", "<img", "<iframe", " src=", "url(http", "@import"] {
        assert!(!page.contains(fetch), "reports/redlock-debate.html contains `{fetch}`");
    }
    assert!(page.contains("<svg"), "the pictures are inline");
}

/// Each picture of the Markdown walkthrough is a Mermaid block GitHub will draw.
#[test]
fn the_walkthrough_pictures_are_small_enough_for_github() {
    let md = std::fs::read_to_string(common::root().join("reports/redlock-debate.md")).expect("the walkthrough");
    let blocks: Vec<&str> = md
        .split("```mermaid\n")
        .skip(1)
        .map(|rest| rest.split("\n```").next().expect("a closed block"))
        .collect();
    assert!(!blocks.is_empty(), "the walkthrough has pictures");
    for block in blocks {
        assert!(
            block.chars().count() <= MERMAID_MAX_TEXT,
            "a Mermaid block of {} characters: GitHub will not draw it",
            block.chars().count()
        );
    }
}

/// A scenario folder without the stories the walkthrough cites is a clear error naming the
/// file, and nothing is written.
#[test]
fn a_walkthrough_without_its_scenarios_is_a_clear_error() {
    let scratch = common::scratch_dir("report-no-scenarios");
    let empty = scratch.join("scenarios");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let out = common::locksim(&[
        "report",
        "--out",
        scratch.join("out").to_str().expect("utf-8 path"),
        "--scenarios",
        empty.to_str().expect("utf-8 path"),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("single-redis/kleppmann-gc-pause.toml") && err.contains("cannot read the scenario file"),
        "{err}"
    );
    assert!(!scratch.join("out/redlock-debate.md").exists(), "nothing half-written");
    assert!(!scratch.join("out/matrix.md").exists(), "nothing half-written");
}
