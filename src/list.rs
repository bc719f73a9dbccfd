//! `locksim list`: protocols and their knobs, resource and network knobs, fault kinds,
//! invariants, and the events a fault can be placed after. Knob lists come from running each
//! parser in documenting mode, so they are the knobs the models actually read.

use locksim_protocols::knobs::{KnobDoc, Knobs};
use locksim_protocols::lock::resource::ResourceConfig;
use locksim_protocols::registry::{self, PROTOCOLS};
use locksim_protocols::{Protocol, Role};

use crate::fault_space::{FaultKind, FaultSpace};
use crate::load::faults::FAULT_DOCS;

fn knob_lines(out: &mut String, docs: &[KnobDoc]) {
    for d in docs {
        out.push_str(&format!(
            "      {:<20} {}  (default {})\n      {:<20}   {}\n",
            d.key, d.values, d.default, "", d.doc
        ));
    }
}

/// `[explore]`: its keys as [`FaultSpace::parse`] documents them (read for the first
/// protocol: the keys are the same for all), then one line per kind's `[explore.<kind>]`.
fn explore_lines(out: &mut String) {
    out.push_str(
        "\nexplore ([explore]: the fault space `locksim explore` draws plans from; absent: the protocol's defaults)\n",
    );
    let mut k = Knobs::documenting("explore");
    if let Some(config) = PROTOCOLS
        .first()
        .and_then(|p| (p.parse)(&mut Knobs::documenting("protocol")).ok())
    {
        let refuse = |k: &Knobs, key: &str, _: &str| Err(k.error(key, ""));
        let _ = FaultSpace::parse(&mut k, &*config, &refuse);
    }
    let kinds: Vec<&str> = FaultKind::ALL.iter().map(|f| f.name()).collect();
    let docs: Vec<KnobDoc> = k
        .docs()
        .into_iter()
        .filter(|d| !kinds.contains(&d.key.as_str()))
        .collect();
    knob_lines(out, &docs);
    out.push_str(
        "  [explore.<kind>]: nodes = [...] (the nodes it may strike; default: every node where the kind means something), and its limit:\n",
    );
    for kind in FaultKind::ALL {
        let limit = match kind {
            FaultKind::Failover => "(no limit: a failover has no magnitude)".to_string(),
            FaultKind::Partition => format!(
                "{} (default {}), bridge = true|false (default false; true: half the cuts leave one node hearing both sides)",
                kind.max_key(),
                kind.default_max()
            ),
            _ => format!("{} (default {})", kind.max_key(), kind.default_max()),
        };
        out.push_str(&format!("    {:<11} {limit}\n", kind.name()));
    }
}

pub fn render() -> String {
    let mut out = String::from("scenario file (top-level keys and sections)\n");
    let mut k = Knobs::documenting("");
    crate::load::top_level_docs(&mut k);
    knob_lines(&mut out, &k.docs());
    out.push_str("\nprotocols ([protocol] kind = ...)\n");
    for p in PROTOCOLS {
        out.push_str(&format!("  {}\n    {}\n    knobs:\n", p.kind, p.summary));
        let mut k = Knobs::documenting("protocol");
        let parsed: Option<Box<dyn Protocol>> = (p.parse)(&mut k).ok();
        knob_lines(&mut out, &k.docs());
        if let Some(config) = parsed {
            let layout = config.layout();
            let names: Vec<&str> = layout.nodes().iter().map(|n| n.name.as_str()).collect();
            out.push_str(&format!("    nodes (with defaults): {}\n", names.join(", ")));
        }
    }
    out.push_str("\nresource ([resource])\n");
    let mut k = Knobs::documenting("resource");
    let _ = ResourceConfig::parse(&mut k, true);
    knob_lines(&mut out, &k.docs());
    out.push_str("\nnetwork ([network])\n");
    let mut k = Knobs::documenting("network");
    let _ = crate::load::network_docs(&mut k);
    knob_lines(&mut out, &k.docs());
    out.push_str("\nclocks ([[clock]]): node, offset_ms, drift_ppm, jumps = [{ at_ms, by_ms }]\n");
    out.push_str("\nfaults ([[fault]]; each has `kind` and either `at_ms` or `after = \"[node:]event\"` with `nth`)\n");
    for (kind, fields) in FAULT_DOCS {
        out.push_str(&format!("  {kind:<11} {fields}\n"));
    }
    explore_lines(&mut out);
    out.push_str("\ninvariants ([expect] id = \"held\" | \"violated\" | \"not_applicable\")\n");
    for i in registry::invariants() {
        out.push_str(&format!("  {:<17} {}\n", i.id(), i.meaning()));
    }
    out.push_str("\nevents a fault can follow (`after`), by protocol and role\n");
    for p in PROTOCOLS {
        let mut k = Knobs::documenting("protocol");
        if let Ok(config) = (p.parse)(&mut k) {
            out.push_str(&format!("  {}\n", p.kind));
            let layout = config.layout();
            for (role, name) in [
                (Role::Client, "client"),
                (Role::Server, "server"),
                (Role::Resource, "resource"),
            ] {
                let events = layout.role_events(role);
                if !events.is_empty() {
                    out.push_str(&format!("    {name:<9} {}\n", events.join(", ")));
                }
            }
        }
    }
    out
}
