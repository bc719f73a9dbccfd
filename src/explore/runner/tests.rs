//! The runner's findings: the same whatever the threads, stopping after the first failing
//! seed, shards, and a hunt for one invariant.

use super::*;
use crate::load::parse_with_space;
use locksim_protocols::lock::check::{LIVENESS, MUTUAL_EXCLUSION, STALE_WRITE};

/// Kleppmann's GC pause without its pause, explored under pauses and partitions.
fn gc_pause() -> (Scenario, FaultSpace) {
    let text = include_str!("../../../scenarios/single-redis/kleppmann-gc-pause.toml");
    let base = text.split("[[fault]]").next().expect("text before the fault");
    parse_with_space(
        "gc.toml",
        &format!("{base}[explore]\nfaults = [\"pause\", \"partition\"]\n"),
    )
    .expect("loads")
}

fn opts(seeds: u64, jobs: usize, shard: (u64, u64), keep_going: bool) -> Options {
    Options {
        seeds,
        jobs,
        shard,
        keep_going,
        target: None,
    }
}

#[test]
fn shard_seeds_are_computed_not_listed() {
    for seeds in 0..30 {
        for n in 1..7 {
            for k in 0..n {
                let o = opts(seeds, 1, (k, n), false);
                let listed: Vec<u64> = (0..seeds).filter(|s| s % n == k).collect();
                assert_eq!(shard_len(&o), listed.len() as u64, "{seeds} seeds, shard {k}/{n}");
                let computed: Vec<u64> = (0..shard_len(&o))
                    .map(|i| shard_seed(&o, i).expect("in the shard"))
                    .collect();
                assert_eq!(computed, listed);
                assert_eq!(shard_seed(&o, shard_len(&o)), None);
            }
        }
    }
    let huge = opts(u64::MAX, 1, (7, 10), false);
    assert_eq!(shard_len(&huge), (u64::MAX - 8) / 10 + 1);
    assert_eq!(shard_seed(&huge, shard_len(&huge) - 1), Some(u64::MAX - 8));
    assert_eq!(shard_seed(&huge, shard_len(&huge)), None);
    assert_eq!(shard_seed(&huge, u64::MAX), None, "K + i * N overflows: no seed");
    assert_eq!(shard_len(&opts(5, 1, (7, 10), false)), 0);
}

#[test]
fn a_huge_seed_count_stops_at_the_first_failing_seed() {
    let (base, space) = gc_pause();
    let summary = explore(&base, &space, &opts(u64::MAX, 4, (0, 1), false), &Progress::default());
    let first = summary.first.as_ref().expect("the GC pause is found");
    assert_eq!(
        summary.explored,
        first.seed + 1,
        "every seed up to the first failing one, none after"
    );
}

#[test]
fn findings_do_not_depend_on_threads() {
    let (base, space) = gc_pause();
    for (keep_going, target) in [(false, None), (false, Some(STALE_WRITE)), (true, None)] {
        let with = |jobs| Options {
            target,
            ..opts(120, jobs, (0, 1), keep_going)
        };
        let one = explore(&base, &space, &with(1), &Progress::default());
        let first = one.first.as_ref().expect("a failing seed").seed;
        let explored = if keep_going { 120 } else { first + 1 };
        assert_eq!(one.explored, explored, "{target:?}");
        for jobs in [2, 3, 8, 500] {
            let many = explore(&base, &space, &with(jobs), &Progress::default());
            assert_eq!(many, one, "{jobs} jobs, keep_going {keep_going}, target {target:?}");
        }
    }
}

#[test]
fn threads_that_wait_for_a_lower_seed_find_the_same() {
    let (base, space) = gc_pause();
    let target = Options {
        target: Some(STALE_WRITE),
        ..opts(120, 1, (0, 1), false)
    };
    let one = explore(&base, &space, &target, &Progress::default());
    for pending_max in [1, 2] {
        let capped = explore_capped(
            &base,
            &space,
            &Options {
                jobs: 4,
                ..target.clone()
            },
            &Progress::default(),
            pending_max,
        );
        assert_eq!(capped, one, "at most {pending_max} seeds kept aside");
    }
}
#[test]
fn findings_come_in_the_models_declared_order_with_undeclared_invariants_last() {
    let own = Invariant::new("users_own", "an invariant no registered model declares");
    let by_id = [LIVENESS, MUTUAL_EXCLUSION, STALE_WRITE, own];
    assert!(by_id.windows(2).all(|w| w[0] < w[1]), "the totals' order");
    assert_eq!(
        in_declared_order(by_id, |i| *i),
        [MUTUAL_EXCLUSION, STALE_WRITE, LIVENESS, own]
    );
}
