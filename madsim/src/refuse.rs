//! What the front-end cannot run as the scenario means it, refused before the run with the
//! setting named — never run silently as something else (issue 13, point 3). madsim's network
//! has one latency range and one loss rate for every link, keeps TCP in order and never
//! duplicates, so per-link delay windows, loss, duplication and reordering have no madsim
//! counterpart; the hosted world is one Redis server and the resource, so nothing replicates
//! and nothing fails over.

use locksim_protocols::Scenario;
use locksim_protocols::redis::SingleRedis;
use locksim_sim::fault::FaultAction;

/// The scenario's single-Redis model, if the front-end can run the scenario as written.
pub fn supported(s: &Scenario) -> Result<&SingleRedis, String> {
    let Some(model) = s.protocol.downcast_ref::<SingleRedis>() else {
        return Err(format!(
            "protocol.kind = {:?}: the madsim front-end hosts single-redis only",
            s.protocol.kind()
        ));
    };
    if model.replicas > 0 {
        return Err("protocol.replicas: the front-end hosts one Redis server, no replica".into());
    }
    if s.network.reorder {
        return Err("network.reorder: madsim's TCP delivers in order".into());
    }
    if !s.network.links.is_empty() {
        return Err("[[network.link]]: madsim has one latency range for every link".into());
    }
    for (i, entry) in s.faults.entries.iter().enumerate() {
        let why = match &entry.action {
            FaultAction::Delay { .. } => "madsim has no per-link delay window",
            FaultAction::Loss { duplicate: true, .. } => "madsim never duplicates a message",
            FaultAction::Loss { .. } => "madsim's loss rate is global and its TCP never loses data",
            FaultAction::Failover { .. } => "the front-end hosts no replica to fail over to",
            _ => continue,
        };
        return Err(format!(
            "fault[{i}] kind = {:?}: not supported by the madsim front-end ({why})",
            entry.action.kind()
        ));
    }
    Ok(model)
}
