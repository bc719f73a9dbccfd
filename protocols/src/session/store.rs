//! The session store's semantics, apart from any process: one versioned record and the SQL of
//! seed 000 as plain functions of the store's clock, so each condition can be unit-tested.
//!
//! The record has one expiry, `idle_until` — what a TTL store keeps per session (a Redis key's
//! `PEXPIRE`, Spring Session's `EXPIRY_TIME` column): reads check it (when configured to) and
//! the lazy cleanup deletes by it. The absolute deadline is a column that only two things
//! enforce: the refresh caps `idle_until` to it (`LEAST(now + idle, absolute_until)`), and the
//! CAS save's `WHERE` checks it. So an uncapped refresh pushes the expiry past the absolute
//! deadline and the session keeps being served after it — seed 000's
//! `idleRefreshDoesNotExtendAbsoluteSessionDeadline` is the guard against exactly that.

use serde::Serialize;

/// How an app server writes the session back.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SaveMode {
    /// Seed 000's `UPDATE ... WHERE id = :id AND version = :observed AND NOT revoked AND
    /// idle_until > now AND absolute_until > now`, bumping the version.
    Cas,
    /// Wrong: the whole object as read, written back unconditionally (an upsert). A save that
    /// read the session before a logout writes `revoked = false` over it.
    LastWriteWins,
}

/// How a save moves the idle deadline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refresh {
    /// `min(now + idle, absolute_until)`.
    Capped,
    /// Wrong: `now + idle`, past the absolute deadline.
    Uncapped,
}

/// The store's rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub save: SaveMode,
    pub refresh: Refresh,
    /// Off: a read trusts that expired records are gone, which they are only once the lazy
    /// cleanup has run.
    pub read_checks_expiry: bool,
    pub idle_ns: u64,
    pub absolute_ns: u64,
}

/// The session row. Deadlines are readings of the store's wall clock.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    pub version: u64,
    pub revoked: bool,
    pub idle_until_ns: i64,
    pub absolute_until_ns: i64,
}

/// Why a read did not return a valid session.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Invalid {
    /// No record: never created, or deleted by the cleanup.
    Missing,
    Revoked,
    /// `idle_until <= now` (checked only with `read_checks_expiry`).
    Expired,
}

/// What a read returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum ReadAnswer {
    Valid { record: Record },
    Invalid { why: Invalid },
}

/// One failed condition of the CAS save's `WHERE`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "condition", rename_all = "snake_case")]
pub enum Refusal {
    Missing,
    /// `version = :observed` failed: someone saved or logged out since the read.
    VersionMoved {
        observed: u64,
        current: u64,
    },
    Revoked,
    IdleExpired,
    AbsoluteExpired,
}

/// What a save overwrote (always `Current` for a CAS save).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "over", rename_all = "snake_case")]
pub enum Prior {
    /// The version the request read, still valid.
    Current,
    /// A newer version than the one read (another save won meanwhile).
    Newer { version: u64 },
    /// A logged-out record: the save makes it valid again.
    Revoked { version: u64 },
    /// Nothing (the cleanup had deleted it): the save re-creates it.
    Missing,
    /// An expired record, refreshed as if it had not expired.
    Expired { version: u64 },
}

/// What a save did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveOutcome {
    Saved { record: Record, prior: Prior },
    Refused { refusals: Vec<Refusal> },
}

/// The store's one session.
#[derive(Clone, Debug)]
pub struct SessionStore {
    pub policy: Policy,
    pub record: Option<Record>,
}

impl SessionStore {
    pub fn new(policy: Policy) -> Self {
        SessionStore { policy, record: None }
    }

    /// The new `idle_until` of a refresh at `now_ns`.
    pub fn refreshed(&self, now_ns: i64, absolute_until_ns: i64) -> i64 {
        let idle = now_ns.saturating_add(self.policy.idle_ns as i64);
        match self.policy.refresh {
            Refresh::Capped => idle.min(absolute_until_ns),
            Refresh::Uncapped => idle,
        }
    }

    /// Logs in: a fresh record, version 1 (or one above a record it replaces).
    pub fn login(&mut self, now_ns: i64) -> Record {
        let absolute_until_ns = now_ns.saturating_add(self.policy.absolute_ns as i64);
        let record = Record {
            version: self.record.map_or(1, |r| r.version + 1),
            revoked: false,
            idle_until_ns: self.refreshed(now_ns, absolute_until_ns),
            absolute_until_ns,
        };
        self.record = Some(record);
        record
    }

    /// `SELECT`, then the validity check the read is configured to make.
    pub fn read(&self, now_ns: i64) -> ReadAnswer {
        let why = match self.record {
            None => Invalid::Missing,
            Some(r) if r.revoked => Invalid::Revoked,
            Some(r) if self.policy.read_checks_expiry && r.idle_until_ns <= now_ns => Invalid::Expired,
            Some(record) => return ReadAnswer::Valid { record },
        };
        ReadAnswer::Invalid { why }
    }

    /// Saves what a request read at `observed`, refreshing the idle deadline.
    pub fn save(&mut self, observed: Record, now_ns: i64) -> SaveOutcome {
        match self.policy.save {
            SaveMode::Cas => self.save_cas(observed, now_ns),
            SaveMode::LastWriteWins => self.save_whole(observed, now_ns),
        }
    }

    /// Every condition of the seed's `WHERE` that fails, in the SQL's order.
    pub fn cas_refusals(&self, observed: Record, now_ns: i64) -> Vec<Refusal> {
        let Some(r) = self.record else {
            return vec![Refusal::Missing];
        };
        let mut refusals = Vec::new();
        if r.version != observed.version {
            refusals.push(Refusal::VersionMoved {
                observed: observed.version,
                current: r.version,
            });
        }
        if r.revoked {
            refusals.push(Refusal::Revoked);
        }
        if r.idle_until_ns <= now_ns {
            refusals.push(Refusal::IdleExpired);
        }
        if r.absolute_until_ns <= now_ns {
            refusals.push(Refusal::AbsoluteExpired);
        }
        refusals
    }

    fn save_cas(&mut self, observed: Record, now_ns: i64) -> SaveOutcome {
        let refusals = self.cas_refusals(observed, now_ns);
        let Some(mut record) = self.record.filter(|_| refusals.is_empty()) else {
            return SaveOutcome::Refused { refusals };
        };
        record.idle_until_ns = self.refreshed(now_ns, record.absolute_until_ns);
        record.version += 1;
        self.record = Some(record);
        SaveOutcome::Saved {
            record,
            prior: Prior::Current,
        }
    }

    fn save_whole(&mut self, observed: Record, now_ns: i64) -> SaveOutcome {
        let prior = match self.record {
            None => Prior::Missing,
            Some(r) if r.revoked => Prior::Revoked { version: r.version },
            Some(r) if r.idle_until_ns <= now_ns => Prior::Expired { version: r.version },
            Some(r) if r.version != observed.version => Prior::Newer { version: r.version },
            Some(_) => Prior::Current,
        };
        let record = Record {
            version: observed.version + 1,
            revoked: observed.revoked,
            idle_until_ns: self.refreshed(now_ns, observed.absolute_until_ns),
            absolute_until_ns: observed.absolute_until_ns,
        };
        self.record = Some(record);
        SaveOutcome::Saved { record, prior }
    }

    /// Logout: `UPDATE SET revoked = true, version = version + 1`. `None` when there was no
    /// record to revoke.
    pub fn logout(&mut self) -> Option<Record> {
        let r = self.record.as_mut()?;
        r.revoked = true;
        r.version += 1;
        Some(*r)
    }

    /// The lazy cleanup: `DELETE WHERE idle_until <= now`. The deleted record, if any.
    pub fn cleanup(&mut self, now_ns: i64) -> Option<Record> {
        let r = self.record.filter(|r| r.idle_until_ns <= now_ns)?;
        self.record = None;
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn store(save: SaveMode, refresh: Refresh, read_checks_expiry: bool) -> SessionStore {
        SessionStore::new(Policy {
            save,
            refresh,
            read_checks_expiry,
            idle_ns: 10 * S as u64,
            absolute_ns: 30 * S as u64,
        })
    }

    fn valid(a: ReadAnswer) -> Record {
        match a {
            ReadAnswer::Valid { record } => record,
            other => panic!("not valid: {other:?}"),
        }
    }

    #[test]
    fn cas_save_refreshes_and_bumps_the_version() {
        let mut s = store(SaveMode::Cas, Refresh::Capped, true);
        let r = s.login(0);
        assert_eq!((r.version, r.idle_until_ns, r.absolute_until_ns), (1, 10 * S, 30 * S));
        let read = valid(s.read(5 * S));
        let SaveOutcome::Saved { record, prior } = s.save(read, 6 * S) else {
            panic!("refused")
        };
        assert_eq!(
            (record.version, record.idle_until_ns, prior),
            (2, 16 * S, Prior::Current)
        );
    }

    #[test]
    fn cas_save_after_logout_is_refused_for_version_and_revocation() {
        let mut s = store(SaveMode::Cas, Refresh::Capped, true);
        s.login(0);
        let read = valid(s.read(S));
        assert_eq!(s.logout().unwrap().version, 2);
        let out = s.save(read, 2 * S);
        assert_eq!(
            out,
            SaveOutcome::Refused {
                refusals: vec![
                    Refusal::VersionMoved {
                        observed: 1,
                        current: 2
                    },
                    Refusal::Revoked
                ]
            }
        );
        assert!(s.record.unwrap().revoked, "the logout stands");
        assert_eq!(s.read(3 * S), ReadAnswer::Invalid { why: Invalid::Revoked });
    }

    #[test]
    fn cas_save_checks_both_deadlines_and_the_record() {
        let mut s = store(SaveMode::Cas, Refresh::Uncapped, true);
        s.login(0);
        let read = valid(s.read(S));
        assert_eq!(
            s.cas_refusals(read, 10 * S),
            vec![Refusal::IdleExpired],
            "idle_until > now is strict"
        );
        // Uncapped refreshes carry idle_until past the absolute deadline; the save still refuses.
        let mut r = read;
        for t in [8, 16, 24] {
            let SaveOutcome::Saved { record, .. } = s.save(r, t * S) else {
                panic!("refused at {t}")
            };
            r = record;
        }
        assert_eq!(r.idle_until_ns, 34 * S);
        assert_eq!(s.cas_refusals(r, 31 * S), vec![Refusal::AbsoluteExpired]);
        s.record = None;
        assert_eq!(s.cas_refusals(r, 31 * S), vec![Refusal::Missing]);
    }

    #[test]
    fn capped_refresh_never_passes_the_absolute_deadline() {
        let mut s = store(SaveMode::Cas, Refresh::Capped, true);
        let mut r = s.login(0);
        for t in [8, 16, 24, 29] {
            let SaveOutcome::Saved { record, .. } = s.save(r, t * S) else {
                panic!("refused at {t}")
            };
            r = record;
        }
        assert_eq!(r.idle_until_ns, 30 * S, "min(29 + 10, 30)");
        assert_eq!(s.read(30 * S), ReadAnswer::Invalid { why: Invalid::Expired });
        let mut u = store(SaveMode::Cas, Refresh::Uncapped, true);
        u.login(0);
        assert_eq!(u.refreshed(29 * S, 30 * S), 39 * S);
        assert_eq!(s.refreshed(29 * S, 30 * S), 30 * S);
    }

    #[test]
    fn last_write_wins_resurrects_a_logged_out_session() {
        let mut s = store(SaveMode::LastWriteWins, Refresh::Capped, true);
        s.login(0);
        let read = valid(s.read(S));
        s.logout();
        let SaveOutcome::Saved { record, prior } = s.save(read, 2 * S) else {
            panic!("last-write-wins never refuses")
        };
        assert_eq!(prior, Prior::Revoked { version: 2 });
        assert!(!record.revoked);
        assert_eq!(record.version, 2, "the stale copy, version 1, plus one");
        assert_eq!(valid(s.read(3 * S)).version, 2, "served again");
    }

    #[test]
    fn last_write_wins_recreates_a_cleaned_up_record() {
        let mut s = store(SaveMode::LastWriteWins, Refresh::Capped, true);
        s.login(0);
        let read = valid(s.read(S));
        assert_eq!(s.cleanup(9 * S), None, "not expired yet");
        assert_eq!(s.cleanup(10 * S).map(|r| r.version), Some(1));
        let SaveOutcome::Saved { prior, record } = s.save(read, 11 * S) else {
            panic!()
        };
        assert_eq!((prior, record.idle_until_ns), (Prior::Missing, 21 * S));
    }

    #[test]
    fn a_read_that_trusts_the_cleanup_serves_an_expired_record() {
        let mut lazy = store(SaveMode::Cas, Refresh::Capped, false);
        lazy.login(0);
        assert_eq!(valid(lazy.read(15 * S)).idle_until_ns, 10 * S, "expired, still served");
        lazy.cleanup(15 * S);
        assert_eq!(lazy.read(16 * S), ReadAnswer::Invalid { why: Invalid::Missing });
        let mut strict = store(SaveMode::Cas, Refresh::Capped, true);
        strict.login(0);
        assert!(matches!(strict.read(9 * S), ReadAnswer::Valid { .. }));
        assert_eq!(strict.read(10 * S), ReadAnswer::Invalid { why: Invalid::Expired });
    }
}
