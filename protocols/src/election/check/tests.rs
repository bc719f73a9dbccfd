use locksim_sim::time::NS_PER_MS;
use locksim_sim::{History, Stats};

use super::*;
use crate::judge::judge_history;

const C0: NodeId = NodeId(0);
const C1: NodeId = NodeId(1);
const S0: NodeId = NodeId(2);
const S1: NodeId = NodeId(3);
const RES: NodeId = NodeId(4);

type ElectHistory = History<Msg, ElectObs>;

fn history(obs: Vec<(u64, NodeId, ElectObs)>) -> ElectHistory {
    History {
        names: Names::new(
            ["client-0", "client-1", "server-0", "server-1", "resource"]
                .map(String::from)
                .to_vec(),
        ),
        events: obs
            .into_iter()
            .map(|(ms, node, o)| Event {
                t_ns: ms * NS_PER_MS,
                node,
                wall_ns: (ms * NS_PER_MS) as i64,
                mono_ns: ms * NS_PER_MS,
                what: What::Observe(o),
            })
            .collect(),
        clocks: vec![ClockTrack::default(); 5],
        end_ns: 10_000 * NS_PER_MS,
        stats: Stats::default(),
    }
}

fn verdicts(obs: Vec<(u64, NodeId, ElectObs)>) -> Vec<Status> {
    judge_history(ElectionJudge::default(), &history(obs))
        .into_iter()
        .map(|v| v.status)
        .collect()
}

fn write(ms: u64, c: NodeId, v: u64) -> (u64, NodeId, ElectObs) {
    (ms, c, ElectObs::Invoked { write: Some(v) })
}

fn read(ms: u64, c: NodeId) -> (u64, NodeId, ElectObs) {
    (ms, c, ElectObs::Invoked { write: None })
}

fn ret(ms: u64, c: NodeId, v: Option<u64>) -> (u64, NodeId, ElectObs) {
    (ms, c, ElectObs::Returned { value: v })
}

fn leader(ms: u64, s: NodeId, term: u64) -> (u64, NodeId, ElectObs) {
    (ms, s, ElectObs::BecameLeader { term })
}

fn act(ms: u64, leader: NodeId, term: u64) -> (u64, NodeId, ElectObs) {
    (ms, RES, ElectObs::ActAccepted { leader, term, seq: 1 })
}

#[test]
fn two_leaders_of_one_term_are_violated_at_the_second() {
    let v = verdicts(vec![leader(0, S0, 1), leader(5, S1, 2), leader(9, S0, 2)]);
    let Status::Violated(x) = &v[0] else { panic!("{v:?}") };
    assert_eq!(x.event, 2);
    assert_eq!(x.why, "server-0 became leader of term 2, which server-1 already leads");
    let v = verdicts(vec![leader(0, S0, 1), leader(5, S1, 2)]);
    assert_eq!(v[0], Status::Held("2 terms, each with one leader".into()));
}

#[test]
fn a_read_older_than_a_write_that_returned_before_it_began_is_violated_at_its_return() {
    let v = verdicts(vec![
        write(0, C0, 1),
        ret(10, C0, Some(1)),
        write(20, C0, 2),
        ret(30, C0, Some(2)),
        read(40, C1),
        ret(50, C1, Some(1)),
    ]);
    let Status::Violated(x) = &v[1] else { panic!("{v:?}") };
    assert_eq!(x.event, 5);
    assert!(x.why.starts_with("client-1's read 1 (invoked at 0.040 s"), "{}", x.why);
    assert!(
        x.why
            .ends_with("the last write to return before it began wrote 2 (client-0, at 0.030 s)"),
        "{}",
        x.why
    );
}

#[test]
fn a_read_concurrent_with_the_write_it_missed_is_linearizable() {
    let v = verdicts(vec![
        write(0, C0, 1),
        ret(10, C0, Some(1)),
        write(20, C0, 2),
        read(25, C1),
        ret(50, C1, Some(1)),
        ret(30, C0, Some(2)),
    ]);
    assert!(matches!(v[1], Status::Held(_)), "{v:?}");
}

#[test]
fn a_write_given_up_on_may_have_landed_and_an_unseen_one_is_left_out() {
    // client-0's write of 7 never returned, and client-1 read it: it took effect.
    let seen = verdicts(vec![
        write(0, C0, 7),
        (500, C0, ElectObs::GaveUp),
        read(600, C1),
        ret(610, C1, Some(7)),
    ]);
    assert_eq!(
        seen[1],
        Status::Held("2 register operations linearizable (1 with unknown outcome)".into())
    );
    // Nobody read 8: left out of the search, the history is the read alone.
    let unseen = verdicts(vec![
        write(0, C0, 8),
        (500, C0, ElectObs::GaveUp),
        read(600, C1),
        ret(610, C1, None),
    ]);
    assert_eq!(
        unseen[1],
        Status::Held("1 register operation linearizable (1 with unknown outcome)".into())
    );
    // A value nobody wrote is never explained.
    let made_up = verdicts(vec![read(600, C1), ret(610, C1, Some(9))]);
    assert!(matches!(made_up[1], Status::Violated(_)), "{made_up:?}");
}

#[test]
fn the_resource_accepting_an_older_term_after_a_newer_is_violated() {
    let v = verdicts(vec![act(0, S0, 1), act(10, S1, 2), act(20, S0, 1)]);
    let Status::Violated(x) = &v[2] else { panic!("{v:?}") };
    assert_eq!(x.event, 2);
    assert_eq!(
        x.why,
        "the resource accepted server-0's write as leader of term 1 after server-1's as leader of term 2"
    );
    let refused = verdicts(vec![
        act(0, S0, 1),
        act(10, S1, 2),
        (
            20,
            RES,
            ElectObs::ActRefused {
                leader: S0,
                term: 1,
                max: 2,
            },
        ),
    ]);
    assert_eq!(
        refused[2],
        Status::Held("2 writes accepted in term order, 1 stale write refused".into())
    );
    assert!(matches!(verdicts(vec![])[2], Status::NotApplicable(_)));
}
