//! `session_revocation`, as the run goes.

use locksim_sim::check::{NodeTable, count};
use locksim_sim::time::fmt_secs;
use locksim_sim::{Event, Names, NodeId, Status};

use super::Found;
use crate::session::obs::{SessionMsg, SessionObs};
use crate::session::store::{Prior, ReadAnswer};

/// What `session_revocation` keeps: the logout's time, three counters, the first violation,
/// and per app server, after the logout:
/// - the request numbers the store read, as ranges: the verdict counts reads per request
///   ("N reads", however often a READ was duplicated on the way), and an app server's
///   requests are read one after another, so a run's reads make a few ranges (one more per
///   request skipped or lost), not one entry each;
/// - the time of the latest read of each request it may still serve, which a
///   `request_served` is checked against. An app server serves only the request it started
///   last (it starts one only when none is in progress, and never reuses a number, even across
///   a restart), so the reads of earlier requests are dropped when it records
///   `request_started`.
///
/// Once a violation is found nothing more is kept: the verdict is decided.
#[derive(Default)]
pub(super) struct Revocation {
    logout_ns: Option<u64>,
    /// Per app server: the requests read after the logout.
    late_reads: NodeTable<Ranges>,
    /// Per app server: `(request, its latest read's true time)` for the requests it may still
    /// serve, in arrival order.
    recent: NodeTable<Vec<(u64, u64)>>,
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
            SessionObs::RequestStarted { req } => self.recent.get_mut(e.node).retain(|(r, _)| r >= req),
            _ => {}
        }
    }

    /// Notes a read of `client`'s request `req` at `t_ns`, after the logout.
    fn read(&mut self, client: NodeId, req: u64, t_ns: u64) {
        if self.late_reads.get_mut(client).insert(req) {
            self.reads += 1;
        }
        let recent = self.recent.get_mut(client);
        match recent.iter_mut().find(|(r, _)| *r == req) {
            Some((_, at)) => *at = t_ns,
            None => recent.push((req, t_ns)),
        }
    }

    /// When the store last read `client`'s request `req`, if it read it after the logout.
    fn read_ns(&mut self, client: NodeId, req: u64) -> Option<u64> {
        let recent = self.recent.get_mut(client);
        recent.iter().find(|(r, _)| *r == req).map(|&(_, t_ns)| t_ns)
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

/// A set of numbers as sorted, disjoint, non-adjacent ranges `(first, last)`.
#[derive(Default)]
struct Ranges(Vec<(u64, u64)>);

impl Ranges {
    /// Adds `n`; whether it was not there yet.
    fn insert(&mut self, n: u64) -> bool {
        let ranges = &mut self.0;
        // The first range that ends at or after `n`; every range before it ends below `n`.
        let i = ranges.partition_point(|&(_, last)| last < n);
        let next = ranges.get(i).map(|&(first, _)| first);
        if next.is_some_and(|first| first <= n) {
            return false;
        }
        let joins_before = i > 0 && ranges[i - 1].1 + 1 == n;
        let joins_after = next.is_some_and(|first| first - 1 == n);
        match (joins_before, joins_after) {
            (true, true) => {
                ranges[i - 1].1 = ranges[i].1;
                ranges.remove(i);
            }
            (true, false) => ranges[i - 1].1 = n,
            (false, true) => ranges[i].0 = n,
            (false, false) => ranges.insert(i, (n, n)),
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Ranges;

    #[test]
    fn ranges_merge_neighbours_and_tell_a_repeat() {
        let mut r = Ranges::default();
        let fresh: Vec<bool> = [1, 2, 3, 5, 9, 4, 2, 8, 7, 0, u64::MAX, 6]
            .iter()
            .map(|&n| r.insert(n))
            .collect();
        assert_eq!(
            fresh,
            [true, true, true, true, true, true, false, true, true, true, true, true]
        );
        assert_eq!(r.0, [(0, 9), (u64::MAX, u64::MAX)]);
        assert!(!r.insert(u64::MAX) && !r.insert(0) && !r.insert(6));
    }
}
