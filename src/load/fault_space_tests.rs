//! The loader's `[explore]` table: what it makes of a scenario's fault space, and the errors
//! it names (the key, the node, why).

use locksim_sim::NodeId;

use super::{LoadError, parse_with_space};
use crate::fault_space::{FaultKind, FaultSpace};

const BASE: &str = "name = \"s\"\n[protocol]\nkind = \"single-redis\"\nclients = 2\n";

fn space(explore: &str) -> Result<FaultSpace, LoadError> {
    parse_with_space("s.toml", &format!("{BASE}{explore}")).map(|(_, space)| space)
}

fn refused(explore: &str, key: &str, needles: &[&str]) {
    let e = space(explore).expect_err(explore);
    assert_eq!(e.key.as_deref(), Some(key), "{e}");
    for needle in needles {
        assert!(e.message.contains(needle), "{explore}: {needle:?} in {e}");
    }
}

#[test]
fn nodes_must_be_an_array() {
    refused(
        "[explore]\nfaults = [\"pause\"]\n[explore.pause]\nnodes = \"client-0\"\n",
        "explore.pause.nodes",
        &["array of node names", "a string"],
    );
    let ok = space("[explore]\nfaults = [\"pause\"]\n[explore.pause]\nnodes = [\"client-1\"]\n").expect("loads");
    assert_eq!(ok.kinds[&FaultKind::Pause].nodes, [NodeId(1)]);
}

#[test]
fn nodes_are_checked_by_the_rules_of_the_default_space() {
    let replicated = |explore: &str| parse_with_space("s.toml", &format!("{BASE}replicas = 1\n{explore}"));
    let e = replicated("[explore]\nfaults = [\"failover\"]\n[explore.failover]\nnodes = [\"client-0\"]\n")
        .expect_err("a client has no replica");
    assert_eq!(e.key.as_deref(), Some("explore.failover.nodes"), "{e}");
    assert!(
        e.message.contains("failover promotes a replica, and client-0 has none"),
        "{e}"
    );
    refused(
        "[explore]\nfaults = [\"delay\"]\n[explore.delay]\nnodes = [\"server-0\"]\n",
        "explore.delay.nodes",
        &["server-0", "is a server"],
    );
    refused(
        "[explore.pause]\nnodes = [\"client-0\", \"resource\"]\n",
        "explore.pause.nodes",
        &["resource", "reads no clock"],
    );
    let (_, ok) = replicated("[explore]\nfaults = [\"failover\"]\n[explore.failover]\nnodes = [\"server-0\"]\n")
        .expect("server-0 has a replica");
    assert_eq!(ok.kinds[&FaultKind::Failover].nodes.len(), 1);
    // Crashes strike anything, including the resource.
    space("[explore]\nfaults = [\"crash\"]\n[explore.crash]\nnodes = [\"resource\"]\n").expect("loads");
}

#[test]
fn a_kind_listed_twice_is_refused() {
    refused(
        "[explore]\nfaults = [\"pause\", \"crash\", \"pause\"]\n",
        "explore.faults",
        &["\"pause\" is listed twice"],
    );
}

#[test]
fn failover_has_no_magnitude() {
    let replicated =
        format!("{BASE}replicas = 1\n[explore]\nfaults = [\"failover\"]\n[explore.failover]\nmax_ms = 5000\n");
    let e = parse_with_space("s.toml", &replicated).expect_err("max_ms refused");
    assert_eq!(e.key.as_deref(), Some("explore.failover.max_ms"), "{e}");
    assert!(e.message.contains("no magnitude"), "{e}");
    assert_eq!(FaultKind::Failover.max_key(), "max_ms");
}

#[test]
fn fix_is_skipped_but_must_be_a_table() {
    let ok = space("[explore]\nfaults = [\"pause\"]\n[explore.fix.protocol]\nrenew = \"checked\"\nanything = 1\n")
        .expect("fix is not interpreted here");
    assert_eq!(ok.kinds.keys().collect::<Vec<_>>(), [&FaultKind::Pause]);
    space("[explore.fix]\nprotocol = { deadline_check = \"checked\" }\n").expect("an inline table is a table");
    refused(
        "[explore]\nfix = \"checked\"\n",
        "explore.fix",
        &["must be a table", "a string"],
    );
}
