//! The glue between the scenario's client knobs and the example user crate: what a user
//! writes once to put their own client under the front-end. Shared by the example binary,
//! the tests and the bench (`#[path]`-included).

use std::sync::Arc;
use std::time::Duration;

use locksim_madsim::{ClientEnv, ClientFn};
use locksim_protocols::lock::knobs::{Acquire, ClientConfig, DeadlineCheck, FencingTokens, Release, Renew};
use user_redis_lock::{Config, Endpoints, LockClient, ValidityFrom};

/// The example client's configuration for the scenario's knobs, or the knob it cannot honour.
pub fn user_config(c: &ClientConfig, validity_from: ValidityFrom) -> Result<Config, String> {
    if c.acquire != Acquire::SetNxPx {
        return Err("protocol.acquire: the example client acquires with SET NX PX only".into());
    }
    if c.renew != Renew::Checked {
        return Err("protocol.renew: the example client renews with the compare-and-pexpire script only".into());
    }
    let ms = |ns: u64| Duration::from_nanos(ns);
    Ok(Config {
        ttl: ms(c.ttl_ns),
        work: ms(c.work_ns),
        think: ms(c.think_ns),
        retry: ms(c.retry_ns),
        request_timeout: ms(c.request_timeout_ns),
        start_delay: Duration::ZERO,
        deadline_check: match c.deadline_check {
            DeadlineCheck::Never => user_redis_lock::DeadlineCheck::Never,
            DeadlineCheck::Once => user_redis_lock::DeadlineCheck::Once,
            DeadlineCheck::BeforeWrite => user_redis_lock::DeadlineCheck::BeforeWrite,
        },
        fencing_tokens: c.fencing_tokens == FencingTokens::Incr,
        release: match c.release {
            Release::CompareAndDelete => user_redis_lock::Release::CompareAndDelete,
            Release::PlainDel => user_redis_lock::Release::PlainDel,
        },
        renew_every: (c.renew_every_ns > 0).then(|| ms(c.renew_every_ns)),
        validity_from,
    })
}

/// The user's client for every client node; `config` is checked here, before any run.
pub fn client_fn(config: &ClientConfig, validity_from: ValidityFrom) -> Result<ClientFn, String> {
    user_config(config, validity_from)?;
    Ok(Arc::new(move |env: ClientEnv| {
        let mut cfg = user_config(&env.config, validity_from).expect("checked before the run");
        cfg.start_delay = Duration::from_nanos(env.config.start_stagger_ns * u64::from(env.index));
        let at = Endpoints {
            redis: env.redis,
            resource: env.resource,
        };
        let client = LockClient::new(cfg, env.clock, env.report, at, u64::from(env.index));
        Box::pin(client.run())
    }))
}
