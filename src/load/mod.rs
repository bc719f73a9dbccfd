//! Loading a scenario file: TOML in, a validated [`Scenario`] out, or an error that names the
//! file, the line, the key and what is wrong (DESIGN section 6). Unknown keys, unknown names
//! and impossible values are errors, never silently ignored.

mod clock_reach;
mod clocks;
#[cfg(test)]
mod fault_space_tests;
pub mod faults;
mod header;
mod network;
mod scenario_name;
pub(crate) mod toml_entries;
mod topology;

use std::fmt;
use std::path::Path;

use locksim_protocols::knobs::{KnobEntry, KnobError, KnobValue, Knobs, did_you_mean};
use locksim_protocols::lock::resource::ResourceConfig;
use locksim_protocols::{Expected, Model, Registry, Scenario};
use locksim_sim::{FaultPlan, Invariant};
use toml::de::DeTable;

use crate::fault_space::FaultSpace;

pub use header::top_level_docs;
use header::{
    CLOCK_DOC, EXPECT_DOC, EXPLORE_DOC, FAULT_DOC, Header, NETWORK_DOC, PROTOCOL_DOC, RESOURCE_DOC, read_header,
    read_twins,
};
use toml_entries::{Lines, table_entries};
use topology::Topology;

/// Thirty days: the longest run a scenario may ask for.
pub const MAX_DURATION_MS: u64 = 30 * 24 * 3_600_000;

/// A scenario file that did not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub file: String,
    pub line: Option<usize>,
    pub key: Option<String>,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(key) = &self.key {
            write!(f, ": key `{key}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// A scenario with the text it came from (traces embed the text, so they replay alone).
#[derive(Clone, Debug)]
pub struct LoadedScenario {
    pub scenario: Scenario,
    /// The fault space `explore` uses: `[explore]` over the protocol's defaults.
    pub space: FaultSpace,
    pub file: String,
    pub source: String,
}

/// Reads and validates a scenario file of a built-in protocol.
pub fn load_file(path: &Path) -> Result<LoadedScenario, LoadError> {
    load_file_in(&Registry::builtin(), path)
}

/// Reads and validates a scenario file whose `kind` is one of `registry`'s.
pub fn load_file_in(registry: &Registry, path: &Path) -> Result<LoadedScenario, LoadError> {
    let file = path.display().to_string();
    let source = crate::input_file::read_text(path).map_err(|e| LoadError {
        file: file.clone(),
        line: None,
        key: None,
        message: format!("cannot read the scenario file: {e}"),
    })?;
    let (scenario, space) = parse_with_space_in(registry, &file, &source)?;
    check_twins(path, &file, &source, &scenario.twins)?;
    Ok(LoadedScenario {
        scenario,
        space,
        file,
        source,
    })
}

/// Validates scenario text of a built-in protocol; `file` names it in errors.
pub fn parse_scenario(file: &str, text: &str) -> Result<Scenario, LoadError> {
    parse_scenario_in(&Registry::builtin(), file, text)
}

/// Validates scenario text whose `kind` is one of `registry`'s.
pub fn parse_scenario_in(registry: &Registry, file: &str, text: &str) -> Result<Scenario, LoadError> {
    parse_with_space_in(registry, file, text).map(|(s, _)| s)
}

/// Validates scenario text of a built-in protocol and its fault space.
pub fn parse_with_space(file: &str, text: &str) -> Result<(Scenario, FaultSpace), LoadError> {
    parse_with_space_in(&Registry::builtin(), file, text)
}

/// Validates scenario text whose `kind` is one of `registry`'s, and its fault space.
pub fn parse_with_space_in(registry: &Registry, file: &str, text: &str) -> Result<(Scenario, FaultSpace), LoadError> {
    let at = |e: KnobError| LoadError {
        file: file.to_string(),
        line: e.line,
        key: Some(e.key),
        message: e.message,
    };
    let lines = Lines::new(text);
    let doc = DeTable::parse(text).map_err(|e| LoadError {
        file: file.to_string(),
        line: e.span().map(|s| lines.of(s.start)),
        key: None,
        message: format!("TOML syntax error: {}", e.message().trim()),
    })?;
    let entries = table_entries(doc.get_ref(), &lines).map_err(|b| LoadError {
        file: file.to_string(),
        line: Some(b.line),
        key: Some(b.key),
        message: b.message,
    })?;
    read(registry, Knobs::new("", Some(1), entries)).map_err(at)
}

/// The line of each `[[fault]]` table of scenario text that loaded, in file order (the order
/// of the scenario's fault plan), so a report can point at the entry it speaks of.
pub fn fault_lines(text: &str) -> Vec<usize> {
    array_lines(text, "fault")
}

/// The line of each item of the top-level array `key` of scenario text that loaded.
fn array_lines(text: &str, key: &str) -> Vec<usize> {
    let lines = Lines::new(text);
    let Ok(doc) = DeTable::parse(text) else {
        return Vec::new();
    };
    let Ok(entries) = table_entries(doc.get_ref(), &lines) else {
        return Vec::new();
    };
    match entries.into_iter().find(|e| e.key == key).map(|e| e.value) {
        Some(KnobValue::List(items)) => items.iter().map(|item| item.line).collect(),
        _ => Vec::new(),
    }
}

/// Each name in `twins` must be a scenario file beside `path` (`<name>.toml`), as the
/// catalogue's twins are: a misspelt twin would otherwise pair the scenario with nothing.
fn check_twins(path: &Path, file: &str, source: &str, twins: &[String]) -> Result<(), LoadError> {
    let lines = array_lines(source, "twins");
    for (i, name) in twins.iter().enumerate() {
        let twin = path.with_file_name(format!("{name}.toml"));
        if !twin.is_file() {
            return Err(LoadError {
                file: file.to_string(),
                line: lines.get(i).copied(),
                key: Some("twins".into()),
                message: format!(
                    "unknown twin \"{name}\": no scenario file {} beside this one (a twin names a scenario of the same folder, without .toml)",
                    twin.display()
                ),
            });
        }
    }
    Ok(())
}

/// Documents `[network]` for `locksim list`.
pub fn network_docs(k: &mut Knobs) -> Result<(), KnobError> {
    network::parse(k, &Topology::empty()).map(|_| ())
}

/// A sub-table of the document, or an empty one.
fn section(top: &mut Knobs, key: &str, doc: &'static str) -> Result<(Option<usize>, Vec<KnobEntry>), KnobError> {
    let line = top.has(key).then(|| top.line_of(key)).flatten();
    match top.raw(key, "table", doc) {
        None => Ok((None, Vec::new())),
        Some(KnobValue::Table(entries)) => Ok((line, entries)),
        Some(other) => Err(top.error(key, format!("must be a table ([{key}]), not {}", other.type_name()))),
    }
}

/// An array of tables (`[[fault]]`), or none.
fn array(top: &mut Knobs, key: &str, doc: &'static str) -> Result<Vec<KnobEntry>, KnobError> {
    match top.raw(key, "array of tables", doc) {
        None => Ok(Vec::new()),
        Some(KnobValue::List(items)) => Ok(items),
        Some(other) => Err(top.error(
            key,
            format!("must be an array of tables ([[{key}]]), not {}", other.type_name()),
        )),
    }
}

/// The whole document, section by section in the order errors are reported.
fn read(registry: &Registry, mut top: Knobs) -> Result<(Scenario, FaultSpace), KnobError> {
    if !top.has("name") {
        return Err(top.error("name", "missing: every scenario needs a name"));
    }
    let Header {
        name,
        description,
        seed,
        duration_ms,
    } = read_header(&mut top)?;

    let protocol = read_protocol(registry, &mut top)?;
    let resource = read_resource(&mut top, &protocol)?;

    let topo = Topology::of(&*protocol);
    let (line, entries) = section(&mut top, "network", NETWORK_DOC)?;
    let mut nk = Knobs::new("network", line, entries);
    let network = network::parse(&mut nk, &topo)?;
    nk.finish()?;

    let clocks = clocks::parse(array(&mut top, "clock", CLOCK_DOC)?, &topo, duration_ms)?;
    let fault_items = array(&mut top, "fault", FAULT_DOC)?;
    let fault_lines: Vec<usize> = fault_items.iter().map(|item| item.line).collect();
    faults::check_plan_size(&fault_lines, &clocks.jump_keys)?;
    let mut faults = faults::parse(fault_items, &topo, duration_ms)?;
    clock_reach::check(duration_ms * 1_000_000, &clocks, &faults, &fault_lines, &topo)?;
    faults.extend(clocks.jumps);

    let twins = read_twins(&mut top)?;

    let (line, entries) = section(&mut top, "expect", EXPECT_DOC)?;
    let (expect, expect_lines) = read_expect(&registry.invariants(), Knobs::new("expect", line, entries))?;

    let (line, entries) = section(&mut top, "explore", EXPLORE_DOC)?;
    let mut ek = Knobs::new("explore", line, entries);
    let resolve = |k: &Knobs, key: &str, name: &str| topo.resolve(k, key, name);
    let space = FaultSpace::parse(&mut ek, &*protocol, &resolve)?;
    ek.finish()?;
    top.finish()?;

    let scenario = Scenario {
        name,
        description,
        seed,
        duration_ns: duration_ms * 1_000_000,
        protocol,
        resource,
        network,
        clocks: clocks.specs,
        faults: FaultPlan { entries: faults },
        expect,
        twins,
        max_events: locksim_sim::DEFAULT_MAX_EVENTS,
    };
    check_judged(&scenario, &expect_lines)?;
    Ok((scenario, space))
}

/// `[protocol]`: a `kind` of `registry`'s, and that model's knobs.
fn read_protocol(registry: &Registry, top: &mut Knobs) -> Result<Model, KnobError> {
    let (line, entries) = section(top, "protocol", PROTOCOL_DOC)?;
    let mut pk = Knobs::new("protocol", line.or(Some(1)), entries);
    if !pk.has("kind") {
        let kinds = registry.kinds();
        return Err(pk.error(
            "kind",
            format!("missing: [protocol] needs a kind ({})", kinds.join(", ")),
        ));
    }
    let kind = pk.text("kind", "", "the protocol model")?;
    let spec = registry.find(&kind).ok_or_else(|| {
        let kinds = registry.kinds();
        pk.error(
            "kind",
            format!(
                "unknown protocol kind \"{kind}\"; known kinds: {}{}",
                kinds.join(", "),
                did_you_mean(&kind, kinds.iter().copied())
            ),
        )
    })?;
    let protocol = Model::new((spec.parse)(&mut pk)?);
    pk.finish()?;
    Ok(protocol)
}

/// `[resource]`, which only a protocol with a fenced resource has, and whose fencing check
/// needs a protocol that issues tokens.
fn read_resource(top: &mut Knobs, protocol: &Model) -> Result<ResourceConfig, KnobError> {
    let (line, entries) = section(top, "resource", RESOURCE_DOC)?;
    if line.is_some() && !protocol.has_resource() {
        return Err(top.error(
            "resource",
            format!(
                "protocol kind \"{}\" has no fenced resource to configure",
                protocol.kind()
            ),
        ));
    }
    let mut rk = Knobs::new("resource", line, entries);
    let resource = ResourceConfig::parse(&mut rk, protocol.has_store_resource())?;
    if resource.fencing != locksim_protocols::lock::resource::Fencing::None && !protocol.issues_tokens() {
        return Err(rk.error(
            "fencing",
            "checks fencing tokens, but the protocol issues none (set protocol.fencing_tokens)",
        ));
    }
    rk.finish()?;
    Ok(resource)
}

/// Every invariant `[expect]` names must be one the protocol judges: a lock never judges
/// `unique_ids`, so no run could meet that expectation (`explore --invariant` refuses the same).
fn check_judged(s: &Scenario, lines: &[Option<usize>]) -> Result<(), KnobError> {
    let judged = s.protocol.spec().invariants;
    for (&(invariant, _), &line) in s.expect.iter().zip(lines) {
        if !judged.contains(&invariant) {
            let ids: Vec<&str> = judged.iter().map(|i| i.id()).collect();
            return Err(KnobError {
                key: format!("expect.{}", invariant.id()),
                line,
                message: format!(
                    "{} never judges {}, so no run could meet this expectation; it judges {}",
                    s.protocol.kind(),
                    invariant.id(),
                    ids.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// The expected verdicts, with the line of each.
type ExpectWithLines = (Vec<(Invariant, Expected)>, Vec<Option<usize>>);

/// `known` are the registered models' invariants, in registry order: the order of the result.
fn read_expect(known: &[Invariant], mut k: Knobs) -> Result<ExpectWithLines, KnobError> {
    let ids: Vec<&str> = known.iter().map(|i| i.id()).collect();
    let mut expect = Vec::new();
    let mut lines = Vec::new();
    for (&invariant, id) in known.iter().zip(ids.iter().copied()) {
        if !k.has(id) {
            continue;
        }
        lines.push(k.line_of(id));
        let expected = k.choice(
            id,
            &[
                ("held", Expected::Held),
                ("violated", Expected::Violated),
                ("not_applicable", Expected::NotApplicable),
            ],
            Expected::Held,
            "the expected verdict",
        )?;
        expect.push((invariant, expected));
    }
    k.finish().map_err(|e| {
        let written = e.key.strip_prefix("expect.").unwrap_or(&e.key);
        KnobError {
            message: format!(
                "unknown invariant; known invariants: {}{}",
                ids.join(", "),
                did_you_mean(written, ids.iter().copied())
            ),
            ..e
        }
    })?;
    Ok((expect, lines))
}
