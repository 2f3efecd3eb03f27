//! The handover coordinator: every retry period it reads the group's Leases, computes this
//! replica's ranges ([`super::ring::assign`]), releases what it should no longer own (stop,
//! drain, then announce) and takes what it should own once nobody else claims it (announce,
//! verify, then start). The protocol and its timing are in `design.md` beside this file.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    time::Duration,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{
    gate::ShardGate,
    membership::{LeaseTaken, Member, Membership, RenewError},
    options::ShardingOptions,
    range::{RangeSet, slot_range},
    ring,
};
use crate::metrics::ShardFamilies;

/// The replica can no longer be sure others do not already own its ranges (its Lease could not
/// be renewed within the renew deadline, or was changed or deleted by someone else): it has
/// stopped all work, and the manager stops at once.
#[derive(Debug, thiserror::Error)]
pub enum MembershipLost {
    /// Our member Lease was changed or deleted by someone else.
    #[error("shard membership lost: {0}")]
    Taken(#[source] LeaseTaken),
    /// No renewal of our member Lease succeeded within the renew deadline.
    #[error(
        "shard membership lost: could not renew member Lease {lease} within {renew_deadline:?}{}",
        not_renewed_detail(*.draining, *.unanswered, .last_error.as_ref())
    )]
    NotRenewed {
        /// The Lease's name.
        lease: String,
        /// The renew deadline that passed.
        renew_deadline: Duration,
        /// Whether it passed while leaving the group (draining running reconciles).
        draining: bool,
        /// Whether the last request was still unanswered at the deadline.
        unanswered: bool,
        /// The last failed request since the last successful renewal, if one failed.
        #[source]
        last_error: Option<kube::Error>,
    },
}

/// The end of [`MembershipLost::NotRenewed`]'s message.
fn not_renewed_detail(
    draining: bool,
    unanswered: bool,
    last_error: Option<&kube::Error>,
) -> String {
    let mut detail = String::new();
    if draining {
        detail.push_str(" while draining running reconciles");
    }
    if unanswered {
        detail.push_str(": the API server did not answer in time");
    }
    if let Some(e) = last_error {
        detail.push_str(&format!(" (last error: {e})"));
    }
    detail
}

/// One replica's side of the protocol.
pub struct Coordinator {
    membership: Membership,
    gate: ShardGate,
    options: ShardingOptions,
    /// Slots our Lease claims (as last written successfully).
    claims: BTreeSet<u16>,
    /// Slots we work on: claimed, and verified unclaimed by any other live member after our
    /// claim was written.
    active: BTreeSet<u16>,
    /// Slots deactivated but still claimed until drained, with the gate generation that
    /// deactivated them.
    releasing: BTreeMap<u16, u64>,
    /// When each slot assigned to us but not yet active was first assigned (takeover time).
    wanted_since: HashMap<u16, Instant>,
    /// Whether our Lease was written once: the first round only announces us, so replicas
    /// started together see each other before any of them claims (instead of the first
    /// claiming the whole ring and handing most of it over again).
    announced: bool,
    /// The last failed request since the last successful round: the cause reported if the
    /// renew deadline passes.
    last_error: Option<kube::Error>,
    families: Option<ShardFamilies>,
}

impl Coordinator {
    /// A coordinator for `options` (automatic assignment) over `gate`.
    pub fn new(client: kube::Client, options: ShardingOptions, gate: ShardGate) -> Self {
        let families = gate.families().cloned();
        Self {
            membership: Membership::new(client, options.clone()),
            gate,
            options,
            claims: BTreeSet::new(),
            active: BTreeSet::new(),
            releasing: BTreeMap::new(),
            wanted_since: HashMap::new(),
            announced: false,
            last_error: None,
            families,
        }
    }

    /// Runs rounds until `shutdown` fires, then leaves the group gracefully (stops, drains,
    /// deletes its Lease). Fails, with every range already deactivated, when membership is
    /// lost: our Lease was changed or deleted by someone else, or no renewal succeeded within
    /// the renew deadline. Nothing outlives that deadline: every round (each of its requests)
    /// runs under a timeout ending at it, and the wait for the next round ends at it too.
    pub async fn run(mut self, shutdown: CancellationToken) -> Result<(), MembershipLost> {
        tracing::info!(identity = %self.options.identity, lease = %self.membership.lease_name(), group = %self.options.group, "joining the shard group");
        let joined = Instant::now();
        loop {
            let deadline = self.deadline(joined);
            if Instant::now() >= deadline {
                return Err(self.not_renewed(false, false));
            }
            match tokio::time::timeout_at(deadline, self.round()).await {
                Ok(Ok(())) => self.last_error = None,
                Ok(Err(RenewError::Lost(taken))) => {
                    return Err(self.lost(MembershipLost::Taken(taken)));
                }
                Ok(Err(RenewError::Failed(e))) => {
                    tracing::warn!(error = %e, "shard membership round failed");
                    self.last_error = Some(e);
                }
                Err(_) => return Err(self.not_renewed(false, true)),
            }
            let next = Instant::now() + jittered(self.options.retry_period);
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep_until(next.min(self.deadline(joined))) => {}
            }
        }
        self.leave(joined).await
    }

    /// When all work must have stopped unless a renewal succeeds first: the renew deadline
    /// after the last successful renewal was sent (after joining, before the first). Others
    /// count our lease duration from a moment after that send, and the renew deadline is
    /// shorter than the lease duration.
    fn deadline(&self, joined: Instant) -> Instant {
        self.membership.renewed_at().unwrap_or(joined) + self.options.renew_deadline
    }

    /// Loses the membership because the renew deadline passed (see [`Self::lost`]).
    fn not_renewed(&mut self, draining: bool, unanswered: bool) -> MembershipLost {
        let lost = MembershipLost::NotRenewed {
            lease: self.membership.lease_name().to_string(),
            renew_deadline: self.options.renew_deadline,
            draining,
            unanswered,
            last_error: self.last_error.take(),
        };
        self.lost(lost)
    }

    /// Stops all work at once (no new reconcile starts; the manager aborts running ones).
    fn lost(&mut self, lost: MembershipLost) -> MembershipLost {
        tracing::error!(error = %lost, "stopping all work");
        self.gate.set_active(RangeSet::empty());
        self.active.clear();
        self.set_owned_gauge();
        lost
    }

    /// A graceful leave: deactivates every range, keeps renewing until the running reconciles
    /// ended and the informers let go, then deletes the Lease so others take over at once.
    /// Renewals and the wait for the drain are bounded by the renew deadline; reaching it
    /// before the drain completed (renewals failing or hanging) loses the membership: the
    /// reconciles still running must not outlive our Lease.
    async fn leave(&mut self, joined: Instant) -> Result<(), MembershipLost> {
        tracing::info!("leaving the shard group: draining running reconciles");
        let generation = self.gate.set_active(RangeSet::empty());
        let released = std::mem::take(&mut self.active).len();
        self.count("released", released);
        self.set_owned_gauge();
        loop {
            let deadline = self.deadline(joined);
            let now = Instant::now();
            if now >= deadline {
                return Err(self.not_renewed(true, false));
            }
            let wait = self.options.retry_period.min(deadline - now);
            if self
                .gate
                .wait_released(&RangeSet::full(), generation, wait)
                .await
            {
                break;
            }
            if Instant::now() >= deadline {
                continue;
            }
            // Still draining: renew so nobody takes the ranges over meanwhile.
            match tokio::time::timeout_at(deadline, self.membership.renew(&self.claims)).await {
                Ok(Ok(())) => self.last_error = None,
                Ok(Err(RenewError::Lost(taken))) => {
                    return Err(self.lost(MembershipLost::Taken(taken)));
                }
                Ok(Err(RenewError::Failed(e))) => {
                    tracing::warn!(error = %e, "renewing the member Lease while draining failed");
                    self.last_error = Some(e);
                }
                // Unanswered at the deadline: nothing can be renewed in time any more.
                Err(_) => return Err(self.not_renewed(true, true)),
            }
        }
        // Drained: nothing of ours runs any more, so the delete is not urgent; if it fails or
        // does not answer, the Lease expires instead.
        match tokio::time::timeout(self.options.renew_deadline, self.membership.leave()).await {
            Ok(Ok(())) => tracing::info!("left the shard group"),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "could not delete the member Lease; it expires instead");
            }
            Err(_) => {
                tracing::warn!("deleting the member Lease did not answer; it expires instead");
            }
        }
        Ok(())
    }

    /// One round: read, activate verified claims, release, take, renew, verify new claims.
    async fn round(&mut self) -> Result<(), RenewError> {
        if !self.announced {
            self.membership.renew(&self.claims).await?;
            self.announced = true;
            return Ok(());
        }
        let others = self.membership.read().await?;
        self.activate_verified(&others);

        let total = self.options.ranges;
        let mismatched: Vec<&Member> = others.iter().filter(|m| m.ranges != total).collect();
        if !mismatched.is_empty() {
            // Claims cut the ring differently: not comparable. Take nothing while such a
            // member lives (safe), and say why.
            tracing::warn!(
                members = ?mismatched.iter().map(|m| (&m.identity, m.ranges)).collect::<Vec<_>>(),
                ranges = total,
                "members of this shard group cut the ring into a different number of ranges; taking no range until they leave"
            );
        }
        let claimed_by_others: HashMap<u16, Vec<&str>> = others
            .iter()
            .filter(|m| m.ranges == total)
            .flat_map(|m| m.claims.iter().map(move |s| (*s, m.identity.as_str())))
            .fold(HashMap::new(), |mut acc, (s, id)| {
                acc.entry(s).or_insert_with(Vec::new).push(id);
                acc
            });
        let mut input: Vec<(&str, &BTreeSet<u16>)> = others
            .iter()
            .filter(|m| m.ranges == total)
            .map(|m| (m.identity.as_str(), &m.claims))
            .collect();
        input.push((self.options.identity.as_str(), &self.claims));
        let desired = ring::assign(&input, total)
            .remove(&self.options.identity)
            .unwrap_or_default();
        if let Some(f) = &self.families {
            f.members.set(others.len() as i64 + 1);
        }

        // Release: what is no longer ours, or what another member claims too and keeps (the
        // smaller identity keeps a slot both claim).
        let me = self.options.identity.clone();
        let loses = |s: &u16| {
            !desired.contains(s)
                || claimed_by_others
                    .get(s)
                    .is_some_and(|ids| ids.iter().any(|id| *id < me.as_str()))
        };
        let stop: Vec<u16> = self.active.iter().copied().filter(|s| loses(s)).collect();
        let pending_dropped: Vec<u16> = self
            .claims
            .iter()
            .copied()
            .filter(|s| !self.active.contains(s) && !self.releasing.contains_key(s) && loses(s))
            .collect();
        if !stop.is_empty() {
            for s in &stop {
                self.active.remove(s);
            }
            let generation = self
                .gate
                .set_active(RangeSet::from_slots(&self.active, total));
            for s in &stop {
                self.releasing.insert(*s, generation);
            }
            self.set_owned_gauge();
            tracing::info!(ranges = stop.len(), "releasing ranges: stopped, draining");
        }
        let drained: Vec<u16> = self
            .releasing
            .iter()
            .filter(|(s, generation)| self.gate.released(&slot_range(**s, total), **generation))
            .map(|(s, _)| *s)
            .collect();

        // Take: what is ours and nobody else claims.
        let takes: BTreeSet<u16> = if mismatched.is_empty() {
            desired
                .iter()
                .copied()
                .filter(|s| !self.claims.contains(s) && !claimed_by_others.contains_key(s))
                .collect()
        } else {
            BTreeSet::new()
        };
        let now = Instant::now();
        self.wanted_since.retain(|s, _| desired.contains(s));
        for s in desired.iter().filter(|s| !self.active.contains(s)) {
            self.wanted_since.entry(*s).or_insert(now);
        }

        let mut claims = self.claims.clone();
        for s in drained.iter().chain(&pending_dropped) {
            claims.remove(s);
        }
        claims.extend(takes.iter().copied());
        self.membership.renew(&claims).await?;
        self.claims = claims;
        for s in &drained {
            self.releasing.remove(s);
        }
        if !drained.is_empty() {
            tracing::info!(
                ranges = drained.len(),
                "released ranges (drained and announced)"
            );
            self.count("released", drained.len());
        }

        if !takes.is_empty() {
            // Our claim is written: a read from now on shows whether anyone claimed the same
            // slots meanwhile; only slots nobody else claims start.
            let others = self.membership.read().await?;
            self.activate_verified(&others);
        }
        Ok(())
    }

    /// Starts the claimed slots no other live member claims (our claims were written before
    /// `others` was read).
    fn activate_verified(&mut self, others: &[Member]) {
        let total = self.options.ranges;
        let blocked = |s: &u16| {
            others
                .iter()
                .any(|m| m.ranges != total || m.claims.contains(s))
        };
        let start: Vec<u16> = self
            .claims
            .iter()
            .copied()
            .filter(|s| !self.active.contains(s) && !self.releasing.contains_key(s) && !blocked(s))
            .collect();
        if start.is_empty() {
            return;
        }
        self.active.extend(start.iter().copied());
        self.gate
            .set_active(RangeSet::from_slots(&self.active, total));
        let now = Instant::now();
        for s in &start {
            if let (Some(since), Some(f)) = (self.wanted_since.remove(s), &self.families) {
                f.takeover.observe((now - since).as_secs_f64());
            }
        }
        self.count("acquired", start.len());
        self.set_owned_gauge();
        tracing::info!(
            ranges = start.len(),
            owned = self.active.len(),
            "acquired ranges"
        );
    }

    fn count(&self, direction: &str, n: usize) {
        if let Some(f) = &self.families {
            f.handovers
                .get_or_create(&[("direction", direction.to_string())])
                .inc_by(n as u64);
        }
    }

    fn set_owned_gauge(&self) {
        if let Some(f) = &self.families {
            f.owned_ranges.set(self.active.len() as i64);
        }
    }
}

/// The retry period plus up to 20% jitter, so members do not move in lockstep.
fn jittered(period: Duration) -> Duration {
    period.mul_f64(1.0 + fastrand::f64() * 0.2)
}

#[cfg(test)]
mod tests {
    use super::{LeaseTaken, MembershipLost};
    use std::{error::Error as _, time::Duration};

    fn api_error(code: u16, reason: &str) -> kube::Error {
        kube::Error::Api(Box::new(
            kube::core::Status::failure("refused", reason).with_code(code),
        ))
    }

    #[test]
    fn a_taken_lease_is_the_source_of_the_lost_membership() {
        let lost = MembershipLost::Taken(LeaseTaken {
            lease: "group-00".into(),
            change: "deleted",
            source: api_error(404, "NotFound"),
        });
        let taken = lost
            .source()
            .and_then(|e| e.downcast_ref::<LeaseTaken>())
            .expect("the taken lease is the source");
        assert_eq!(taken.change, "deleted");
        assert!(
            matches!(&taken.source, kube::Error::Api(s) if s.code == 404),
            "{taken:?}"
        );
        assert!(
            lost.to_string()
                .starts_with("shard membership lost: member Lease group-00 was deleted"),
            "{lost}"
        );
    }

    #[test]
    fn a_missed_deadline_keeps_the_last_failed_request_as_its_source() {
        let lost = MembershipLost::NotRenewed {
            lease: "group-00".into(),
            renew_deadline: Duration::from_secs(10),
            draining: true,
            unanswered: false,
            last_error: Some(api_error(503, "ServiceUnavailable")),
        };
        let last = lost
            .source()
            .and_then(|e| e.downcast_ref::<kube::Error>())
            .expect("the last error is the source");
        assert!(
            matches!(last, kube::Error::Api(s) if s.code == 503),
            "{last:?}"
        );
        assert_eq!(
            lost.to_string(),
            format!(
                "shard membership lost: could not renew member Lease group-00 within 10s while \
                 draining running reconciles (last error: {last})"
            )
        );

        let unanswered = MembershipLost::NotRenewed {
            lease: "group-00".into(),
            renew_deadline: Duration::from_secs(10),
            draining: false,
            unanswered: true,
            last_error: None,
        };
        assert!(unanswered.source().is_none());
        assert_eq!(
            unanswered.to_string(),
            "shard membership lost: could not renew member Lease group-00 within 10s: the API \
             server did not answer in time"
        );
    }
}
