// Copyright 2026.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! Cron schedules: parsing them as Kubernetes' CronJob does (five fields, or a nickname such as
//! `@hourly`) and finding the runs they call for. The controller uses it to decide when to
//! create Jobs, the validating webhook to refuse schedules it could not follow.

// ANCHOR: parse
use croner::Cron;
use croner::parser::{CronParser, Seconds, Year};
use k8s_openapi::jiff::{SignedDuration, Timestamp, tz::TimeZone};

/// A parsed cron schedule, evaluated in UTC.
#[derive(Debug, Clone)]
pub struct Schedule(Cron);

/// Why a schedule was refused: croner's reason (a field out of range, a wrong number of
/// fields, ...).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InvalidSchedule(#[from] croner::errors::CronError);

impl Schedule {
    /// Parses a standard cron schedule: five fields (no seconds, no year) or a nickname.
    pub fn parse(schedule: &str) -> Result<Schedule, InvalidSchedule> {
        let parser = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .build();
        Ok(Schedule(parser.parse(schedule)?))
    }

    /// The first time the schedule calls for strictly after `after`; `None` when it never
    /// does again (croner gives up after a few thousand years).
    pub fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let after = after.to_zoned(TimeZone::UTC);
        let next = self.0.find_next_occurrence(&after, false).ok()?;
        Some(next.timestamp())
    }
}
// ANCHOR_END: parse

// ANCHOR: runs
/// What the schedule says at `now`: the latest run that is due but was not started yet
/// (`missed`), and the next one after `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// The most recent scheduled time after the last run and at or before `now`, if any.
    pub missed: Option<Timestamp>,
    /// The first scheduled time after `now`.
    pub next: Option<Timestamp>,
}

/// More runs were missed than the controller is willing to count (a clock far off, or a
/// controller stopped for a long time): rather than spend its time walking through them, it
/// asks for a starting deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "too many missed start times (> {MAX_MISSED}): set or decrease .spec.startingDeadlineSeconds or check clock skew"
)]
pub struct TooManyMissed;

/// How many missed runs [`runs`] counts before it gives up with [`TooManyMissed`].
pub const MAX_MISSED: usize = 100;

/// The runs due between `earliest` (the last run, or the CronJob's creation) and `now`. With a
/// starting deadline, runs older than `now - deadline` are not looked at at all: they could
/// not start any more.
pub fn runs(
    schedule: &Schedule,
    earliest: Timestamp,
    deadline_seconds: Option<i64>,
    now: Timestamp,
) -> Result<Runs, TooManyMissed> {
    let mut earliest = earliest;
    if let Some(deadline) = deadline_seconds {
        let oldest_startable = now
            .saturating_sub(SignedDuration::from_secs(deadline))
            .unwrap_or(now);
        earliest = earliest.max(oldest_startable);
    }
    let next = schedule.next_after(now);
    if earliest > now {
        return Ok(Runs { missed: None, next });
    }
    let mut missed = None;
    let mut count = 0;
    let mut at = schedule.next_after(earliest);
    while let Some(time) = at.filter(|t| *t <= now) {
        missed = Some(time);
        count += 1;
        if count > MAX_MISSED {
            return Err(TooManyMissed);
        }
        at = schedule.next_after(time);
    }
    Ok(Runs { missed, next })
}
// ANCHOR_END: runs

#[cfg(test)]
mod tests {
    use super::*;

    fn at(time: &str) -> Timestamp {
        time.parse().unwrap()
    }

    #[test]
    fn parses_five_fields_and_nicknames_and_refuses_the_rest() {
        for good in ["*/5 * * * *", "0 9 * * MON-FRI", "@hourly", "30 2 1 1 *"] {
            Schedule::parse(good).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        for bad in ["", "* * * *", "0 * * * * *", "61 * * * *", "every minute"] {
            assert!(Schedule::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn finds_the_latest_missed_run_and_the_next_one() {
        let every_5 = Schedule::parse("*/5 * * * *").unwrap();
        let found = runs(
            &every_5,
            at("2026-01-01T00:00:00Z"),
            None,
            at("2026-01-01T00:12:00Z"),
        );
        assert_eq!(
            found.unwrap(),
            Runs {
                missed: Some(at("2026-01-01T00:10:00Z")),
                next: Some(at("2026-01-01T00:15:00Z")),
            }
        );
        let none_due = runs(
            &every_5,
            at("2026-01-01T00:10:00Z"),
            None,
            at("2026-01-01T00:12:00Z"),
        );
        assert_eq!(none_due.unwrap().missed, None);
    }

    #[test]
    fn a_deadline_bounds_how_far_back_runs_are_looked_for() {
        let every_minute = Schedule::parse("* * * * *").unwrap();
        let created = at("2026-01-01T00:00:00Z");
        let much_later = at("2026-01-02T00:00:30Z");
        assert_eq!(
            runs(&every_minute, created, None, much_later),
            Err(TooManyMissed)
        );
        let found = runs(&every_minute, created, Some(120), much_later).unwrap();
        assert_eq!(found.missed, Some(at("2026-01-02T00:00:00Z")));
    }
}
