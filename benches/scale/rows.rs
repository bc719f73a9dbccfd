//! The rows of the scale bench: a single-Redis world of some clients for some simulated time,
//! written out as a scenario file, and what it is expected to cost.

use std::fmt;

/// Events per client per simulated second, a little above what the rows measure (about 25 at
/// 2 clients, 21 at 64, 19 at 1,000): the estimate errs on the side of a bigger bill.
const EVENTS_PER_CLIENT_S: u64 = 25;

/// One row: `clients` single-Redis clients for `sim_s` simulated seconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub clients: u32,
    pub sim_s: u64,
}

/// The grid of the issue (2 / 64 / 1,000 clients x 60 s / 1 h / 24 h), and its memory target
/// row (24 h of 3 clients), in order of cost.
pub fn default_rows() -> Vec<Row> {
    let mut rows: Vec<Row> = [2, 64, 1000]
        .into_iter()
        .flat_map(|clients| [60, 3600, 86_400].map(|sim_s| Row { clients, sim_s }))
        .chain([Row {
            clients: 3,
            sim_s: 86_400,
        }])
        .collect();
    rows.sort_by_key(|r| r.estimated_events());
    rows
}

impl Row {
    /// `1000x60s`, `3x24h`, `64x1h`, `2x90m`.
    pub fn parse(word: &str) -> Option<Row> {
        let (clients, duration) = word.split_once('x')?;
        let clients: u32 = clients.parse().ok().filter(|&c| c > 0)?;
        let unit_at = duration.find(|c: char| !c.is_ascii_digit())?;
        let (n, unit) = duration.split_at(unit_at);
        let n: u64 = n.parse().ok()?;
        let sim_s = n.checked_mul(match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            _ => return None,
        })?;
        (sim_s > 0).then_some(Row { clients, sim_s })
    }

    pub fn estimated_events(self) -> u64 {
        EVENTS_PER_CLIENT_S * u64::from(self.clients) * self.sim_s
    }

    /// The event budget the row runs with: its estimate four times over (at least locksim's
    /// default), so a long row is never stopped by the budget but a runaway one still is.
    pub fn max_events(self) -> u64 {
        (4 * self.estimated_events()).max(locksim::sim::DEFAULT_MAX_EVENTS)
    }

    /// The scenario: `scenarios/single-redis/no-faults.toml` (the peer's `no-fault` workload:
    /// INCR tokens, a strictly fenced resource, work 1 s, think 200 ms) with this many clients
    /// for this long, without `[expect]`.
    pub fn scenario(self) -> String {
        format!(
            "name = \"scale-{self}\"\n\
             description = \"{} single-Redis clients for {} simulated seconds, no faults.\"\n\
             seed = 1\nduration_ms = {}\n\n\
             [protocol]\nkind = \"single-redis\"\nclients = {}\nttl_ms = 10000\nwork_ms = 1000\n\
             think_ms = 200\nfencing_tokens = \"incr\"\n\n\
             [resource]\nfencing = \"strict\"\n",
            self.clients,
            self.sim_s,
            self.sim_s * 1000,
            self.clients
        )
    }
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.sim_s;
        let (n, unit) = if s.is_multiple_of(3600) {
            (s / 3600, "h")
        } else if s.is_multiple_of(60) && s >= 600 {
            (s / 60, "m")
        } else {
            (s, "s")
        };
        write!(f, "{}x{n}{unit}", self.clients)
    }
}
