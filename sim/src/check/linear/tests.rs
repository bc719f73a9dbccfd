use super::*;

type R = Register<i64>;
type Rop = Op<RegisterIn<i64>, RegisterOut<i64>>;

fn write(process: u64, call: u64, ret: u64, v: i64) -> Rop {
    Op {
        process,
        call,
        end: Some((ret, RegisterOut::Written)),
        input: RegisterIn::Write(v),
    }
}

fn read(process: u64, call: u64, ret: u64, v: Option<i64>) -> Rop {
    Op {
        process,
        call,
        end: Some((ret, RegisterOut::Read(v))),
        input: RegisterIn::Read,
    }
}

fn cas(process: u64, call: u64, end: Option<(u64, bool)>, from: i64, to: i64) -> Rop {
    Op {
        process,
        call,
        end: end.map(|(t, ok)| (t, RegisterOut::Cas(ok))),
        input: RegisterIn::Cas { from, to },
    }
}

fn pending_write(process: u64, call: u64, v: i64) -> Rop {
    Op {
        process,
        call,
        end: None,
        input: RegisterIn::Write(v),
    }
}

fn verdict(history: &[Rop]) -> Outcome {
    check(&R::new(), history, DEFAULT_MAX_STEPS)
}

fn unexplained(history: &[Rop]) -> usize {
    match verdict(history) {
        Outcome::Unexplained(u) => u.op,
        other => panic!("expected no linearization, got {other:?}"),
    }
}

// Porcupine's TestRegisterModel (porcupine_test.go), from MIT 6.824's 2017 quiz 2, section VII
// (http://nil.csail.mit.edu/6.824/2017/quizzes/q2-17-ans.pdf). Porcupine's register starts at
// 0; ours at "never written", so its initial 0 is `None` here.
#[test]
fn porcupine_quiz_history_with_a_read_overlapping_the_write_is_linearizable() {
    let h = [write(0, 0, 100, 100), read(1, 25, 75, Some(100)), read(2, 30, 60, None)];
    assert_eq!(verdict(&h), Outcome::Linearizable { ops: 3, keys: 1 });
}

#[test]
fn porcupine_quiz_history_reading_old_after_new_is_not_and_names_the_old_read() {
    // Client 1 read 200 and returned at 30; client 2 began at 40 and read the initial value.
    let h = [write(0, 0, 100, 200), read(1, 10, 30, Some(200)), read(2, 40, 90, None)];
    assert_eq!(unexplained(&h), 2);
}

#[test]
fn a_read_after_a_completed_write_that_returns_the_value_before_it_is_stale() {
    let h = [write(0, 0, 10, 1), write(0, 20, 30, 2), read(1, 40, 50, Some(1))];
    assert_eq!(verdict(&h), Outcome::Unexplained(Unexplained { op: 2, explained: 2 }));
    // The same read begun before the second write completed may be ordered before it.
    let h = [write(0, 0, 10, 1), write(0, 20, 30, 2), read(1, 25, 50, Some(1))];
    assert!(matches!(verdict(&h), Outcome::Linearizable { .. }));
}

#[test]
fn a_value_never_written_is_never_explained() {
    let h = [write(0, 0, 10, 1), read(1, 5, 15, Some(7))];
    assert_eq!(unexplained(&h), 1);
}

#[test]
fn a_write_that_never_returned_may_take_effect_late_or_never() {
    // Seen by a read long after its call...
    let seen = [pending_write(0, 0, 5), read(1, 100, 110, Some(5))];
    assert!(matches!(verdict(&seen), Outcome::Linearizable { .. }));
    // ...or never seen at all.
    let unseen = [pending_write(0, 0, 5), read(1, 100, 110, None)];
    assert!(matches!(verdict(&unseen), Outcome::Linearizable { .. }));
    // But not seen and then unseen: once read, it took effect.
    let flicker = [
        pending_write(0, 0, 5),
        read(1, 100, 110, Some(5)),
        read(1, 120, 130, None),
    ];
    assert_eq!(unexplained(&flicker), 2);
}

#[test]
fn compare_and_set_succeeds_only_on_the_value_it_names() {
    let ok = [
        write(0, 0, 10, 1),
        cas(1, 20, Some((30, true)), 1, 2),
        read(2, 40, 50, Some(2)),
    ];
    assert!(matches!(verdict(&ok), Outcome::Linearizable { .. }));
    let lost = [write(0, 0, 10, 1), cas(1, 20, Some((30, false)), 1, 2)];
    assert_eq!(unexplained(&lost), 1);
    // Two clients both win a cas from 1: only one can have.
    let both = [
        write(0, 0, 10, 1),
        cas(1, 20, Some((30, true)), 1, 2),
        cas(2, 20, Some((30, true)), 1, 3),
    ];
    assert!(matches!(verdict(&both), Outcome::Unexplained(_)));
    // An unknown cas decides by the state it meets.
    let unknown = [write(0, 0, 10, 1), cas(1, 20, None, 1, 2), read(2, 40, 50, Some(2))];
    assert!(matches!(verdict(&unknown), Outcome::Linearizable { .. }));
}

#[test]
fn touching_operations_overlap() {
    // The read's call is at the write's return: either order is allowed.
    let h = [write(0, 0, 10, 1), read(1, 10, 20, None)];
    assert!(matches!(verdict(&h), Outcome::Linearizable { .. }));
}

#[test]
fn the_unexplained_op_is_the_first_completion_no_order_explains() {
    // Reads 0..3 are fine; read 4 sees a value overwritten before it began; the later bad
    // read 5 is not what is named.
    let h = [
        write(0, 0, 10, 1),
        read(1, 11, 12, Some(1)),
        write(0, 20, 30, 2),
        read(1, 31, 32, Some(2)),
        read(2, 40, 45, Some(1)),
        read(1, 50, 55, Some(9)),
    ];
    assert_eq!(verdict(&h), Outcome::Unexplained(Unexplained { op: 4, explained: 4 }));
}

#[test]
fn keys_are_checked_alone_and_the_earliest_failure_over_all_keys_is_named() {
    let kv = Keyed::<&str, R>::new(R::new());
    let on = |key: &'static str, op: Rop| Op {
        process: op.process,
        call: op.call,
        end: op.end,
        input: (key, op.input),
    };
    let h = [
        on("a", write(0, 0, 10, 1)),
        on("b", write(1, 0, 10, 1)),
        on("b", read(2, 20, 30, None)),
        on("a", read(2, 12, 15, None)),
    ];
    // Key a fails at 15, key b at 30: the earlier is named.
    assert_eq!(
        check(&kv, &h, DEFAULT_MAX_STEPS),
        Outcome::Unexplained(Unexplained { op: 3, explained: 1 })
    );
    let ok = [on("a", write(0, 0, 10, 1)), on("b", read(1, 20, 30, None))];
    assert_eq!(
        check(&kv, &ok, DEFAULT_MAX_STEPS),
        Outcome::Linearizable { ops: 2, keys: 2 }
    );
}

#[test]
fn a_search_past_its_step_budget_is_undecided_not_judged() {
    let h: Vec<Rop> = (0..20).map(|i| write(i, 0, 100, i as i64)).collect();
    assert_eq!(check(&R::new(), &h, 5), Outcome::Undecided { steps: 5 });
    assert!(matches!(
        check(&R::new(), &h, DEFAULT_MAX_STEPS),
        Outcome::Linearizable { .. }
    ));
}

#[test]
fn memoization_keeps_many_concurrent_writes_tractable() {
    // 12 concurrent writes, then a read of the first: the search has to find an order ending
    // in write 0. Without memoizing (placed set, state) that can be 12! = 479,001,600 orders;
    // with it, at most 2^12 sets x 13 states.
    let mut h: Vec<Rop> = (0..12).map(|i| write(i, 0, 100, i as i64)).collect();
    h.push(read(99, 200, 210, Some(0)));
    assert!(matches!(check(&R::new(), &h, 200_000), Outcome::Linearizable { .. }));
}
