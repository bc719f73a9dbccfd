//! `session_deadline`, as the run goes.

use locksim_sim::check::{NodeTable, count};
use locksim_sim::time::{fmt_duration, fmt_secs, fmt_signed_secs};
use locksim_sim::{Event, Names, Status};

use super::Found;
use crate::session::obs::{SessionMsg, SessionObs};
use crate::session::store::ReadAnswer;

/// What `session_deadline` keeps: the session's life (three numbers), two counters, the first
/// violation, and per app server the store's reads of the requests it may still serve.
///
/// That last list stays short because an app server serves only the request it started last:
/// it starts a request only when none is in progress, and numbers requests afresh (never
/// reusing one, even across a restart), so once it records `request_started` for request
/// `r`, no earlier request of its can be served and their reads are dropped. What remains is
/// the current request's read and any duplicated or delayed READ of an earlier one that
/// arrived since.
#[derive(Default)]
pub(super) struct Deadline {
    life: Option<Life>,
    /// Per app server, `(request, the store's latest read of it)`, in arrival order.
    reads: NodeTable<Vec<(u64, ReadAt)>>,
    any_read: bool,
    served: usize,
    refused_late: usize,
    found: Option<Found>,
}

/// The session's life by the store's clock.
struct Life {
    idle_ns: u64,
    absolute_at_ns: i64,
    /// When it ends: `min(last refresh + idle, absolute_at_ns)`.
    ends_at_ns: i64,
}

impl Life {
    /// The life the store set up at creation, at its wall clock `wall_ns`.
    fn created(wall_ns: i64, idle_ns: u64, absolute_ns: u64) -> Self {
        let absolute_at_ns = wall_ns.saturating_add(absolute_ns as i64);
        Life {
            idle_ns,
            absolute_at_ns,
            ends_at_ns: wall_ns.saturating_add(idle_ns as i64).min(absolute_at_ns),
        }
    }

    /// A committed save at `wall_ns`: before the end it pushes the idle deadline on; at or
    /// after it, the session is over for good.
    fn refresh(&mut self, wall_ns: i64) {
        if wall_ns < self.ends_at_ns {
            self.ends_at_ns = wall_ns.saturating_add(self.idle_ns as i64).min(self.absolute_at_ns);
        }
    }

    fn which(&self) -> &'static str {
        if self.ends_at_ns == self.absolute_at_ns {
            "absolute"
        } else {
            "idle"
        }
    }
}

/// What the store's read of a request saw.
#[derive(Copy, Clone)]
struct ReadAt {
    t_ns: u64,
    wall_ns: i64,
    /// The session's end and which deadline it is, at the read.
    ends: Option<(i64, &'static str)>,
}

impl Deadline {
    pub(super) fn see(&mut self, index: usize, e: &Event<SessionMsg, SessionObs>, o: &SessionObs) {
        if self.found.is_some() {
            return;
        }
        let wall = e.wall_ns;
        match o {
            SessionObs::SessionCreated {
                idle_ns, absolute_ns, ..
            } => self.life = Some(Life::created(wall, *idle_ns, *absolute_ns)),
            SessionObs::SessionSaved { .. } => {
                if let Some(l) = self.life.as_mut() {
                    l.refresh(wall);
                }
            }
            SessionObs::SessionRead { client, req, answer } => {
                let ends = self.life.as_ref().map(|l| (l.ends_at_ns, l.which()));
                if matches!(answer, ReadAnswer::Invalid { .. }) && ends.is_some_and(|(end, _)| wall >= end) {
                    self.refused_late += 1;
                }
                self.any_read = true;
                let read = ReadAt {
                    t_ns: e.t_ns,
                    wall_ns: wall,
                    ends,
                };
                let reads = self.reads.get_mut(*client);
                match reads.iter_mut().find(|(r, _)| r == req) {
                    Some((_, at)) => *at = read,
                    None => reads.push((*req, read)),
                }
            }
            SessionObs::RequestStarted { req } => self.reads.get_mut(e.node).retain(|(r, _)| r >= req),
            SessionObs::RequestServed { req, .. } => {
                let Some(&(_, read)) = self.reads.get_mut(e.node).iter().find(|(r, _)| r == req) else {
                    return;
                };
                self.served += 1;
                self.found = served_after_end(index, e, *req, &read);
            }
            _ => {}
        }
    }

    pub(super) fn status(self, names: &Names) -> Status {
        if let Some(found) = self.found {
            return Status::Violated(found.violation(names));
        }
        if self.life.is_none() {
            return Status::NotApplicable("no session was created".into());
        }
        if !self.any_read {
            return Status::NotApplicable("no request read the session".into());
        }
        Status::Held(format!(
            "{} served, each read before the session's deadlines; {} after a deadline refused",
            count(self.served, "request"),
            count(self.refused_late, "read")
        ))
    }
}

/// The violation when `e`'s node served request `req` on a read that came at or after the
/// session's end.
fn served_after_end(index: usize, e: &Event<SessionMsg, SessionObs>, req: u64, read: &ReadAt) -> Option<Found> {
    let (end, which) = read.ends.filter(|(end, _)| read.wall_ns >= *end)?;
    Some(Found {
        event: index,
        t_ns: e.t_ns,
        who: e.node,
        why: format!(
            " served request #{req}: the store read the session at {} (its clock {}), {} past the session's {which} deadline {}",
            fmt_secs(read.t_ns),
            fmt_signed_secs(read.wall_ns),
            fmt_duration((read.wall_ns - end) as u64),
            fmt_signed_secs(end)
        ),
    })
}
