//! `--view html` from the command line: the interactive viewer is one page, the same bytes from
//! a live run and from its trace file, under either flag name; a trace whose result it cannot
//! read is refused with the file and key named. The page's behaviour in a browser is
//! `tests/browser.rs`; its data, in `src/render/html/tests.rs`.

mod common;

use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn run_and_render_write_the_same_page_under_either_flag() {
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    let trace = common::scratch_dir("render-html").join("gc.trace.json");
    assert_eq!(common::run_writing_trace(&scenario, &trace).status.code(), Some(0));
    let pages: Vec<String> = [
        vec!["run", s(&scenario), "--view", "html"],
        vec!["run", s(&scenario), "--render", "html"],
        vec!["render", s(&trace), "--view", "html"],
        vec!["render", s(&trace), "--format", "html"],
    ]
    .iter()
    .map(|args| {
        let o = common::locksim(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", common::stderr(&o));
        common::stdout(&o)
    })
    .collect();
    assert!(pages.iter().all(|p| *p == pages[0]), "every way gives the same bytes");
    let page = &pages[0];
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<title>kleppmann-gc-pause (seed 1) — locksim</title>"));
    assert!(page.contains("\"seed\":1") && page.contains("client-0 pauses 15 s after reading"));
}

#[test]
fn a_result_it_cannot_read_is_refused_by_name() {
    let scenario = common::scenario("single-redis/kleppmann-gc-pause.toml");
    let dir = common::scratch_dir("render-html-bad");
    let trace = dir.join("gc.trace.json");
    assert_eq!(common::run_writing_trace(&scenario, &trace).status.code(), Some(0));
    let text = std::fs::read_to_string(&trace).unwrap();
    let bad = dir.join("bad.trace.json");
    std::fs::write(
        &bad,
        text.replace("\"held\",\"stale_write\":\"violated\"", "\"held\",\"stale_write\":7"),
    )
    .unwrap();
    let o = common::locksim(&["render", s(&bad), "--view", "html"]);
    assert_eq!(o.status.code(), Some(2));
    let err = common::stderr(&o);
    assert!(
        err.contains(s(&bad)) && err.contains("key `result.verdicts.stale_write`: must be a string"),
        "{err}"
    );
    assert!(common::stdout(&o).is_empty());
    // The other views do not read the verdicts map: they still draw the file.
    assert_eq!(
        common::locksim(&["render", s(&bad), "--view", "svg"]).status.code(),
        Some(0)
    );
}
