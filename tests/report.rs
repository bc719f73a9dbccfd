//! The committed matrix in `reports/` is what `locksim report` generates from the committed
//! bug catalogue with the CI budget: regenerated here through the binary into a scratch folder
//! and compared byte for byte. A model, checker or explorer change that moves a cell fails this
//! test until the report is regenerated (`locksim report --out reports/`) and the diff reviewed.

mod common;

#[test]
fn the_committed_report_is_what_the_catalogue_generates() {
    let scratch = common::scratch_dir("report");
    let out = common::locksim(&["report", "--out", scratch.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    for name in ["matrix.md", "matrix.json"] {
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
