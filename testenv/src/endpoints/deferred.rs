//! The controllers' deferred work ([`Client::later`](super::hooks::Client::later)): jobs due
//! at an instant, kept with the cluster and run under its lock by the task the server starts
//! when it begins serving (`Api::serving`).

use std::sync::Arc;
use std::time::Instant;

use tokio::sync::Notify;

use super::hooks::Job;

/// The queue of deferred jobs.
#[derive(Default)]
pub struct Deferred {
    jobs: Vec<(Instant, Job)>,
    /// Whether a task runs the queue; until one does, jobs run at once.
    served: bool,
    /// Wakes the task when a job is queued.
    wake: Arc<Notify>,
}

impl Deferred {
    /// Queues `job` for `due`; gives it back when no task runs the queue (the caller then
    /// runs it at once).
    pub fn push(&mut self, due: Instant, job: Job) -> Option<Job> {
        if !self.served {
            return Some(job);
        }
        self.jobs.push((due, job));
        self.wake.notify_one();
        None
    }

    /// Marks the queue as served by a task; false when one already serves it.
    pub fn serve(&mut self) -> bool {
        !std::mem::replace(&mut self.served, true)
    }

    /// What wakes the serving task.
    pub fn wake(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// Takes the jobs due at `now`, oldest first.
    pub fn take_due(&mut self, now: Instant) -> Vec<Job> {
        self.jobs.sort_by_key(|(due, _)| *due);
        let due = self.jobs.partition_point(|(at, _)| *at <= now);
        self.jobs.drain(..due).map(|(_, job)| job).collect()
    }

    /// When the next job is due.
    pub fn next_due(&self) -> Option<Instant> {
        self.jobs.iter().map(|(due, _)| *due).min()
    }
}
