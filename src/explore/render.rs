//! A plan as a scenario file: the original file's protocol, resource, network and explore
//! sections kept as written (comments included), its faults and clocks replaced by the plan's,
//! the seed fixed and the violation expected — so `locksim run` on the file replays the
//! finding, and copying the file into `scenarios/` makes it a regression test.

use locksim_protocols::Scenario;
use locksim_sim::{Invariant, Names};

use super::plan::{Plan, fault_toml};

/// A file's sections: the top-level lines, then each `[header]` with its lines.
struct Sections<'a> {
    top: Vec<&'a str>,
    tables: Vec<(&'a str, Vec<&'a str>)>,
}

fn sections(source: &str) -> Sections<'_> {
    let mut out = Sections {
        top: Vec::new(),
        tables: Vec::new(),
    };
    for line in source.lines() {
        let header = line.trim_start();
        if header.starts_with('[') {
            let name = header.trim_start_matches('[').split(']').next().unwrap_or("").trim();
            out.tables.push((name, vec![line]));
        } else if let Some((_, lines)) = out.tables.last_mut() {
            lines.push(line);
        } else {
            out.top.push(line);
        }
    }
    out
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// Sets `key = value` in a section's lines (replacing the key's line, or adding it).
fn set_knob(lines: &mut Vec<String>, key: &str, value: u64) {
    let is_key = |l: &String| l.trim_start().split('=').next().is_some_and(|k| k.trim() == key);
    match lines.iter().position(is_key) {
        Some(i) => lines[i] = format!("{key} = {value}"),
        None => lines.insert(1, format!("{key} = {value}")),
    }
}

/// What a candidate changes besides its plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub clients: Option<u64>,
    pub servers: Option<u64>,
}

/// The scenario file for `plan` on `base` (whose text is `source`), run with `seed`.
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
    let parts = sections(source);
    let mut out = String::new();
    for line in header.lines() {
        out.push_str(&format!("# {line}\n").replace("# \n", "#\n"));
    }
    out.push('\n');
    out.push_str(&format!("name = {}\n", quote(name)));
    out.push_str(&format!("description = {}\n", quote(&base.description)));
    out.push_str(&format!("seed = {seed}\n"));
    out.push_str(&format!("duration_ms = {}\n", base.duration_ns / 1_000_000));
    for (table, lines) in &parts.tables {
        let keep = matches!(*table, "protocol" | "resource" | "network" | "network.link" | "explore")
            || table.starts_with("explore.");
        if !keep {
            continue;
        }
        let mut lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        if *table == "protocol" {
            if let Some(c) = overrides.clients {
                set_knob(&mut lines, "clients", c);
            }
            if let Some(s) = overrides.servers {
                set_knob(&mut lines, "servers", s);
            }
        }
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
        out.push('\n');
        out.push_str(&lines.join("\n"));
        out.push('\n');
    }
    for (node, spec) in &base.clocks {
        let drift = plan
            .drifts
            .iter()
            .rev()
            .find(|(n, _)| n == node)
            .map_or(spec.drift_ppm, |(_, d)| *d);
        out.push_str(&format!(
            "\n[[clock]]\nnode = {}\noffset_ms = {}\ndrift_ppm = {drift}\n",
            quote(names.of(*node)),
            spec.offset_ns / 1_000_000
        ));
    }
    for (node, drift) in &plan.drifts {
        if base.clocks.iter().all(|(n, _)| n != node) {
            out.push_str(&format!(
                "\n[[clock]]\nnode = {}\ndrift_ppm = {drift}\n",
                quote(names.of(*node))
            ));
        }
    }
    for entry in &plan.faults {
        out.push('\n');
        out.push_str(&fault_toml(entry, names));
    }
    out.push_str("\n[expect]\n");
    for i in expect {
        out.push_str(&format!("{} = \"violated\"\n", i.id()));
    }
    out
}
