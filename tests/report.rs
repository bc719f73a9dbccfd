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
