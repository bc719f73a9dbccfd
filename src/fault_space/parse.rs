//! Reading `[explore]`: the kinds a plan may contain, how many entries it adds, and per kind
//! the nodes it may strike and how hard — each checked against the protocol's default space,
//! which the table may only narrow.

use std::collections::BTreeMap;

use locksim_protocols::knobs::{KnobError, KnobValue, Knobs, did_you_mean};
use locksim_protocols::{Protocol, Role};
use locksim_sim::NodeId;

use super::{FaultKind, FaultSpace, KindLimits, MAX_FAULTS, cannot_strike, default_nodes, topology};

/// Turns a node name into its id, or an error naming the key (the loader's topology).
type Resolve<'a> = &'a dyn Fn(&Knobs, &str, &str) -> Result<NodeId, KnobError>;

/// Thirty days, the longest run a scenario may ask for: no duration limit can exceed it.
const MAX_LIMIT_MS: u64 = 30 * 24 * 3_600_000;

/// What a kind's nodes are checked against: the protocol's nodes and its failover targets.
struct Targets {
    topology: Vec<(String, Role)>,
    failover: Vec<String>,
}

impl FaultSpace {
    /// Reads `[explore]` over the protocol's defaults. `resolve` turns a node name into its id
    /// (or an error naming the key).
    pub fn parse(k: &mut Knobs, protocol: &dyn Protocol, resolve: Resolve) -> Result<Self, KnobError> {
        let mut space = FaultSpace::defaults(protocol);
        let targets = Targets {
            topology: topology(protocol),
            failover: protocol.failover_targets(),
        };
        if let Some(chosen) = chosen_kinds(k, &targets)? {
            space.kinds = chosen;
        }
        space.max_faults = k.uint("max_faults", 3, 1, MAX_FAULTS, "the most fault entries a plan adds")? as u32;
        check_fix(k)?;
        for kind in FaultKind::ALL {
            let Some(value) = k.raw(kind.name(), "table { nodes, max_ms | max_ppm }", "limits of one kind") else {
                continue;
            };
            let line = k.line_of(kind.name());
            let KnobValue::Table(entries) = value else {
                return Err(k.error(kind.name(), "must be a table ([explore.<kind>])"));
            };
            let Some(limits) = space.kinds.get_mut(&kind) else {
                return Err(k.error(kind.name(), format!("limits for \"{kind}\", which is not in `faults`")));
            };
            let mut kk = Knobs::new(format!("explore.{kind}"), line, entries);
            read_limits(&mut kk, kind, limits, &targets, resolve)?;
            kk.finish()?;
        }
        Ok(space)
    }
}

/// `faults`: the kinds a plan may contain, each at its default nodes and limit, or `None`
/// when the key is absent (every kind that applies stays on).
fn chosen_kinds(k: &mut Knobs, targets: &Targets) -> Result<Option<BTreeMap<FaultKind, KindLimits>>, KnobError> {
    let names: Vec<&str> = FaultKind::ALL.iter().map(|k| k.name()).collect();
    let Some(value) = k.raw(
        "faults",
        "array of fault kinds",
        "the kinds a plan may contain (default: all that apply)",
    ) else {
        return Ok(None);
    };
    let KnobValue::List(items) = value else {
        return Err(k.error(
            "faults",
            format!("must be an array of fault kinds ({})", names.join(", ")),
        ));
    };
    let mut chosen = BTreeMap::new();
    for item in items {
        let KnobValue::Str(name) = item.value else {
            return Err(k.error("faults", "fault kinds must be strings"));
        };
        let kind = FaultKind::ALL.into_iter().find(|f| f.name() == name).ok_or_else(|| {
            k.error(
                "faults",
                format!(
                    "unknown fault kind \"{name}\"; known kinds: {}{}",
                    names.join(", "),
                    did_you_mean(&name, names.iter().copied())
                ),
            )
        })?;
        if chosen.contains_key(&kind) {
            return Err(k.error("faults", format!("\"{name}\" is listed twice")));
        }
        let nodes = default_nodes(kind, &targets.topology, &targets.failover);
        if nodes.is_empty() {
            return Err(k.error("faults", format!("\"{name}\" has nothing to strike in this protocol")));
        }
        chosen.insert(
            kind,
            KindLimits {
                nodes,
                max: kind.default_max(),
                bridge: false,
            },
        );
    }
    if chosen.is_empty() {
        return Err(k.error("faults", "the fault space is empty: name at least one fault kind"));
    }
    Ok(Some(chosen))
}

/// `fix` is the bug catalogue's (a fixed twin's scenario tables): here it only has to be a table.
fn check_fix(k: &mut Knobs) -> Result<(), KnobError> {
    match k.raw(
        "fix",
        "table of scenario tables",
        "a bug's fix, e.g. [explore.fix.protocol]: read by the bug catalogue, not here",
    ) {
        None | Some(KnobValue::Table(_)) => Ok(()),
        Some(other) => Err(k.error(
            "fix",
            format!(
                "must be a table of scenario tables ([explore.fix.protocol] ...), not {}",
                other.type_name()
            ),
        )),
    }
}

/// `[explore.<kind>]`: the nodes `kind` may strike and, but for a failover, how hard.
fn read_limits(
    kk: &mut Knobs,
    kind: FaultKind,
    limits: &mut KindLimits,
    targets: &Targets,
    resolve: Resolve,
) -> Result<(), KnobError> {
    if let Some(nodes) = read_nodes(kk, kind, targets, resolve)? {
        limits.nodes = nodes;
    }
    if kind == FaultKind::Partition {
        limits.bridge = kk.bool(
            "bridge",
            false,
            "half the partitions drawn are bridges: one node of either side (not the struck one) stays connected to both (Jepsen's bridge nemesis)",
        )?;
    }
    if kind == FaultKind::Failover {
        if kk.has("max_ms") {
            return Err(kk.error(
                "max_ms",
                "a failover has no magnitude (it promotes the replica at once): only `nodes` applies",
            ));
        }
        return Ok(());
    }
    let (max_limit, doc) = match kind {
        FaultKind::Drift => (999_999, "largest clock rate error, ppm"),
        FaultKind::Loss => (1_000_000, "largest loss probability, ppm"),
        _ => (MAX_LIMIT_MS, "largest duration or jump, ms"),
    };
    limits.max = kk.uint(kind.max_key(), limits.max, 1, max_limit, doc)?;
    Ok(())
}

/// `nodes`, each one `kind` can strike by the default space's rules, or `None` when absent.
fn read_nodes(
    kk: &mut Knobs,
    kind: FaultKind,
    targets: &Targets,
    resolve: Resolve,
) -> Result<Option<Vec<NodeId>>, KnobError> {
    match kk.raw("nodes", "array of node names", "the nodes it may strike") {
        None => Ok(None),
        Some(KnobValue::List(items)) => {
            let mut nodes = Vec::new();
            for item in items {
                let KnobValue::Str(name) = item.value else {
                    return Err(kk.error("nodes", "node names must be strings"));
                };
                let node = resolve(kk, "nodes", &name)?;
                let role = targets.topology[node.index()].1;
                if let Some(why) = cannot_strike(kind, &name, role, &targets.topology, &targets.failover) {
                    return Err(kk.error("nodes", format!("{kind} cannot strike {name}: {why}")));
                }
                nodes.push(node);
            }
            if nodes.is_empty() {
                return Err(kk.error("nodes", "name at least one node"));
            }
            Ok(Some(nodes))
        }
        Some(other) => Err(kk.error(
            "nodes",
            format!(
                "must be an array of node names (nodes = [\"client-0\"]), not {}",
                other.type_name()
            ),
        )),
    }
}
