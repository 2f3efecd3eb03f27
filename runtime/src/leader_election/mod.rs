//! Leader election on a `coordination.k8s.io/v1` Lease, with client-go's semantics: the holder
//! renews `renewTime` every retry period; others take over once the lease has not changed for
//! `leaseDurationSeconds` (measured on their own clock, so clock skew does not matter); every
//! write carries the observed `resourceVersion`, so two candidates never both win.
//!
//! No maintained crate supports kube 5 yet (kube-rs issue #485), hence this module.

use k8s_openapi::{
    api::coordination::v1::{Lease, LeaseSpec},
    apimachinery::pkg::apis::meta::v1::MicroTime,
    jiff::Timestamp,
};
use kube::{
    Api,
    api::{ObjectMeta, PostParams},
};
use prometheus_client::metrics::gauge::Gauge;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

pub use crate::identity::default_identity;
use crate::{Error, metrics::Metrics};

pub(crate) mod lost;
pub use lost::LeaseLost;

/// Leader election settings (defaults as controller-runtime: 15 s lease, 10 s renew deadline,
/// 2 s retry period).
#[derive(Clone, Debug)]
pub struct LeaderElectionOptions {
    /// Name of the Lease object.
    pub lease_name: String,
    /// Namespace of the Lease; `None` = the client's default namespace (in a pod: its own).
    pub namespace: Option<String>,
    /// This candidate's identity (default: hostname plus a random suffix).
    pub identity: String,
    /// How long a lease is valid without renewal before others may take it.
    pub lease_duration: Duration,
    /// How long the leader keeps retrying a failed renewal before giving up leadership.
    pub renew_deadline: Duration,
    /// Time between acquire/renew attempts.
    pub retry_period: Duration,
    /// Release the lease on graceful shutdown so a successor takes over at once.
    pub release_on_cancel: bool,
}

impl LeaderElectionOptions {
    /// Defaults for a lease called `lease_name`.
    pub fn new(lease_name: impl Into<String>) -> Self {
        Self {
            lease_name: lease_name.into(),
            namespace: None,
            identity: default_identity(),
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
            release_on_cancel: false,
        }
    }
}

/// One candidate for a lease.
pub struct LeaderElector {
    api: Api<Lease>,
    options: LeaderElectionOptions,
    /// The lease as last read, its resourceVersion, and when (on our clock) it last changed.
    observed: Option<(LeaseSpec, Option<String>, Instant)>,
    status: Gauge,
}

impl LeaderElector {
    /// A candidate using `client`; reports `leader_election_master_status` into `metrics`.
    pub fn new(client: kube::Client, options: LeaderElectionOptions, metrics: &Metrics) -> Self {
        let namespace = options
            .namespace
            .clone()
            .unwrap_or_else(|| client.default_namespace().to_string());
        let status = metrics
            .families()
            .leader_status
            .get_or_create_owned(&[("name", options.lease_name.clone())]);
        status.set(0);
        Self {
            api: Api::namespaced(client, &namespace),
            options,
            observed: None,
            status,
        }
    }

    /// This candidate's identity.
    pub fn identity(&self) -> &str {
        &self.options.identity
    }

    /// Tries until the lease is ours; `false` if `cancel` fired first.
    pub async fn acquire(&mut self, cancel: &CancellationToken) -> bool {
        loop {
            match self.try_acquire_or_renew().await {
                Ok(true) => {
                    tracing::info!(lease = %self.options.lease_name, identity = %self.options.identity, "acquired leader lease");
                    self.status.set(1);
                    return true;
                }
                Ok(false) => {}
                Err(e) => tracing::warn!(error = %e, "leader election attempt failed"),
            }
            tokio::select! {
                () = cancel.cancelled() => return false,
                () = tokio::time::sleep(jittered(self.options.retry_period)) => {}
            }
        }
    }

    /// Renews the lease every retry period while we lead; returns when leadership is lost
    /// (no successful renewal within the renew deadline) or `cancel` fires (`Ok`).
    pub async fn hold(&mut self, cancel: &CancellationToken) -> Result<(), Error> {
        let mut last_renew = Instant::now();
        loop {
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = tokio::time::sleep(self.options.retry_period) => {}
            }
            let last_error = match tokio::time::timeout(
                self.options.renew_deadline,
                self.try_acquire_or_renew(),
            )
            .await
            {
                Ok(Ok(true)) => {
                    last_renew = Instant::now();
                    None
                }
                Ok(Ok(false)) => {
                    self.status.set(0);
                    return Err(Error::LeaderElectionLost(LeaseLost::TakenOver {
                        lease: self.options.lease_name.clone(),
                        holder: self.holder().unwrap_or("nobody").to_owned(),
                    }));
                }
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "failed to renew leader lease");
                    Some(e)
                }
                Err(_) => {
                    tracing::warn!("renewing the leader lease timed out");
                    None
                }
            };
            if last_renew.elapsed() >= self.options.renew_deadline {
                self.status.set(0);
                return Err(Error::LeaderElectionLost(LeaseLost::NotRenewed {
                    lease: self.options.lease_name.clone(),
                    deadline: self.options.renew_deadline,
                    last_error,
                }));
            }
        }
    }

    /// Gives the lease up (if we hold it) so another candidate can take it at once.
    pub async fn release(&mut self) -> Result<(), Error> {
        self.status.set(0);
        let Some(lease) = self.api.get_opt(&self.options.lease_name).await? else {
            return Ok(());
        };
        let spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.options.identity.as_str()) {
            return Ok(());
        }
        let now = MicroTime(Timestamp::now());
        let released = Lease {
            spec: Some(LeaseSpec {
                holder_identity: None,
                lease_duration_seconds: Some(1),
                acquire_time: Some(now.clone()),
                renew_time: Some(now),
                ..spec
            }),
            ..lease
        };
        self.api
            .replace(&self.options.lease_name, &PostParams::default(), &released)
            .await?;
        tracing::info!(lease = %self.options.lease_name, "released leader lease");
        Ok(())
    }

    fn holder(&self) -> Option<&str> {
        self.observed
            .as_ref()
            .and_then(|(s, _, _)| s.holder_identity.as_deref())
    }

    /// One client-go `tryAcquireOrRenew`: `Ok(true)` when we hold the lease afterwards.
    async fn try_acquire_or_renew(&mut self) -> Result<bool, kube::Error> {
        let now = MicroTime(Timestamp::now());
        // The API field has whole seconds: round up so sub-second test durations still hold.
        let duration_secs = self.options.lease_duration.as_secs_f64().ceil().max(1.0) as i32;
        let Some(existing) = self.api.get_opt(&self.options.lease_name).await? else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.options.lease_name.clone()),
                    ..Default::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(self.options.identity.clone()),
                    lease_duration_seconds: Some(duration_secs),
                    acquire_time: Some(now.clone()),
                    renew_time: Some(now),
                    lease_transitions: Some(0),
                    ..Default::default()
                }),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(created) => {
                    self.observe(&created);
                    Ok(true)
                }
                Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
                Err(e) => Err(e),
            };
        };
        let spec = existing.spec.clone().unwrap_or_default();
        self.observe(&existing);
        let holder = spec.holder_identity.as_deref().unwrap_or("");
        let ours = holder == self.options.identity;
        if !ours && !holder.is_empty() && !self.expired(&spec) {
            return Ok(false);
        }
        let new_spec = if ours {
            LeaseSpec {
                renew_time: Some(now),
                lease_duration_seconds: Some(duration_secs),
                ..spec
            }
        } else {
            LeaseSpec {
                holder_identity: Some(self.options.identity.clone()),
                lease_duration_seconds: Some(duration_secs),
                acquire_time: Some(now.clone()),
                renew_time: Some(now),
                lease_transitions: Some(spec.lease_transitions.unwrap_or(0) + 1),
                ..spec
            }
        };
        let updated = Lease {
            spec: Some(new_spec),
            ..existing
        };
        // `replace` sends the resourceVersion we read: a concurrent writer makes this a 409.
        match self
            .api
            .replace(&self.options.lease_name, &PostParams::default(), &updated)
            .await
        {
            Ok(lease) => {
                self.observe(&lease);
                Ok(true)
            }
            Err(kube::Error::Api(s)) if s.code == 409 => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Remembers the lease, restarting the expiry clock when it changed (any write to the
    /// lease, a renewal included, changes its resourceVersion).
    fn observe(&mut self, lease: &Lease) {
        let version = lease.metadata.resource_version.clone();
        let spec = lease.spec.clone().unwrap_or_default();
        let changed = self
            .observed
            .as_ref()
            .is_none_or(|(old, old_version, _)| *old_version != version || *old != spec);
        if changed {
            self.observed = Some((spec, version, Instant::now()));
        }
    }

    /// Whether the lease has gone unrenewed for its duration (on our clock).
    fn expired(&self, spec: &LeaseSpec) -> bool {
        let duration = spec
            .lease_duration_seconds
            .map_or(self.options.lease_duration, |s| {
                Duration::from_secs(u64::try_from(s).unwrap_or(0))
            });
        self.observed
            .as_ref()
            .is_none_or(|(_, _, at)| at.elapsed() >= duration)
    }
}

/// The retry period plus up to 20% jitter, so candidates do not move in lockstep.
fn jittered(period: Duration) -> Duration {
    period.mul_f64(1.0 + fastrand::f64() * 0.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_are_hostname_plus_a_random_suffix() {
        let (a, b) = (default_identity(), default_identity());
        assert_ne!(a, b);
        let (host, suffix) = a.rsplit_once('_').unwrap();
        assert!(!host.is_empty());
        assert_eq!(suffix.len(), 16);
        let options = LeaderElectionOptions::new("l");
        assert_eq!(options.lease_duration, Duration::from_secs(15));
        assert_eq!(options.renew_deadline, Duration::from_secs(10));
        assert_eq!(options.retry_period, Duration::from_secs(2));
        let j = jittered(Duration::from_secs(1));
        assert!(j >= Duration::from_secs(1) && j <= Duration::from_millis(1200));
    }
}
