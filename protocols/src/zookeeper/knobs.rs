//! `[protocol]` for `kind = "zookeeper"`: the lock client's loop (DESIGN 4b, without a lock
//! TTL — a ZooKeeper lock lasts as long as its session), the session and its ensemble, and the
//! recipe's known-wrong variants.

use super::ZooKeeper;
use super::client::{Suspended, WatchTarget, ZkClientConfig};
use super::server::ServerConfig;
use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS, MAX_MS};
use crate::lock::knobs::{Acquire, ClientConfig, DeadlineCheck, FencingTokens, Release, Renew};
use crate::protocol::Protocol;

impl ZooKeeper {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of lock clients client-0..")? as u32;
        let servers = k.uint(
            "servers",
            3,
            1,
            31,
            "ensemble members server-0.. (server-0 leads; a majority must log every write)",
        )? as u32;
        let tick_ns = k.millis(
            "tick_ms",
            2_000,
            1,
            60_000,
            "ZooKeeper's tickTime: the leader expires sessions on tick boundaries; a session timeout is negotiated into [2, 20] ticks",
        )?;
        let session_timeout_ns = k.millis(
            "session_timeout_ms",
            6_000,
            1,
            HOUR_MS,
            "the session timeout the client asks for: the leader expires a session it has not heard from for this long",
        )?;
        let client = parse_client(k)?;
        let zk = ZkClientConfig {
            session_timeout_ns,
            watch: k.choice(
                "watch",
                &[
                    ("predecessor", WatchTarget::Predecessor),
                    ("parent", WatchTarget::Parent),
                ],
                WatchTarget::Predecessor,
                "what a waiter watches: the node before its own, or (the herd) the lock path's children",
            )?,
            reread_children: k.bool(
                "reread_children",
                true,
                "when its watch fires, a waiter reads the children again (false: takes the lock on a stale view)",
            )?,
            suspended: k.choice(
                "suspended",
                &[("lost", Suspended::Lost), ("holding", Suspended::Holding)],
                Suspended::Lost,
                "what a holder makes of a SUSPENDED connection: the lock is lost (Curator), or (wrong) still held",
            )?,
        };
        if !zk.reread_children && zk.watch == WatchTarget::Parent {
            return Err(k.error(
                "reread_children",
                "false applies to watch = \"predecessor\" only: a waiter watching the parent learns nothing from its notification but that the children changed",
            ));
        }
        let liveness_window_ns = k.millis(
            "liveness_window_ms",
            3 * session_timeout_ns / 1_000_000,
            1,
            MAX_MS,
            "liveness: some client must acquire within this after the last fault (default 3 x session_timeout_ms)",
        )?;
        Ok(Box::new(ZooKeeper {
            clients,
            servers,
            client,
            zk,
            server: ServerConfig {
                tick_ns,
                czxid_tokens: client.fencing_tokens == FencingTokens::Revision,
            },
            liveness_window_ns,
        }))
    }
}

/// The lock client's loop knobs that apply to a ZooKeeper client.
fn parse_client(k: &mut Knobs) -> Result<ClientConfig, KnobError> {
    Ok(ClientConfig {
        ttl_ns: 0,
        work_ns: k.millis(
            "work_ms",
            1_000,
            0,
            HOUR_MS,
            "time between reading the counter and writing it",
        )?,
        think_ns: k.millis(
            "think_ms",
            200,
            0,
            HOUR_MS,
            "pause after releasing, before the next round",
        )?,
        retry_ns: 0,
        request_timeout_ns: k.millis(
            "request_timeout_ms",
            1_000,
            1,
            HOUR_MS,
            "how long a client waits for an answer before asking again",
        )?,
        renew_every_ns: 0,
        start_stagger_ns: k.millis(
            "start_stagger_ms",
            10,
            0,
            HOUR_MS,
            "client-i starts at i x this, so stories start in a known order",
        )?,
        release: Release::CompareAndDelete,
        acquire: Acquire::SetNxPx,
        renew: Renew::Checked,
        deadline_check: k.choice(
            "deadline_check",
            &[
                ("before_write", DeadlineCheck::BeforeWrite),
                ("once", DeadlineCheck::Once),
                ("never", DeadlineCheck::Never),
            ],
            DeadlineCheck::BeforeWrite,
            "when the holder checks it has heard from its server within the read timeout (2/3 of the session timeout)",
        )?,
        fencing_tokens: k.choice(
            "fencing_tokens",
            &[("none", FencingTokens::None), ("czxid", FencingTokens::Revision)],
            FencingTokens::None,
            "fencing tokens: czxid = the zxid that created the holder's lock node",
        )?,
    })
}
