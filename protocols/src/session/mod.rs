//! The session store with CAS (DESIGN section 4; seed 000's session SQL, seed 001's shared
//! sessions): `clients` app servers `client-<i>` serve requests for one user's session, each
//! reading it from the store `server-0`, working, and saving it back. The user logs in at
//! `login_at_ms` and out at `logout_at_ms`, both through `client-0`.
//!
//! The known-wrong variants are knobs, so the catalogue shows each bug beside its fix:
//! `save = "last-write-wins"` (a slow request's save resurrects a logged-out session),
//! `refresh = "uncapped"` (the idle refresh carries the session past its absolute deadline),
//! `read_checks_expiry = false` (the read trusts the lazy cleanup to have deleted expired rows).

pub mod app;
pub mod check;
pub mod obs;
pub mod server;
pub mod store;

use locksim_sim::{Ctx, Node, NodeId, NodeSetup, Recording, TimerTag};

use crate::knobs::{HOUR_MS, KnobError, Knobs, MAX_CLIENTS, MAX_MS};
use crate::layout::{Layout, Role};
use crate::outcome::Outcome;
use crate::protocol::{Protocol, ProtocolSpec};
use crate::runner::run_world;
use crate::setting::Setting;
use app::{AppConfig, AppServer};
use obs::{APP_EVENTS, STORE_EVENTS, SessionMsg, SessionObs};
use server::StoreServer;
use store::{Policy, Refresh, SaveMode, SessionStore};

pub static SPEC: ProtocolSpec = ProtocolSpec {
    kind: "session-cas",
    summary: "a shared session store (server-0) and app servers that read, work and save it; save by version CAS or last-write-wins, logout = revoke + version bump, idle refresh capped at the absolute deadline or not, expiry checked at read or left to a lazy cleanup",
    parse: SessionCas::parse,
    invariants: check::SESSION_INVARIANTS,
    // The version CAS save, the capped idle refresh, the expiry check at read time (instead of
    // trusting the lazy cleanup).
    protections: &["protocol.save", "protocol.refresh", "protocol.read_checks_expiry"],
};

/// `kind = "session-cas"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionCas {
    pub clients: u32,
    pub request_every_ns: u64,
    pub request_ns: u64,
    pub request_timeout_ns: u64,
    pub login_at_ns: u64,
    pub logout_at_ns: Option<u64>,
    pub policy: Policy,
    pub cleanup_every_ns: u64,
}

/// A duration knob that may be absent (`None`); documented as such.
fn optional_millis(k: &mut Knobs, key: &str, doc: &'static str) -> Result<Option<u64>, KnobError> {
    if k.has(key) {
        k.millis(key, 0, 0, MAX_MS, doc).map(Some)
    } else {
        k.raw(key, "integer >= 0, or absent", doc);
        Ok(None)
    }
}

/// When the user logs in and (if ever) out: a logout must come after the login.
fn parse_login_logout(k: &mut Knobs) -> Result<(u64, Option<u64>), KnobError> {
    let login_at_ns = k.millis("login_at_ms", 0, 0, MAX_MS, "when the user logs in (through client-0)")?;
    let logout_at_ns = optional_millis(
        k,
        "logout_at_ms",
        "when the user logs out through client-0 (absent: never)",
    )?;
    if let Some(at) = logout_at_ns.filter(|at| *at <= login_at_ns) {
        return Err(k.error(
            "logout_at_ms",
            format!(
                "must be after login_at_ms ({} ms), got {} ms",
                login_at_ns / 1_000_000,
                at / 1_000_000
            ),
        ));
    }
    Ok((login_at_ns, logout_at_ns))
}

/// The store's session policy: how saves are written, the two timeouts and how a save
/// refreshes them, and whether a read checks the expiry itself.
fn parse_policy(k: &mut Knobs) -> Result<Policy, KnobError> {
    let save = k.choice(
        "save",
        &[("cas", SaveMode::Cas), ("last-write-wins", SaveMode::LastWriteWins)],
        SaveMode::Cas,
        "save by the seed's version CAS (with revocation and both deadlines in the WHERE), or (wrong) write the whole object back",
    )?;
    let idle_ns = k.millis(
        "idle_ms",
        30_000,
        1,
        MAX_MS,
        "idle timeout: each save moves the session's expiry to now + this",
    )?;
    let absolute_ns = k.millis(
        "absolute_ms",
        HOUR_MS,
        1,
        MAX_MS,
        "absolute timeout: the session ends this long after login, however active",
    )?;
    let refresh = k.choice(
        "refresh",
        &[("capped", Refresh::Capped), ("uncapped", Refresh::Uncapped)],
        Refresh::Capped,
        "idle refresh min(now + idle, absolute deadline), or (wrong) now + idle",
    )?;
    let read_checks_expiry = k.bool(
        "read_checks_expiry",
        true,
        "a read refuses an expired record; false: it trusts the cleanup to have deleted it",
    )?;
    Ok(Policy {
        save,
        refresh,
        read_checks_expiry,
        idle_ns,
        absolute_ns,
    })
}

impl SessionCas {
    pub fn parse(k: &mut Knobs) -> Result<Box<dyn Protocol>, KnobError> {
        let clients = k.uint("clients", 2, 1, MAX_CLIENTS, "number of app servers client-0..")? as u32;
        let request_every_ns = k.millis(
            "request_every_ms",
            1_000,
            1,
            HOUR_MS,
            "each app server gets a request for the session this often (client-i's first at login + (2i+1)/(2 clients) of it)",
        )?;
        let request_ns = k.millis(
            "request_ms",
            100,
            0,
            HOUR_MS,
            "a request's work between reading the session and saving it",
        )?;
        let request_timeout_ns = k.millis(
            "request_timeout_ms",
            1_000,
            1,
            HOUR_MS,
            "how long an app server waits for the store before giving a request up",
        )?;
        let (login_at_ns, logout_at_ns) = parse_login_logout(k)?;
        let policy = parse_policy(k)?;
        let cleanup_every_ns = k.millis(
            "cleanup_every_ms",
            60_000,
            0,
            MAX_MS,
            "the store's lazy cleanup deletes expired records this often (0 = never)",
        )?;
        Ok(Box::new(SessionCas {
            clients,
            request_every_ns,
            request_ns,
            request_timeout_ns,
            login_at_ns,
            logout_at_ns,
            policy,
            cleanup_every_ns,
        }))
    }

    /// The nodes: the app servers, then the store.
    fn declare(&self) -> (Layout, Vec<NodeId>, NodeId) {
        let mut layout = Layout::default();
        let apps = layout.group("client", self.clients, Role::Client, APP_EVENTS);
        let store = layout.one("server-0", Role::Server, STORE_EVENTS);
        (layout, apps, store)
    }

    /// The world's nodes: app servers, spread evenly over each request period, then the store.
    pub fn build(&self, setting: Setting<'_>) -> Vec<NodeSetup<SessionNode>> {
        let (layout, apps, store) = self.declare();
        let n = u64::from(self.clients);
        let mut nodes = layout.setups(|node| setting.clock_of(node));
        for (i, &app) in apps.iter().enumerate() {
            let i = i as u64;
            let first = self.login_at_ns + (2 * i + 1) * self.request_every_ns / (2 * n);
            let cfg = AppConfig {
                first_request_ns: first,
                request_every_ns: self.request_every_ns,
                request_ns: self.request_ns,
                request_timeout_ns: self.request_timeout_ns,
                login_at_ns: (i == 0).then_some(self.login_at_ns),
                logout_at_ns: self.logout_at_ns.filter(|_| i == 0),
            };
            nodes.add(app, SessionNode::App(AppServer::new(cfg, store)));
        }
        let sessions = SessionStore::new(self.policy);
        nodes.add(
            store,
            SessionNode::Store(StoreServer::new(sessions, self.cleanup_every_ns)),
        );
        nodes.finish()
    }
}

impl Protocol for SessionCas {
    fn spec(&self) -> &'static ProtocolSpec {
        &SPEC
    }

    fn layout(&self) -> Layout {
        self.declare().0
    }

    fn run(&self, setting: Setting<'_>, seed: u64, recording: Recording<'_>) -> Outcome {
        run_world(
            self.build(setting),
            setting,
            seed,
            recording,
            check::SessionJudge::default(),
        )
    }
}

/// Every role of a session world.
pub enum SessionNode {
    App(AppServer),
    Store(StoreServer),
}

type SessionCtx<'a> = Ctx<'a, SessionMsg, SessionObs>;

impl Node for SessionNode {
    type Msg = SessionMsg;
    type Obs = SessionObs;

    fn on_start(&mut self, ctx: &mut SessionCtx<'_>) {
        match self {
            SessionNode::App(n) => n.on_start(ctx),
            SessionNode::Store(n) => n.on_start(ctx),
        }
    }

    fn on_msg(&mut self, ctx: &mut SessionCtx<'_>, from: NodeId, msg: SessionMsg) {
        match self {
            SessionNode::App(n) => n.on_msg(ctx, msg),
            SessionNode::Store(n) => n.on_msg(ctx, from, msg),
        }
    }

    fn on_timer(&mut self, ctx: &mut SessionCtx<'_>, tag: TimerTag) {
        match self {
            SessionNode::App(n) => n.on_timer(ctx, tag),
            SessionNode::Store(n) => n.on_timer(ctx, tag),
        }
    }

    /// The store is a database and loses nothing; an app server drops its request in progress.
    fn on_crash(&mut self, _ctx: &mut SessionCtx<'_>) {
        if let SessionNode::App(n) = self {
            n.on_crash();
        }
    }
}
