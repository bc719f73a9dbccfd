//! The knobs every lock protocol shares: the lock client's (DESIGN section 4b), including the
//! known-wrong variants that the catalogue runs beside their fixes, and the liveness window
//! the lock checkers judge by.

use serde::Serialize;

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_MS};

/// How the lock is released.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Release {
    /// The seed's Lua script: delete only if the key still holds our lease.
    CompareAndDelete,
    /// Wrong: `DEL` deletes whoever's key is there.
    PlainDel,
}

/// How the lock is taken.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Acquire {
    /// `SET key lease NX PX ttl`: atomic, never without a TTL.
    SetNxPx,
    /// Wrong: `SETNX` then `EXPIRE` as two commands; a crash between them leaks the key.
    SetNxThenExpire,
}

/// How a renewal is made.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Renew {
    /// Check the local deadline, then compare-and-`PEXPIRE`.
    Checked,
    /// Wrong: `PEXPIRE` whatever key is there, without checking the deadline.
    Blind,
}

/// When the client checks its lease deadline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeadlineCheck {
    BeforeWrite,
    /// Only once, right after acquiring.
    Once,
    Never,
}

/// Where fencing tokens come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FencingTokens {
    None,
    /// `INCR` on the lock's own Redis, in the acquire script.
    Incr,
    /// `INCR` on a separate counter Redis (`counter`), after the lock is held: Redlock has no
    /// token of its own, so a scenario that wants fencing must bring one.
    Counter,
    /// The lock key's create revision (etcd).
    Revision,
}

/// The clock a Redlock client measures an acquisition's elapsed time on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ElapsedClock {
    /// Steps of the wall clock do not move it (the seed's sample code: `time.monotonic()`).
    Monotonic,
    /// What redlock-py (`time.time()`), node-redlock (`Date.now()`) and Redisson
    /// (`System.currentTimeMillis()`) read: a step during the acquisition is counted as
    /// elapsed time, and a backward one inflates the validity.
    Wall,
}

/// The lock client's configuration.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ClientConfig {
    pub ttl_ns: u64,
    pub work_ns: u64,
    pub think_ns: u64,
    pub retry_ns: u64,
    pub request_timeout_ns: u64,
    pub renew_every_ns: u64,
    pub start_stagger_ns: u64,
    pub release: Release,
    pub acquire: Acquire,
    pub renew: Renew,
    pub deadline_check: DeadlineCheck,
    pub fencing_tokens: FencingTokens,
}

impl ClientConfig {
    /// Reads the client knobs of `[protocol]`; `tokens` are the token sources the protocol
    /// offers, `retry_key` what it calls the retry delay (`retry_delay_ms` in Redlock's
    /// description). `redis` adds the Redis command variants (release, acquire, renewal); a
    /// protocol without them leaves those knobs unread, so setting one is an unknown key.
    pub fn parse(
        k: &mut Knobs,
        tokens: &[(&str, FencingTokens)],
        retry_key: &str,
        redis: bool,
    ) -> Result<Self, KnobError> {
        let mut cfg = Self::parse_loop(k, tokens, retry_key)?;
        if redis {
            cfg.parse_redis_commands(k)?;
        }
        if cfg.renew_every_ns >= cfg.ttl_ns {
            return Err(k.error(
                "renew_every_ms",
                format!(
                    "must be below ttl_ms ({} ms), or the lease lapses between renewals",
                    cfg.ttl_ns / 1_000_000
                ),
            ));
        }
        Ok(cfg)
    }

    /// The knobs of the client's loop, which every lock client runs (every duration capped
    /// at an hour: "put a limit on everything"); the Redis command variants at their fixes.
    fn parse_loop(k: &mut Knobs, tokens: &[(&str, FencingTokens)], retry_key: &str) -> Result<Self, KnobError> {
        let ttl_ns = k.millis(
            "ttl_ms",
            10_000,
            1,
            HOUR_MS,
            "lock TTL: the key's expiry and the client's lease",
        )?;
        Ok(ClientConfig {
            ttl_ns,
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
            retry_ns: k.millis(
                retry_key,
                100,
                1,
                HOUR_MS,
                "base retry delay; doubles per failed attempt up to 4x, plus up to half of it as jitter",
            )?,
            request_timeout_ns: k.millis(
                "request_timeout_ms",
                1_000,
                1,
                HOUR_MS,
                "how long a client waits for any reply before giving the request up",
            )?,
            renew_every_ns: 0,
            start_stagger_ns: k.millis(
                "start_stagger_ms",
                10,
                0,
                HOUR_MS,
                "client-i starts its first round at i x this, so stories start in a known order",
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
                "when the client checks its lease deadline on its monotonic clock",
            )?,
            fencing_tokens: k.choice(
                "fencing_tokens",
                tokens,
                FencingTokens::None,
                "fencing tokens: incr = INCR in the lock's own acquire script, counter = INCR on a separate Redis, revision = the lock key's create revision",
            )?,
        })
    }

    /// The Redis command variants: renewal, release, acquire (each with its known-wrong
    /// variant).
    fn parse_redis_commands(&mut self, k: &mut Knobs) -> Result<(), KnobError> {
        self.renew_every_ns = k.millis(
            "renew_every_ms",
            0,
            0,
            HOUR_MS,
            "watchdog renewal period while holding (0 = off)",
        )?;
        self.release = k.choice(
            "release",
            &[
                ("compare-and-delete", Release::CompareAndDelete),
                ("plain-del", Release::PlainDel),
            ],
            Release::CompareAndDelete,
            "release by the seed's compare-and-delete script, or (wrong) by plain DEL",
        )?;
        self.acquire = k.choice(
            "acquire",
            &[
                ("set-nx-px", Acquire::SetNxPx),
                ("setnx-then-expire", Acquire::SetNxThenExpire),
            ],
            Acquire::SetNxPx,
            "atomic SET NX PX, or (wrong) SETNX then EXPIRE as two commands",
        )?;
        self.renew = k.choice(
            "renew",
            &[("checked", Renew::Checked), ("blind", Renew::Blind)],
            Renew::Checked,
            "renewal checks the deadline and compares the lease, or (wrong) PEXPIREs blindly",
        )?;
        Ok(())
    }
}

/// Reads `liveness_window_ms`, whose default is three TTLs.
pub fn parse_liveness_window(k: &mut Knobs, ttl_ns: u64) -> Result<u64, KnobError> {
    k.millis(
        "liveness_window_ms",
        3 * ttl_ns / 1_000_000,
        1,
        MAX_MS,
        "liveness: some client must acquire within this after the last fault (default 3 x ttl)",
    )
}
