//! The timeline `locksim run` selects from the stream, for every catalogue scenario and every
//! mode, is the one the whole trace gives — including where a violation, known only at the
//! end, fell where the first pass folded (the seed is then selected again).

mod common;

use locksim::load::load_file;
use locksim::render::{Marks, TimelineMode, selection};
use locksim::run_result::RunResult;
use locksim::timeline::{run_with_timeline, timeline};

#[test]
fn the_streamed_timeline_is_the_whole_traces() {
    let mut reselected = 0;
    for path in common::catalogue() {
        let loaded = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut events = Vec::new();
        let whole = RunResult::run_into(&loaded, None, &mut events);
        let marks = Marks::from_verdicts(&whole.outcome.verdicts);
        for mode in [
            TimelineMode::Compact,
            TimelineMode::Full,
            TimelineMode::All,
            TimelineMode::None,
        ] {
            let (streamed, lines) = run_with_timeline(&loaded, None, mode, &mut ());
            assert_eq!(streamed.trace_sha256, whole.trace_sha256);
            let expected = timeline(&selection(&events, &marks, mode), &marks);
            assert_eq!(lines, expected, "{} {mode:?}", path.display());
            if !selection(&events, &Marks::default(), mode).holds(&marks) {
                reselected += 1;
            }
        }
    }
    // The catalogue has violations the first pass folds: the second selection is exercised.
    assert!(reselected > 0);
}

/// With nothing needing a trace line, the count the text states is the trace's.
#[test]
fn an_untraced_run_counts_the_traces_events() {
    let loaded = load_file(&common::scenario("single-redis/kleppmann-gc-pause.toml")).unwrap();
    let traced = RunResult::run(&loaded, None);
    let untraced = RunResult::untraced(&loaded, None);
    assert_eq!(untraced.outcome.events, traced.outcome.events);
    assert!(untraced.outcome.events > 0);
    assert_eq!(untraced.trace_sha256, None);
    assert_eq!(
        format!("{:?}", untraced.outcome.verdicts),
        format!("{:?}", traced.outcome.verdicts)
    );
}
