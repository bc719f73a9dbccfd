//! `session_revocation`, as the run goes.

use locksim_sim::check::{NodeTable, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{Event, Names, NodeId, Status};

use super::Found;
use crate::session::obs::{SessionMsg, SessionObs};
use crate::session::store::{Prior, ReadAnswer};

/// What `session_revocation` keeps: the logout's time, two counters, the first violation, and
/// per app server the request numbers the store read after the logout with the time of each
/// one's latest read (16 bytes per request). The list is what the verdict counts ("N reads",
/// one per request however often its READ was duplicated on the way) and what a later
/// `request_served` is checked against; it is empty until the logout, and after it grows
/// only with the requests that reached the store. Once a violation is found nothing more is
/// kept: the verdict is decided.
#[derive(Default)]
pub(super) struct Revocation {
    logout_ns: Option<u64>,
    /// Per app server, sorted by request: `(request, its latest read's true time)`.
    late_reads: NodeTable<Vec<(u64, u64)>>,
    reads: usize,
    reads_refused: usize,
    saves_refused: usize,
    found: Option<Found>,
}

impl Revocation {
    pub(super) fn see(&mut self, index: usize, e: &Event<SessionMsg, SessionObs>, o: &SessionObs) {
        if self.found.is_some() {
            return;
        }
        let Some(out_ns) = self.logout_ns else {
            if let SessionObs::SessionRevoked { .. } = o {
                self.logout_ns = Some(e.t_ns);
            }
            return;
        };
        match o {
            SessionObs::SessionRead { client, req, answer } => {
                self.read(*client, *req, e.t_ns);
                if matches!(answer, ReadAnswer::Invalid { .. }) {
                    self.reads_refused += 1;
                }
            }
            SessionObs::RequestServed { req, .. } => {
                if let Some(read_ns) = self.read_ns(e.node, *req) {
                    self.found = Some(Found {
                        event: index,
                        t_ns: e.t_ns,
                        who: e.node,
                        why: format!(
                            " served request #{req} as the session at {}: the store read it at {}, after the logout committed at {}",
                            fmt_secs(e.t_ns),
                            fmt_secs(read_ns),
                            fmt_secs(out_ns)
                        ),
                    });
                }
            }
            SessionObs::SessionSaved {
                client,
                req,
                record,
                prior,
            } if !record.revoked => {
                self.found = Some(Found {
                    event: index,
                    t_ns: e.t_ns,
                    who: *client,
                    why: format!(
                        "'s save (request #{req}) at {} made the session valid again ({}) after the logout committed at {}",
                        fmt_secs(e.t_ns),
                        prior_text(prior),
                        fmt_secs(out_ns)
                    ),
                });
            }
            SessionObs::SaveRefused { .. } => self.saves_refused += 1,
            _ => {}
        }
    }

    /// Notes a read of `client`'s request `req` at `t_ns`, after the logout.
    fn read(&mut self, client: NodeId, req: u64, t_ns: u64) {
        let reqs = self.late_reads.get_mut(client);
        // Requests are read in increasing order, but for duplicated or delayed READs.
        match reqs.last() {
            Some(&(last, _)) if last >= req => match reqs.binary_search_by_key(&req, |&(r, _)| r) {
                Ok(i) => {
                    reqs[i].1 = t_ns;
                    return;
                }
                Err(i) => reqs.insert(i, (req, t_ns)),
            },
            _ => reqs.push((req, t_ns)),
        }
        self.reads += 1;
    }

    /// When the store last read `client`'s request `req`, if it read it after the logout.
    fn read_ns(&mut self, client: NodeId, req: u64) -> Option<u64> {
        let reqs = self.late_reads.get_mut(client);
        let i = reqs.binary_search_by_key(&req, |&(r, _)| r).ok()?;
        Some(reqs[i].1)
    }

    pub(super) fn status(self, names: &Names) -> Status {
        if let Some(found) = self.found {
            return Status::Violated(found.violation(names));
        }
        match self.logout_ns {
            None => Status::NotApplicable("the session was never logged out".into()),
            Some(out_ns) if self.reads == 0 && self.saves_refused == 0 => Status::NotApplicable(format!(
                "nothing reached the store after the logout at {}",
                fmt_secs(out_ns)
            )),
            Some(out_ns) => Status::Held(format!(
                "logout committed at {}; after it {} of {} refused and {} refused; none served or revived",
                fmt_secs(out_ns),
                self.reads_refused,
                count(self.reads, "read"),
                count(self.saves_refused, "late save")
            )),
        }
    }
}

fn prior_text(prior: &Prior) -> String {
    match prior {
        Prior::Current => "over the version it read".into(),
        Prior::Newer { version } => format!("over version {version}"),
        Prior::Revoked { version } => format!("over the revoked version {version}"),
        Prior::Missing => "re-creating the deleted row".into(),
        Prior::Expired { version } => format!("over the expired version {version}"),
    }
}
