//! The election model's knobs: the algorithm, and for each the knobs it reads. A knob another
//! algorithm reads is an error, not silently ignored.

use super::bully::BullyConfig;
use super::client::ClientConfig;
use super::lease::{LeaseConfig, Stop};
use super::{Algorithm, Election, MAX_SERVERS, RaftConfig, ReadMode, Spread};
use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS};
use crate::protocol::Protocol;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Which {
    Raft,
    Bully,
    Lease,
}

/// Knobs only Raft (and its register clients) read: set with bully or lease, they are an error.
const RAFT_ONLY: &[&str] = &[
    "clients",
    "election_spread",
    "read",
    "lease_ms",
    "check_quorum",
    "think_ms",
    "request_timeout_ms",
    "read_percent",
    "readers",
];

impl Election {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let which = k.choice(
            "algorithm",
            &[("raft", Which::Raft), ("bully", Which::Bully), ("lease", Which::Lease)],
            Which::Raft,
            "Raft (seed 004, 9.5.2), bully (9.5.1: highest id wins; a teaching algorithm, not a production one), or a leader on an external lease (9.5.3: a TTL key in the `store`)",
        )?;
        let servers = k.uint(
            "servers",
            3,
            1,
            MAX_SERVERS,
            "servers server-0..; server-0 leads Raft's term 1, the highest id coordinates bully's epoch 1",
        )?;
        let clients = k.uint(
            "clients",
            if which == Which::Raft { 2 } else { 0 },
            0,
            MAX_CLIENTS,
            "register clients client-0.. (Raft only)",
        )?;
        let election_ns = k.millis(
            "election_timeout_ms",
            1_000,
            2,
            HOUR_MS,
            "a follower that hears no leader for this long (at least) campaigns",
        )?;
        let spread = k.choice(
            "election_spread",
            &[("random", Spread::Random), ("ranked", Spread::Ranked)],
            Spread::Random,
            "election timeouts uniform in [e, 2e) as Raft draws them, or server-i waiting e + i x e/20 so the first to campaign is known",
        )?;
        let heartbeat_ns = k.millis(
            "heartbeat_ms",
            100,
            1,
            HOUR_MS,
            "the leader's AppendEntries round interval",
        )?;
        let read = k.choice(
            "read",
            &[("read-index", ReadMode::ReadIndex), ("lease", ReadMode::Lease)],
            ReadMode::ReadIndex,
            "reads confirmed by a majority round (ReadIndex), or served from a leader lease",
        )?;
        let lease_ns = k.millis(
            "lease_ms",
            900,
            1,
            HOUR_MS,
            "a lease read's lease, from the send time of a round a majority acknowledged; safe only if lease + max clock drift < election_timeout_ms",
        )?;
        let check_quorum = k.bool(
            "check_quorum",
            true,
            "a leader that heard no majority for an election timeout steps down, and a follower that heard its leader ignores votes (etcd's CheckQuorum)",
        )?;
        let act_every_ns = k.millis(
            "act_every_ms",
            200,
            1,
            HOUR_MS,
            "the leader writes to the resource this often",
        )?;
        let fenced = k.choice(
            "fencing",
            &[("term", true), ("none", false)],
            true,
            "the resource refuses a write of a term older than one it accepted, or accepts every write",
        )?;
        let think_ns = k.millis("think_ms", 20, 1, HOUR_MS, "a client's pause between operations")?;
        let request_timeout_ns = k.millis(
            "request_timeout_ms",
            500,
            1,
            HOUR_MS,
            "a client gives an operation up (outcome unknown) after this long",
        )?;
        let read_percent = k.uint(
            "read_percent",
            50,
            0,
            100,
            "the share of operations that are reads, in percent",
        )?;
        let readers = k.uint(
            "readers",
            0,
            0,
            MAX_CLIENTS,
            "how many of the clients (the last ones) only read",
        )?;
        if readers > clients {
            return Err(k.error("readers", format!("{readers} readers but only {clients} clients")));
        }
        let answer_ns = k.millis(
            "answer_timeout_ms",
            100,
            1,
            HOUR_MS,
            "bully: an electing node that gets no OK from a higher id this long after its ELECTION coordinates",
        )?;
        let ttl_ns = k.millis(
            "ttl_ms",
            1_000,
            1,
            HOUR_MS,
            "lease: the store's key TTL; its holder renews every heartbeat_ms, the others ask as often",
        )?;
        let stop = k.choice(
            "stop",
            &[("real", Stop::Real), ("role_only", Stop::RoleOnly)],
            Stop::Real,
            "lease: stepping down cancels the leader's act timer, or changes only its role flag (the timer keeps writing its old epoch)",
        )?;
        let only = |algorithm: &str, keys: &[&str]| match keys.iter().find(|key| k.has(key)) {
            Some(key) => Err(k.error(key, format!("only {algorithm} reads this knob"))),
            None => Ok(()),
        };
        let algorithm = match which {
            Which::Raft => {
                only("algorithm = \"bully\"", &["answer_timeout_ms"])?;
                only("algorithm = \"lease\"", &["ttl_ms", "stop"])?;
                Algorithm::Raft
            }
            Which::Bully => {
                only("Raft (bully elects a coordinator and serves no register)", RAFT_ONLY)?;
                only("algorithm = \"lease\"", &["ttl_ms", "stop"])?;
                Algorithm::Bully(BullyConfig {
                    election_ns,
                    answer_ns,
                    heartbeat_ns,
                    act_every_ns,
                })
            }
            Which::Lease => {
                only("Raft (a leader on a lease serves no register)", RAFT_ONLY)?;
                only("algorithm = \"bully\"", &["answer_timeout_ms"])?;
                only("Raft and bully", &["election_timeout_ms"])?;
                Algorithm::Lease(LeaseConfig {
                    ttl_ns,
                    renew_every_ns: heartbeat_ns,
                    act_every_ns,
                    stop,
                })
            }
        };
        Ok(Box::new(Election {
            algorithm,
            servers: servers as u32,
            clients: clients as u32,
            raft: RaftConfig {
                election_ns,
                spread,
                heartbeat_ns,
                read,
                lease_ns,
                check_quorum,
                act_every_ns,
            },
            client: ClientConfig {
                servers: servers as usize,
                think_ns,
                request_timeout_ns,
                read_percent,
            },
            fenced,
            readers: readers as u32,
        }))
    }
}
