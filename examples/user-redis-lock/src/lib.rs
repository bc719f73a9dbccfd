//! An async Redis lock client as a library author would ship it: tokio and the clock
//! interface, nothing else. One instance runs the loop of the Redis documentation's
//! single-instance lock around a fenced counter: acquire with `SET lock <random> NX PX ttl`
//! (retrying with backoff), optionally take a fencing token with `INCR fence`, read the
//! counter, work, check the lease, write counter+1 (with the token), release with the
//! documentation's compare-and-delete script, think, again.
//!
//! It reads time only through [`Clock`] and reports what only it knows through [`Report`]: in
//! production `SystemClock` and `NoReport`; under locksim's madsim front-end, the node's
//! scenario clock and the checkers' history.

mod conn;

use std::net::SocketAddr;
use std::time::Duration;

pub use conn::{CallError, Conn, Reply};
use locksim_clock::{Clock, Report, nanos};

/// The release script of the Redis documentation's distributed-lock page.
pub const RELEASE_SCRIPT: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("del",KEYS[1])
else
    return 0
end"#;

/// The renewal: the release script with `pexpire` for `del`.
pub const RENEW_SCRIPT: &str = r#"if redis.call("get",KEYS[1]) == ARGV[1] then
    return redis.call("pexpire",KEYS[1],ARGV[2])
else
    return 0
end"#;

/// When the client checks its lease before using it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DeadlineCheck {
    Never,
    /// Right after acquiring only.
    Once,
    BeforeWrite,
}

/// How the lock is released.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Release {
    /// The documentation's script: delete only our own value.
    CompareAndDelete,
    /// Wrong: `DEL lock`, whoever holds it.
    PlainDel,
}

/// Where the lease's validity is counted from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValidityFrom {
    /// From before the `SET` was sent: the Redis documentation's rule.
    Send,
    /// Deliberately wrong: from after the reply arrived, so time the request spent in
    /// flight or the client spent paused is counted as still valid.
    Reply,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub ttl: Duration,
    pub work: Duration,
    pub think: Duration,
    pub retry: Duration,
    pub request_timeout: Duration,
    /// Before the first round: spreads clients' starts.
    pub start_delay: Duration,
    pub deadline_check: DeadlineCheck,
    pub fencing_tokens: bool,
    pub release: Release,
    /// Renew during the work every this often (`None`: never).
    pub renew_every: Option<Duration>,
    pub validity_from: ValidityFrom,
}

/// Where the lock and the resource are.
#[derive(Copy, Clone, Debug)]
pub struct Endpoints {
    pub redis: SocketAddr,
    pub resource: SocketAddr,
}

/// One client process.
pub struct LockClient<C, R> {
    cfg: Config,
    clock: C,
    report: R,
    redis: Conn,
    resource: Conn,
    /// Feeds lock values and backoff jitter (a splitmix64 stream).
    state: u64,
}

/// Why a round ended early.
struct Abort;

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl<C: Clock, R: Report> LockClient<C, R> {
    /// `id` tells this process's lock values apart from other processes'.
    pub fn new(cfg: Config, clock: C, report: R, at: Endpoints, id: u64) -> Self {
        let state = id ^ (clock.wall_ns() as u64).rotate_left(17) ^ clock.mono_ns();
        LockClient {
            cfg,
            clock,
            report,
            redis: Conn::new(at.redis),
            resource: Conn::new(at.resource),
            state,
        }
    }

    /// Runs rounds for ever.
    pub async fn run(mut self) {
        self.clock.sleep(self.cfg.start_delay).await;
        loop {
            let lease = format!("{:016x}", splitmix(&mut self.state));
            let _ = self.round(&lease).await;
            self.clock.sleep(self.cfg.think).await;
        }
    }

    async fn redis(&mut self, args: &[&[u8]]) -> Result<Reply, CallError> {
        self.redis.redis(&self.clock, self.cfg.request_timeout, args).await
    }

    async fn resource(&mut self, line: &str) -> Result<String, CallError> {
        self.resource.line(&self.clock, self.cfg.request_timeout, line).await
    }

    /// One round: acquire, use, release. A failure after acquiring still releases, as a
    /// `finally` block would.
    async fn round(&mut self, lease: &str) -> Result<(), Abort> {
        let (token, deadline_ns) = self.acquire(lease).await;
        let result = self.hold(lease, token, deadline_ns).await;
        self.release(lease).await;
        result
    }

    /// Retries until it holds the lock: its fencing token and its deadline (monotonic ns).
    async fn acquire(&mut self, lease: &str) -> (Option<u64>, u64) {
        let ttl_ms = self.cfg.ttl.as_millis().to_string();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let sent_ns = self.clock.mono_ns();
            let set = [&b"SET"[..], b"lock", lease.as_bytes(), b"NX", b"PX", ttl_ms.as_bytes()];
            if let Ok(Reply::Simple(ok)) = self.redis(&set).await
                && ok == "OK"
            {
                let token = if self.cfg.fencing_tokens {
                    match self.redis(&[b"INCR", b"fence"]).await {
                        Ok(Reply::Int(t)) => Some(t as u64),
                        _ => None,
                    }
                } else {
                    None
                };
                if !self.cfg.fencing_tokens || token.is_some() {
                    let from_ns = match self.cfg.validity_from {
                        ValidityFrom::Send => sent_ns,
                        ValidityFrom::Reply => self.clock.mono_ns(),
                    };
                    let validity_ns = nanos(self.cfg.ttl) as i64 - (self.clock.mono_ns() - from_ns) as i64;
                    if validity_ns > 0 {
                        self.report.acquired(lease, token, validity_ns).await;
                        return (token, self.clock.mono_ns() + validity_ns as u64);
                    }
                }
                // Set but unusable: give it back at once.
                self.delete(lease).await;
            }
            let base = nanos(self.cfg.retry);
            let backoff = (base << attempt.saturating_sub(1).min(2)) + splitmix(&mut self.state) % (base / 2 + 1);
            self.clock.sleep(Duration::from_nanos(backoff)).await;
        }
    }

    /// Records the check; whether the lease is still valid by the monotonic clock.
    async fn check(&mut self, deadline_ns: u64) -> Result<(), Abort> {
        let remaining_ns = deadline_ns as i64 - self.clock.mono_ns() as i64;
        let ok = remaining_ns > 0;
        self.report.deadline_checked(remaining_ns, ok).await;
        if ok {
            Ok(())
        } else {
            self.report.lost("its lease deadline had passed when it checked").await;
            Err(Abort)
        }
    }

    async fn hold(&mut self, lease: &str, token: Option<u64>, mut deadline_ns: u64) -> Result<(), Abort> {
        if self.cfg.deadline_check == DeadlineCheck::Once {
            self.check(deadline_ns).await?;
        }
        let read = self.resource("READ").await.map_err(|_| Abort)?;
        let value: u64 = read.strip_prefix("VALUE ").and_then(|v| v.parse().ok()).ok_or(Abort)?;
        self.report.read_done(value).await;
        self.work(lease, &mut deadline_ns).await?;
        if self.cfg.deadline_check == DeadlineCheck::BeforeWrite {
            self.check(deadline_ns).await?;
        }
        self.report.write_sent(token, value + 1).await;
        let token_word = token.map_or("-".to_string(), |t| t.to_string());
        let write = format!("WRITE {} {value} {token_word} {lease}", value + 1);
        // ACCEPTED or REJECTED: either way the round is over.
        self.resource(&write).await.map_err(|_| Abort)?;
        Ok(())
    }

    /// Works for `work`, renewing the lease every `renew_every` meanwhile.
    async fn work(&mut self, lease: &str, deadline_ns: &mut u64) -> Result<(), Abort> {
        let end_ns = self.clock.mono_ns() + nanos(self.cfg.work);
        let ttl_ms = self.cfg.ttl.as_millis().to_string();
        loop {
            let now_ns = self.clock.mono_ns();
            if now_ns >= end_ns {
                return Ok(());
            }
            let Some(every) = self.cfg.renew_every else {
                self.clock.sleep(Duration::from_nanos(end_ns - now_ns)).await;
                continue;
            };
            let step = nanos(every).min(end_ns - now_ns);
            self.clock.sleep(Duration::from_nanos(step)).await;
            if step < nanos(every) {
                continue;
            }
            if *deadline_ns <= self.clock.mono_ns() {
                self.report
                    .lost("its lease deadline passed before it could renew")
                    .await;
                return Err(Abort);
            }
            let sent_ns = self.clock.mono_ns();
            let renew = [
                &b"EVAL"[..],
                RENEW_SCRIPT.as_bytes(),
                b"1",
                b"lock",
                lease.as_bytes(),
                ttl_ms.as_bytes(),
            ];
            match self.redis(&renew).await {
                Ok(Reply::Int(1)) => {
                    *deadline_ns = sent_ns + nanos(self.cfg.ttl);
                    self.report.renewed(*deadline_ns).await;
                }
                Ok(_) => {
                    self.report.lost("a renewal found the key no longer ours").await;
                    return Err(Abort);
                }
                // Unanswered: try again at the next period.
                Err(_) => {}
            }
        }
    }

    /// Stops holding, then sends the release.
    async fn release(&mut self, lease: &str) {
        self.report.releasing(lease).await;
        self.delete(lease).await;
    }

    async fn delete(&mut self, lease: &str) {
        let _ = match self.cfg.release {
            Release::CompareAndDelete => {
                self.redis(&[b"EVAL", RELEASE_SCRIPT.as_bytes(), b"1", b"lock", lease.as_bytes()])
                    .await
            }
            Release::PlainDel => self.redis(&[b"DEL", b"lock"]).await,
        };
    }
}
