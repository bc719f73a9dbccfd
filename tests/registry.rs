//! Every registered protocol is complete: it has a catalogue scenario, a bug-catalogue entry
//! with its fix, and a correct configuration — so registering a model is not done until it
//! has shown a bug, the knob that fixes it, and what it promises. Each spec is well formed,
//! and what a run judges is exactly what its spec declares.

mod common;

use std::collections::BTreeSet;

use locksim::load::load_file;
use locksim::protocols::knobs::{KnobError, Knobs};
use locksim::protocols::{Protocol, ProtocolSpec, Registry};
use locksim::report::bugs::{Claim, load};
use locksim::sim::{Invariant, Recording};

/// The kinds the catalogues cover, by what they show.
#[derive(Default)]
struct Covered {
    /// Kinds with a scenario under `scenarios/`.
    scenario: BTreeSet<&'static str>,
    /// Kinds with a bug-catalogue bug that names its fix (`[explore.fix]`).
    bug_with_fix: BTreeSet<&'static str>,
    /// Kinds with a bug-catalogue correct configuration.
    correct: BTreeSet<&'static str>,
}

fn covered() -> Covered {
    let mut covered = Covered::default();
    for path in common::catalogue() {
        let loaded = load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        covered.scenario.insert(loaded.scenario.protocol.kind());
    }
    let entries = load(&common::root().join("tests/bug_catalogue")).unwrap_or_else(|e| panic!("{e}"));
    for entry in entries {
        let kind = entry.loaded.scenario.protocol.kind();
        match entry.claim {
            Claim::Breaks { fixed: Some(_), .. } => covered.bug_with_fix.insert(kind),
            Claim::Breaks { fixed: None, .. } => false,
            Claim::Keeps(_) => covered.correct.insert(kind),
        };
    }
    covered
}

/// What each of `registry`'s protocols lacks, one line per missing thing.
fn missing(registry: &Registry, covered: &Covered) -> Vec<String> {
    let mut out = Vec::new();
    for spec in registry.specs() {
        let kind = spec.kind;
        if !covered.scenario.contains(kind) {
            out.push(format!(
                "{kind}: no catalogue scenario (a scenarios/**/*.toml with kind = \"{kind}\")"
            ));
        }
        if !covered.bug_with_fix.contains(kind) {
            out.push(format!(
                "{kind}: no bug-catalogue entry with its fix (tests/bug_catalogue/*.toml expecting one invariant violated, with [explore.fix])"
            ));
        }
        if !covered.correct.contains(kind) {
            out.push(format!(
                "{kind}: no correct configuration (tests/bug_catalogue/*.toml expecting only held)"
            ));
        }
    }
    out
}

#[test]
fn every_registered_protocol_has_a_scenario_a_bug_with_its_fix_and_a_correct_configuration() {
    let problems = missing(&Registry::builtin(), &covered());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A model registered without anything else: the check names the three things it lacks.
#[test]
fn a_protocol_registered_alone_is_reported_incomplete() {
    fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        Err(k.error("kind", "a stub: nothing to run"))
    }
    static STUB: ProtocolSpec = ProtocolSpec {
        kind: "stub",
        summary: "a model with a spec and nothing else",
        parse,
        invariants: &[Invariant::new("stub_holds", "a stub's own invariant")],
        protections: &["protocol.fencing_tokens"],
    };
    let problems = missing(&Registry::builtin().with(&STUB), &covered());
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("stub: no catalogue scenario"), "{problems:#?}");
    assert!(
        problems[1].starts_with("stub: no bug-catalogue entry with its fix"),
        "{problems:#?}"
    );
    assert!(
        problems[2].starts_with("stub: no correct configuration"),
        "{problems:#?}"
    );
}

#[test]
fn every_spec_is_well_formed() {
    let registry = Registry::builtin();
    let mut kinds = BTreeSet::new();
    for spec in registry.specs() {
        let kind = spec.kind;
        assert!(kinds.insert(kind), "kind {kind} is registered twice");
        assert!(!spec.summary.trim().is_empty(), "{kind}: no summary");
        assert!(!spec.invariants.is_empty(), "{kind}: judges no invariant");
        assert!(!spec.protections.is_empty(), "{kind}: declares no protection");
        let judged: BTreeSet<&str> = spec.invariants.iter().map(|i| i.id()).collect();
        assert_eq!(judged.len(), spec.invariants.len(), "{kind}: an invariant listed twice");
        let model = (spec.parse)(&mut Knobs::documenting("protocol"))
            .unwrap_or_else(|e| panic!("{kind}: the default knobs do not parse: {e:?}"));
        assert_eq!(model.spec().kind, kind, "{kind}: its model answers another spec");
        assert_names_unique(&*model);
    }
}

/// Every catalogue scenario's run returns one verdict per invariant its spec declares, in the
/// spec's order: the spec is what `[expect]` and `explore --invariant` are checked against.
#[test]
fn every_catalogue_run_judges_exactly_its_specs_invariants() {
    for path in common::catalogue() {
        let s = load_file(&path).unwrap_or_else(|e| panic!("{e}")).scenario;
        assert_names_unique(&*s.protocol);
        let judged: Vec<Invariant> = locksim::protocols::run(&s, s.seed, Recording::Facts)
            .verdicts
            .iter()
            .map(|v| v.invariant)
            .collect();
        assert_eq!(judged, s.protocol.spec().invariants, "{}", path.display());
    }
}

fn assert_names_unique(model: &dyn Protocol) {
    let layout = model.layout();
    let mut names = BTreeSet::new();
    for node in layout.nodes() {
        assert!(
            names.insert(&node.name),
            "{}: two nodes called {}",
            model.kind(),
            node.name
        );
    }
}
