//! An app server (`client-<i>`): the shared-session pattern of seed 000 and seed 001 — every
//! request reads the session from the store, works, and saves it back, which refreshes its
//! idle deadline. Requests for the session arrive on a fixed cadence of the app server's
//! monotonic clock; one is handled at a time, and one that arrives while another is in
//! progress is turned away without touching the session. `client-0` also carries the user's
//! login and logout, at fixed instants of its monotonic clock.
//!
//! The app server judges nothing itself: a request is served exactly when the store's read
//! said the session is valid. What the store's read checks is the store's policy.

use locksim_sim::{Ctx, NodeId, TimerTag};

use super::obs::{SessionMsg, SessionObs};
use super::store::{ReadAnswer, Record};

/// The next request arrives.
const TICK: TimerTag = 0;
/// The request's work is done: save.
const WORK: TimerTag = 1;
/// The outstanding read or save went unanswered.
const TIMEOUT: TimerTag = 2;
const LOGIN: TimerTag = 3;
const LOGOUT: TimerTag = 4;

/// How an app server runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AppConfig {
    /// When its first request arrives, on its monotonic clock.
    pub first_request_ns: u64,
    pub request_every_ns: u64,
    /// Work between the read and the save.
    pub request_ns: u64,
    pub request_timeout_ns: u64,
    /// The user's login and logout (client-0 only).
    pub login_at_ns: Option<u64>,
    pub logout_at_ns: Option<u64>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Reading,
    Working(Record),
    Saving,
}

#[derive(Copy, Clone, Debug)]
struct InFlight {
    req: u64,
    phase: Phase,
}

pub struct AppServer {
    cfg: AppConfig,
    store: NodeId,
    /// Request numbers are never reused, even across a restart: each stands for a distinct
    /// HTTP request, and the checkers pair a store's read with the request it served by it.
    next_req: u64,
    /// Volatile: a crash drops the request in progress.
    current: Option<InFlight>,
}

type AppCtx<'a> = Ctx<'a, SessionMsg, SessionObs>;

impl AppServer {
    pub fn new(cfg: AppConfig, store: NodeId) -> Self {
        AppServer {
            cfg,
            store,
            next_req: 1,
            current: None,
        }
    }

    /// Time from `mono_ns` to the next arrival on the cadence `first + k * every`, strictly
    /// later than `mono_ns` once the first has passed (a late tick does not arrive twice).
    fn until_next_request(&self, mono_ns: u64, fired: bool) -> u64 {
        let first = self.cfg.first_request_ns;
        if mono_ns < first || (mono_ns == first && !fired) {
            return first - mono_ns;
        }
        let every = self.cfg.request_every_ns;
        let k = (mono_ns - first) / every + 1;
        first + k * every - mono_ns
    }

    pub fn on_start(&mut self, ctx: &mut AppCtx<'_>) {
        self.current = None;
        let mono = ctx.mono_ns();
        ctx.set_timer(TICK, self.until_next_request(mono, false));
        // A login or logout whose instant passed while this process was down is lost.
        for (tag, at) in [(LOGIN, self.cfg.login_at_ns), (LOGOUT, self.cfg.logout_at_ns)] {
            if let Some(at) = at.filter(|at| *at >= mono) {
                ctx.set_timer(tag, at - mono);
            }
        }
    }

    pub fn on_crash(&mut self) {
        self.current = None;
    }

    pub fn on_timer(&mut self, ctx: &mut AppCtx<'_>, tag: TimerTag) {
        match tag {
            TICK => self.request_arrives(ctx),
            WORK => {
                if let Some(InFlight {
                    req,
                    phase: Phase::Working(observed),
                }) = self.current
                {
                    ctx.record(SessionObs::SaveSent {
                        req,
                        version: observed.version,
                    });
                    ctx.send(self.store, SessionMsg::Save { req, observed });
                    self.current = Some(InFlight {
                        req,
                        phase: Phase::Saving,
                    });
                    ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
                }
            }
            TIMEOUT => {
                if let Some(InFlight { req, .. }) = self.current.take() {
                    ctx.record(SessionObs::RequestTimedOut { req });
                }
            }
            LOGIN => ctx.send(self.store, SessionMsg::Login { req: 0 }),
            LOGOUT => ctx.send(self.store, SessionMsg::Logout { req: 0 }),
            _ => {}
        }
    }

    fn request_arrives(&mut self, ctx: &mut AppCtx<'_>) {
        let req = self.next_req;
        self.next_req += 1;
        match self.current {
            Some(busy) => ctx.record(SessionObs::RequestSkipped {
                req,
                busy_with: busy.req,
            }),
            None => {
                ctx.record(SessionObs::RequestStarted { req });
                ctx.send(self.store, SessionMsg::Read { req });
                ctx.set_timer(TIMEOUT, self.cfg.request_timeout_ns);
                self.current = Some(InFlight {
                    req,
                    phase: Phase::Reading,
                });
            }
        }
        ctx.set_timer(TICK, self.until_next_request(ctx.mono_ns(), true));
    }

    pub fn on_msg(&mut self, ctx: &mut AppCtx<'_>, msg: SessionMsg) {
        match msg {
            SessionMsg::LoginReply { record, .. } => ctx.record(SessionObs::LoginDone {
                version: record.version,
            }),
            SessionMsg::LogoutReply { revoked, .. } => ctx.record(SessionObs::LogoutDone {
                revoked: revoked.is_some(),
            }),
            SessionMsg::ReadReply { req, answer } => {
                if !matches!(self.current, Some(InFlight { req: r, phase: Phase::Reading }) if r == req) {
                    return;
                }
                ctx.cancel_timer(TIMEOUT);
                match answer {
                    ReadAnswer::Valid { record } => {
                        // Recorded before the work timer is set, so a pause placed after it
                        // holds the rest of the request back.
                        ctx.record(SessionObs::RequestServed { req, record });
                        self.current = Some(InFlight {
                            req,
                            phase: Phase::Working(record),
                        });
                        ctx.set_timer(WORK, self.cfg.request_ns);
                    }
                    ReadAnswer::Invalid { why } => {
                        ctx.record(SessionObs::RequestRefused { req, why });
                        self.current = None;
                    }
                }
            }
            SessionMsg::SaveReply { req, saved } => {
                if !matches!(self.current, Some(InFlight { req: r, phase: Phase::Saving }) if r == req) {
                    return;
                }
                ctx.cancel_timer(TIMEOUT);
                self.current = None;
                match saved {
                    Ok(record) => ctx.record(SessionObs::Saved {
                        req,
                        version: record.version,
                    }),
                    Err(refusals) => ctx.record(SessionObs::SaveRejected { req, refusals }),
                }
            }
            _ => {}
        }
    }
}
