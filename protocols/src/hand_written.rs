//! Test support for a model whose facts write their trace members and timeline texts by hand
//! (`Observation::write_members`, `describe_into`, `write_line_after_stamp`): the two checks
//! every such model makes, in one place, so each model's tests list only its facts.

use std::collections::BTreeSet;

use locksim_sim::trace::{LineWriter, erase_event};
use locksim_sim::{Event, Names, NodeId, Observation, What};

/// Every kind of `kinds` occurs among `facts`, and each fact's trace line, written through the
/// model's own members (or its own line past the stamp, `write_line_after_stamp`), is byte for
/// byte the line the serde path writes.
pub(crate) fn members_match_serde<O: Observation>(facts: Vec<O>, kinds: &[&str], names: &[&str]) {
    let seen: BTreeSet<&str> = facts.iter().map(Observation::kind).collect();
    assert_eq!(seen, kinds.iter().copied().collect(), "every fact");
    let names = Names::new(names.iter().map(|n| n.to_string()).collect());
    let mut lines = LineWriter::default();
    for (index, fact) in facts.into_iter().enumerate() {
        let e: Event<&str, O> = Event {
            t_ns: 1,
            node: NodeId(0),
            wall_ns: 2,
            mono_ns: 3,
            what: What::Observe(fact),
        };
        assert_eq!(lines.write(&names, index, &e).0, erase_event(&names, index, &e).json);
    }
}

/// Each fact's timeline text is the one recorded in `texts` (one line per fact, in order: what
/// `format!` wrote before the texts were written piece by piece), and the same when a trace
/// line takes it in place.
pub(crate) fn texts_match_recorded<O: Observation>(facts: &[O], texts: &str, names: &[&str]) {
    let names = Names::new(names.iter().map(|n| n.to_string()).collect());
    let texts: Vec<&str> = texts.lines().collect();
    assert_eq!(facts.len(), texts.len());
    for (fact, text) in facts.iter().zip(texts) {
        assert_eq!(fact.describe(&names), text, "{fact:?}");
        let mut line = String::from("{\"text\":\"");
        fact.describe_into(&names, &mut line);
        assert_eq!(line, format!("{{\"text\":\"{text}"));
    }
}
