//! Membership: each replica holds a `coordination.k8s.io/v1` Lease of its own, labelled with
//! the shard group, renewed every retry period like leader election's; the live members are
//! the Leases that changed within their `leaseDurationSeconds`, judged on this replica's clock
//! since it saw them change (client-go's rule, so clock skew does not matter). A member's Lease
//! also carries the ranges it claims (annotation [`CLAIMS_ANNOTATION`]): announcing a claim or a
//! release is a renewal with a new claim list.

use k8s_openapi::{
    api::coordination::v1::{Lease, LeaseSpec},
    apimachinery::pkg::apis::meta::v1::MicroTime,
    jiff::Timestamp,
};
use kube::{
    Api,
    api::{DeleteParams, ListParams, ObjectMeta, PostParams, Preconditions},
};
use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    time::Duration,
};
use tokio::time::Instant;

use super::{
    hash::fnv1a64,
    options::ShardingOptions,
    range::{format_slots, parse_slots},
};

/// Label naming a member Lease's shard group.
pub const GROUP_LABEL: &str = "kubeforge.dev/shard-group";
/// Annotation with the ranges (slots) a member claims: `0-3,7`.
pub const CLAIMS_ANNOTATION: &str = "kubeforge.dev/shard-claims";
/// Annotation with how many ranges the member cuts the ring into.
pub const RANGES_ANNOTATION: &str = "kubeforge.dev/shard-ranges";

/// Another live member, as its Lease says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its identity (`holderIdentity`).
    pub identity: String,
    /// The slots it claims.
    pub claims: BTreeSet<u16>,
    /// How many slots it cuts the ring into (must be ours to compare claims).
    pub ranges: u16,
}

/// Our member Lease was deleted or changed by someone else: others may already treat us as
/// gone.
#[derive(Debug, thiserror::Error)]
#[error("member Lease {lease} was {change} by someone else: {source}")]
pub struct LeaseTaken {
    /// The Lease's name.
    pub lease: String,
    /// What happened to it: `deleted` (the server answered 404) or `changed` (409).
    pub change: &'static str,
    /// The API server's answer to our renewal.
    #[source]
    pub source: kube::Error,
}

/// Why a renewal failed.
#[derive(Debug, thiserror::Error)]
pub enum RenewError {
    /// Our Lease was deleted or changed by someone else: others may already treat us as gone.
    #[error(transparent)]
    Lost(LeaseTaken),
    /// The request failed; retried at the next round.
    #[error(transparent)]
    Failed(#[from] kube::Error),
}

/// This replica's membership. See the [module docs](self).
pub struct Membership {
    api: Api<Lease>,
    options: ShardingOptions,
    lease_name: String,
    /// Our Lease as last written (its resourceVersion is the precondition of the next write).
    own: Option<Lease>,
    /// Other Leases: resourceVersion last seen and when (our clock) it last changed.
    observed: HashMap<String, (Option<String>, Instant)>,
    last_renew: Option<Instant>,
}

impl Membership {
    /// Membership of `options.group` through `client`.
    pub fn new(client: kube::Client, options: ShardingOptions) -> Self {
        let namespace = options
            .namespace
            .clone()
            .unwrap_or_else(|| client.default_namespace().to_string());
        let lease_name = lease_name(&options.group, &options.identity);
        Self {
            api: Api::namespaced(client, &namespace),
            options,
            lease_name,
            own: None,
            observed: HashMap::new(),
            last_renew: None,
        }
    }

    /// Our Lease's name.
    pub fn lease_name(&self) -> &str {
        &self.lease_name
    }

    /// When the last successful renewal was sent (`None` before the first). The write happened
    /// after that moment, so every other member saw our Lease change after it too: counting our
    /// renew deadline from here keeps it ahead of their lease duration, however long the request
    /// took.
    pub fn renewed_at(&self) -> Option<Instant> {
        self.last_renew
    }

    /// Time since the last successful renewal was sent (`None` before the first).
    pub fn since_renew(&self) -> Option<Duration> {
        self.last_renew.map(|t| t.elapsed())
    }

    /// Reads every Lease of the group (a consistent list, not a cache) and returns the other
    /// live members. Leases unrenewed for twice their duration are deleted (a crashed
    /// replica's), with their resourceVersion as precondition.
    ///
    /// A Lease counts as unchanged from the moment a read first showed its current version
    /// (when that answer arrived) until the moment this read was sent: the list shows the
    /// Leases as they were at some point after it was sent, so a slow answer never makes a
    /// member that renewed meanwhile look expired.
    pub async fn read(&mut self) -> Result<Vec<Member>, kube::Error> {
        let selector = format!("{GROUP_LABEL}={}", self.options.group);
        let asked = Instant::now();
        let leases = self
            .api
            .list(&ListParams::default().labels(&selector))
            .await?;
        let mut members = Vec::new();
        let mut seen = Vec::new();
        let mut stale = Vec::new();
        for lease in leases.items {
            let Some(name) = lease.metadata.name.clone() else {
                continue;
            };
            if name == self.lease_name {
                continue;
            }
            let version = lease.metadata.resource_version.clone();
            let changed_at = match self.observed.get(&name) {
                Some((v, at)) if *v == version => *at,
                _ => Instant::now(),
            };
            self.observed
                .insert(name.clone(), (version.clone(), changed_at));
            seen.push(name.clone());
            let spec = lease.spec.clone().unwrap_or_default();
            let duration = spec
                .lease_duration_seconds
                .map_or(self.options.lease_duration, |s| {
                    Duration::from_secs(u64::try_from(s).unwrap_or(0))
                });
            let unchanged = asked.saturating_duration_since(changed_at);
            if unchanged >= duration {
                if unchanged >= duration * 2 {
                    stale.push((name, version));
                }
                continue;
            }
            let annotations = lease.metadata.annotations.clone().unwrap_or_default();
            members.push(Member {
                identity: spec.holder_identity.unwrap_or(name),
                claims: annotations
                    .get(CLAIMS_ANNOTATION)
                    .and_then(|c| parse_slots(c))
                    .unwrap_or_default(),
                ranges: annotations
                    .get(RANGES_ANNOTATION)
                    .and_then(|r| r.parse().ok())
                    .unwrap_or(0),
            });
        }
        self.observed.retain(|name, _| seen.contains(name));
        if !stale.is_empty() {
            self.delete_stale(stale).await;
        }
        Ok(members)
    }

    /// Deletes the Leases of members gone for twice their duration, each with its
    /// resourceVersion as precondition. Housekeeping: the deletes run together and are given
    /// up after one retry period (the next round tries again), so a slow delete never holds
    /// the renewal back.
    async fn delete_stale(&self, stale: Vec<(String, Option<String>)>) {
        let deletes = stale.into_iter().map(|(name, version)| async move {
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    resource_version: version,
                    uid: None,
                }),
                ..DeleteParams::default()
            };
            match self.api.delete(&name, &params).await {
                Ok(_) => {
                    tracing::info!(lease = %name, "deleted the Lease of a member gone for twice its lease duration");
                }
                Err(e) => {
                    tracing::debug!(lease = %name, error = %e, "could not delete a stale member Lease");
                }
            }
        });
        let all = futures::future::join_all(deletes);
        if tokio::time::timeout(self.options.retry_period, all)
            .await
            .is_err()
        {
            tracing::debug!("deleting stale member Leases timed out; retried next round");
        }
    }

    /// Writes our Lease: renews it and announces `claims`. The first write creates it. On
    /// success, [`Self::renewed_at`] becomes the moment this call started (before the request
    /// was sent). The caller bounds it in time: dropped unfinished, it changes nothing here (a
    /// write the server still makes afterwards shows up as a 409 at the next renewal).
    pub async fn renew(&mut self, claims: &BTreeSet<u16>) -> Result<(), RenewError> {
        let sent = Instant::now();
        let now = MicroTime(Timestamp::now());
        let duration_secs = self.options.lease_duration.as_secs_f64().ceil().max(1.0) as i32;
        let mut annotations = BTreeMap::new();
        annotations.insert(CLAIMS_ANNOTATION.to_string(), format_slots(claims));
        annotations.insert(
            RANGES_ANNOTATION.to_string(),
            self.options.ranges.to_string(),
        );
        let written = match self.own.clone() {
            Some(mut lease) => {
                lease.metadata.annotations = Some(annotations);
                let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
                spec.renew_time = Some(now);
                spec.lease_duration_seconds = Some(duration_secs);
                // `replace` sends the resourceVersion we wrote last: any other writer is a 409.
                match self
                    .api
                    .replace(&self.lease_name, &PostParams::default(), &lease)
                    .await
                {
                    Ok(lease) => lease,
                    Err(kube::Error::Api(s)) if s.code == 409 || s.code == 404 => {
                        return Err(RenewError::Lost(LeaseTaken {
                            lease: self.lease_name.clone(),
                            change: if s.code == 404 { "deleted" } else { "changed" },
                            source: kube::Error::Api(s),
                        }));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            None => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.lease_name.clone()),
                        labels: Some(
                            [(GROUP_LABEL.to_string(), self.options.group.clone())].into(),
                        ),
                        annotations: Some(annotations),
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
                match self.api.create(&PostParams::default(), &lease).await {
                    Ok(lease) => lease,
                    Err(kube::Error::Api(s)) if s.code == 409 => {
                        // Our identity's Lease from an earlier life (a restarted pod with a
                        // fixed identity): that process is gone, take the Lease over with
                        // what we claim now.
                        let existing = self.api.get(&self.lease_name).await?;
                        let replaced = Lease {
                            metadata: ObjectMeta {
                                resource_version: existing.metadata.resource_version,
                                ..lease.metadata
                            },
                            ..lease
                        };
                        self.api
                            .replace(&self.lease_name, &PostParams::default(), &replaced)
                            .await?
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        };
        self.own = Some(written);
        self.last_renew = Some(sent);
        Ok(())
    }

    /// Deletes our Lease (a graceful leave: everything it claimed is released at once).
    pub async fn leave(&mut self) -> Result<(), kube::Error> {
        let Some(own) = self.own.take() else {
            return Ok(());
        };
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                resource_version: own.metadata.resource_version,
                uid: None,
            }),
            ..DeleteParams::default()
        };
        match self.api.delete(&self.lease_name, &params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// `<group>-<16 hex digits of the identity's hash>`: a valid Lease name for any identity.
pub fn lease_name(group: &str, identity: &str) -> String {
    format!("{group}-{:016x}", fnv1a64(identity.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_names_are_valid_for_any_identity() {
        let name = lease_name("memcached-operator-shard", "host_0123abcd");
        assert!(name.starts_with("memcached-operator-shard-"));
        assert_eq!(name.len(), "memcached-operator-shard-".len() + 16);
        assert_ne!(
            name,
            lease_name("memcached-operator-shard", "host_0123abce")
        );
    }

    #[test]
    fn a_taken_lease_keeps_the_servers_answer_as_its_source() {
        let conflict =
            kube::core::Status::failure("the object has been modified", "Conflict").with_code(409);
        let err = RenewError::Lost(LeaseTaken {
            lease: "group-00".into(),
            change: "changed",
            source: kube::Error::Api(Box::new(conflict)),
        });
        let source = std::error::Error::source(&err)
            .and_then(|e| e.downcast_ref::<kube::Error>())
            .expect("kube's error is the source");
        assert!(
            matches!(source, kube::Error::Api(s) if s.code == 409),
            "{source:?}"
        );
        assert!(
            err.to_string()
                .starts_with("member Lease group-00 was changed by someone else: "),
            "{err}"
        );
    }
}
