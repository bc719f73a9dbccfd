//! A plan as a scenario file: the original file edited in place (with `toml_edit`, so its
//! comments, layout, inline tables and every table and key it has stay as written) — the name,
//! seed and description set, the candidate's clients and servers counts set in `[protocol]`,
//! its `[[fault]]` and `[[clock]]` entries replaced by the plan's, and `[expect]` replaced by
//! the violation — so `locksim run` on the file replays the finding, and copying the file into
//! `scenarios/` makes it a regression test.

use locksim_protocols::Scenario;
use locksim_sim::{ClockSpec, Invariant, Names, NodeId};
use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, TableLike, Value};

use super::plan::{Plan, fault_toml};

const MS: i64 = 1_000_000;

/// What a candidate changes besides its plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub clients: Option<u64>,
    pub servers: Option<u64>,
}

/// What the written file says it is: the base's description no longer matches its plan.
pub fn description(base: &Scenario, seed: u64, expect: &[Invariant]) -> String {
    let ids: Vec<&str> = expect.iter().map(|i| i.id()).collect();
    let mut out = format!(
        "Minimal counterexample of {} found by locksim explore in {} (seed {seed})",
        ids.join(", "),
        base.name
    );
    if !base.description.trim().is_empty() {
        out.push_str(&format!("; originally: {}", base.description.trim()));
    }
    out
}

/// Sets `key` in `table` to `value`, keeping the key's own comments (a comment block above it)
/// but not a comment after the old value, which described that value.
fn set(table: &mut dyn TableLike, key: &str, value: impl Into<Value>) {
    let value = Item::Value(value.into());
    match table.get_mut(key) {
        Some(item) => *item = value,
        None => {
            table.insert(key, value);
        }
    }
}

/// A TOML integer: every count and seed written here came from a scenario file, whose
/// integers are `i64`.
fn int(n: u64, what: &str) -> i64 {
    i64::try_from(n).unwrap_or_else(|_| panic!("{what} {n} does not fit a TOML integer"))
}

/// The `[[clock]]` tables of `plan` on `base`: one per node whose clock is not exact, with its
/// effective offset and rate (the base's clock jumps are in the plan's faults already, so none
/// is written here twice).
fn clocks(base: &Scenario, names: &Names, plan: &Plan) -> ArrayOfTables {
    let mut nodes: Vec<NodeId> = base.clocks.iter().map(|(n, _)| *n).collect();
    nodes.extend(plan.drifts.iter().map(|(n, _)| *n));
    nodes.sort();
    nodes.dedup();
    let mut out = ArrayOfTables::new();
    for node in nodes {
        let clock = plan.clock(node, base.clock_of(node));
        if clock == ClockSpec::default() {
            continue;
        }
        let mut table = Table::new();
        table.insert("node", toml_edit::value(names.of(node)));
        if clock.offset_ns != 0 {
            table.insert("offset_ms", toml_edit::value(clock.offset_ns / MS));
        }
        if clock.drift_ppm != 0 {
            table.insert("drift_ppm", toml_edit::value(i64::from(clock.drift_ppm)));
        }
        out.push(table);
    }
    out
}

/// The plan's faults as `[[fault]]` tables, written by [`fault_toml`] (the one place that
/// knows how a fault entry reads in a file).
fn faults(plan: &Plan, names: &Names) -> ArrayOfTables {
    let mut out = ArrayOfTables::new();
    for entry in &plan.faults {
        let text = fault_toml(entry, names);
        let doc: DocumentMut = text
            .parse()
            .unwrap_or_else(|e| panic!("fault_toml writes TOML, not {text:?}: {e}"));
        let table = doc
            .get("fault")
            .and_then(Item::as_array_of_tables)
            .and_then(|a| a.get(0))
            .unwrap_or_else(|| panic!("fault_toml writes one [[fault]] table, not {text:?}"));
        let mut table = table.clone();
        table.decor_mut().clear();
        out.push(table);
    }
    out
}

/// How far apart [`spread`] puts the tables' positions: room for three new ones before each.
const SPREAD: isize = 4;

/// Multiplies the position of every table header by [`SPREAD`].
fn spread(table: &mut Table) {
    if let Some(at) = table.position() {
        table.set_position(Some(at * SPREAD));
    }
    for (_, item) in table.iter_mut() {
        match item {
            Item::Table(t) => spread(t),
            Item::ArrayOfTables(a) => a.iter_mut().for_each(spread),
            _ => {}
        }
    }
}

/// Where a table (or the first of an array of tables, or of a table's sub-tables) stands.
fn first_position(item: &Item) -> Option<isize> {
    match item {
        Item::Table(t) => t
            .position()
            .or_else(|| t.iter().filter_map(|(_, i)| first_position(i)).min()),
        Item::ArrayOfTables(a) => a.iter().filter_map(Table::position).min(),
        _ => None,
    }
}

/// The last position of any table in `table`.
fn last_position(table: &Table) -> isize {
    let own = table.position().unwrap_or(0);
    table
        .iter()
        .map(|(_, item)| match item {
            Item::Table(t) => last_position(t),
            Item::ArrayOfTables(a) => a.iter().map(last_position).max().unwrap_or(0),
            _ => 0,
        })
        .fold(own, isize::max)
}

/// The scenario file for `plan` on `base` (whose text is `source`), run with `seed`.
///
/// Panics if `source` is not TOML: it is the text `base` was loaded from.
#[allow(clippy::too_many_arguments)]
pub fn scenario_text(
    header: &str,
    name: &str,
    base: &Scenario,
    source: &str,
    names: &Names,
    plan: &Plan,
    overrides: &Overrides,
    seed: u64,
    expect: &[Invariant],
) -> String {
    let mut doc: DocumentMut = source
        .parse()
        .unwrap_or_else(|e| panic!("the source of {} is the TOML it was loaded from: {e}", base.name));
    let root = doc.as_table_mut();
    set(root, "name", name);
    set(root, "description", description(base, seed, expect));
    set(root, "seed", int(seed, "seed"));
    if *overrides != Overrides::default() {
        let protocol = root
            .get_mut("protocol")
            .and_then(Item::as_table_like_mut)
            .unwrap_or_else(|| panic!("{} loaded, so it has a [protocol] table", base.name));
        if let Some(c) = overrides.clients {
            set(protocol, "clients", int(c, "clients"));
        }
        if let Some(s) = overrides.servers {
            set(protocol, "servers", int(s, "servers"));
        }
    }
    // The new tables go where the replaced ones were, or else before `[explore]`, or last:
    // positions are spread out to make room for them.
    spread(root);
    let anchor = ["clock", "fault", "expect"]
        .iter()
        .filter_map(|key| first_position(root.get(key)?))
        .min()
        .or_else(|| first_position(root.get("explore")?))
        .unwrap_or_else(|| last_position(root) + SPREAD);
    // `twins` pairs the base with other catalogue scenarios; this file is a story of its own.
    for key in ["clock", "fault", "expect", "twins"] {
        root.remove(key);
    }
    let mut clocks = clocks(base, names, plan);
    let mut faults = faults(plan, names);
    let mut expected = Table::new();
    for (at, tables) in [(anchor - 3, &mut clocks), (anchor - 2, &mut faults)] {
        for table in tables.iter_mut() {
            table.set_position(Some(at));
        }
    }
    if !clocks.is_empty() {
        root.insert("clock", Item::ArrayOfTables(clocks));
    }
    if !faults.is_empty() {
        root.insert("fault", Item::ArrayOfTables(faults));
    }
    for i in expect {
        expected.insert(i.id(), toml_edit::value("violated"));
    }
    expected.set_position(Some(anchor - 1));
    root.insert("expect", Item::Table(expected));

    let mut out = String::new();
    for line in header.lines() {
        out.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
    }
    if !header.is_empty() {
        out.push('\n');
    }
    out.push_str(&doc.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::parse_scenario;
    use locksim_protocols::lock::check::STALE_WRITE;
    use locksim_sim::{FaultAction, FaultEntry, Trigger};

    const INLINE: &str = r#"# The story, told in comments that must survive.
name = "inline"
description = "client-0 pauses past its lease."
seed = 3
duration_ms = 40000
twins = ["other"]
protocol = { kind = "single-redis", clients = 2, ttl_ms = 10000, deadline_check = "once", fencing_tokens = "incr" }
resource = { fencing = "strict" } # a strict resource: the point of the file

[[clock]]
node = "client-1"
offset_ms = 250
jumps = [{ at_ms = 5000, by_ms = 3000 }]

[[fault]]
kind = "crash"
node = "server-0"
at_ms = 1000

[expect]
stale_write = "held"

[explore]
faults = ["pause"]   # only pauses: that is the story
[explore.fix.protocol]
deadline_check = "checked"
"#;

    fn render(source: &str, plan: &Plan, overrides: &Overrides) -> (String, Scenario) {
        let base = parse_scenario("inline.toml", source).expect("the base loads");
        let names = Names::new(base.protocol.topology().into_iter().map(|(n, _)| n).collect());
        let text = scenario_text(
            "Shrunk for a test.\n\nSecond paragraph.",
            "inline-seed7-stale-write",
            &base,
            source,
            &names,
            plan,
            overrides,
            7,
            &[STALE_WRITE],
        );
        (text, base)
    }

    #[test]
    fn inline_tables_and_top_level_keys_survive() {
        let base = parse_scenario("inline.toml", INLINE).expect("the base loads");
        let mut plan = Plan::of(&base);
        plan.faults.push(FaultEntry {
            trigger: Trigger::At {
                at_ns: 2_000 * 1_000_000,
            },
            action: FaultAction::Pause {
                node: NodeId(1),
                duration_ns: 12_000 * 1_000_000,
                suspend: false,
            },
        });
        plan.drifts.push((NodeId(1), -150));
        let overrides = Overrides {
            clients: Some(3),
            servers: None,
        };
        let (text, base) = render(INLINE, &plan, &overrides);
        let shrunk = parse_scenario("shrunk.toml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(shrunk.resource, base.resource, "{text}");
        assert_eq!(shrunk.network, base.network);
        assert_eq!(shrunk.duration_ns, base.duration_ns);
        assert_eq!(shrunk.seed, 7);
        assert_eq!(shrunk.name, "inline-seed7-stale-write");
        // The base's crash and clock jump once each, and the plan's pause (client-1 keeps its
        // name, and its clock, with a third client added).
        assert_eq!(shrunk.faults.entries.len(), 3, "{text}");
        assert_eq!(text.matches("by_ms = 3000").count(), 1, "{text}");
        assert!(!text.contains("jumps"), "{text}");
        let client_1 = ClockSpec {
            offset_ns: 250 * MS,
            drift_ppm: -150,
        };
        assert_eq!(shrunk.clock_of(NodeId(1)), client_1, "{text}");
        assert_eq!(shrunk.expect, [(STALE_WRITE, locksim_protocols::Expected::Violated)]);
        assert!(shrunk.twins.is_empty(), "{text}");
        let clients = shrunk
            .protocol
            .topology()
            .iter()
            .filter(|(_, r)| *r == locksim_protocols::Role::Client)
            .count();
        assert_eq!(clients, 3, "{text}");
        assert!(text.contains("clients = 3"), "{text}");
        assert!(
            text.starts_with("# Shrunk for a test.\n#\n# Second paragraph.\n\n"),
            "{text}"
        );
        for kept in [
            "# The story, told in comments that must survive.",
            "# a strict resource: the point of the file",
            "# only pauses: that is the story",
            "[explore.fix.protocol]",
        ] {
            assert!(text.contains(kept), "{kept:?} kept:\n{text}");
        }
        assert!(
            shrunk.description.starts_with(
                "Minimal counterexample of stale_write found by locksim explore in inline (seed 7); originally: \
                 client-0 pauses past its lease."
            ),
            "{}",
            shrunk.description
        );
    }

    #[test]
    fn the_same_plan_without_overrides_is_the_same_configuration() {
        let source = INLINE.replace(
            "protocol = { kind = \"single-redis\", clients = 2, ttl_ms = 10000, deadline_check = \"once\", fencing_tokens = \"incr\" }",
            "[protocol]\nkind = \"single-redis\"\nclients = 2 # two\nttl_ms = 10000\ndeadline_check = \"once\"\nfencing_tokens = \"incr\"\n\n[resource]\nfencing = \"strict\"",
        )
        .replace("resource = { fencing = \"strict\" } # a strict resource: the point of the file\n", "");
        let base = parse_scenario("tables.toml", &source).expect("the base loads");
        let (text, base) = render(&source, &Plan::of(&base), &Overrides::default());
        let shrunk = parse_scenario("shrunk.toml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(shrunk.protocol, base.protocol, "{text}");
        assert_eq!(shrunk.resource, base.resource, "{text}");
        assert_eq!(
            shrunk.faults, base.faults,
            "the crash and the clock jump, once each:\n{text}"
        );
        for node in 0..3 {
            assert_eq!(shrunk.clock_of(NodeId(node)), base.clock_of(NodeId(node)), "{text}");
        }
        assert!(
            text.contains("clients = 2 # two"),
            "untouched keys keep their comments:\n{text}"
        );
        let (text, _) = render(
            &source,
            &Plan::of(&base),
            &Overrides {
                clients: Some(1),
                servers: None,
            },
        );
        assert!(
            text.contains("clients = 1\n"),
            "a changed value loses the old value's comment:\n{text}"
        );
    }
}
