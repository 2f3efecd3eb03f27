//! [`ShardingOptions`]: how a manager shares the work with its other replicas.

use std::time::Duration;

use super::hash::ShardKey;

/// How this replica's part of the ring is decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardAssignment {
    /// The ring's ranges are spread over the live members of the group (one Lease each) and
    /// rebalanced as replicas join, leave and crash (`--shards auto`).
    Auto,
    /// A fixed part: the `index`-th of `count` equal parts of the ring, with no Leases and no
    /// handover (`--shard-index`/`--shard-count`). The operator's deployment must run exactly
    /// one replica per index; nothing checks it.
    Static {
        /// This replica's part, `0..count`.
        index: u32,
        /// How many parts.
        count: u32,
    },
}

/// Why sharding options cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardConfigError {
    /// `--shard-index` is not below `--shard-count`.
    #[error(
        "--shard-index {index} is out of range for --shard-count {count}: use an index from 0 to {}",
        count.saturating_sub(1)
    )]
    IndexOutOfRange {
        /// The index given.
        index: u32,
        /// The count given.
        count: u32,
    },
    /// `--shard-count 0`.
    #[error("--shard-count must be at least 1")]
    ZeroCount,
    /// The ring must have between 1 and 4096 ranges.
    #[error("the ring must be cut into 1 to 4096 ranges, not {0}")]
    Ranges(u16),
    /// The lease timings do not leave a replica time to stop before others take over, or a
    /// round (every retry period, up to 20% later) time to renew before the renew deadline.
    #[error(
        "shard lease timings must satisfy 1.2 × retry period ({retry:?}) < renew deadline ({renew:?}) < lease duration ({lease:?})"
    )]
    Timings {
        /// The lease duration.
        lease: Duration,
        /// The renew deadline.
        renew: Duration,
        /// The retry period.
        retry: Duration,
    },
}

/// Sharding settings of a manager (see [`crate::shard`]). Lease timings default to leader
/// election's (15 s lease, 10 s renew deadline, 2 s retry period).
#[derive(Clone, Debug)]
pub struct ShardingOptions {
    /// Automatic (Leases) or static assignment.
    pub assignment: ShardAssignment,
    /// The field objects are sharded by (default `metadata.uid`).
    pub key: ShardKey,
    /// The shard group: member Leases are labelled with it and named after it.
    pub group: String,
    /// Namespace of the member Leases; `None` = the client's default namespace (in a pod: its
    /// own).
    pub namespace: Option<String>,
    /// This replica's identity (default: hostname plus a random suffix).
    pub identity: String,
    /// How many equal ranges the ring is cut into (the unit of handover; default 64). Every
    /// replica of a group must use the same number.
    pub ranges: u16,
    /// How long a member Lease is valid without renewal before others take its ranges.
    pub lease_duration: Duration,
    /// How long a member keeps retrying a failed renewal before it stops all work, counted from
    /// when its last successful renewal was sent; no request of a round outlives it.
    pub renew_deadline: Duration,
    /// Time between membership rounds (renewal, reading the others, handovers), plus up to 20%
    /// jitter; 1.2 times it must be below the renew deadline (client-go's rule).
    pub retry_period: Duration,
}

impl ShardingOptions {
    /// Automatic sharding in the group `group`, with the defaults.
    pub fn auto(group: impl Into<String>) -> Self {
        Self {
            assignment: ShardAssignment::Auto,
            key: ShardKey::Uid,
            group: group.into(),
            namespace: None,
            identity: crate::identity::default_identity(),
            ranges: 64,
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }

    /// Static sharding: part `index` of `count`.
    pub fn fixed(group: impl Into<String>, index: u32, count: u32) -> Self {
        Self {
            assignment: ShardAssignment::Static { index, count },
            ..Self::auto(group)
        }
    }

    /// Checks the options before the manager starts.
    pub fn validate(&self) -> Result<(), ShardConfigError> {
        if let ShardAssignment::Static { index, count } = self.assignment {
            if count == 0 {
                return Err(ShardConfigError::ZeroCount);
            }
            if index >= count {
                return Err(ShardConfigError::IndexOutOfRange { index, count });
            }
        }
        if !(1..=4096).contains(&self.ranges) {
            return Err(ShardConfigError::Ranges(self.ranges));
        }
        // The jittered wait between rounds must leave the next round time to renew before the
        // deadline, as client-go requires of leader election (renewDeadline > 1.2 retryPeriod).
        if !(self.retry_period.mul_f64(1.2) < self.renew_deadline
            && self.renew_deadline < self.lease_duration)
        {
            return Err(ShardConfigError::Timings {
                lease: self.lease_duration,
                renew: self.renew_deadline,
                retry: self.retry_period,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked() {
        assert!(ShardingOptions::auto("g").validate().is_ok());
        assert!(ShardingOptions::fixed("g", 2, 3).validate().is_ok());
        let e = ShardingOptions::fixed("g", 3, 3).validate().unwrap_err();
        assert_eq!(
            e.to_string(),
            "--shard-index 3 is out of range for --shard-count 3: use an index from 0 to 2"
        );
        assert_eq!(
            ShardingOptions::fixed("g", 0, 0).validate(),
            Err(ShardConfigError::ZeroCount)
        );
        let mut o = ShardingOptions::auto("g");
        o.renew_deadline = o.lease_duration;
        assert!(matches!(
            o.validate(),
            Err(ShardConfigError::Timings { .. })
        ));
        // The jittered retry period must fit in the renew deadline.
        o = ShardingOptions::auto("g");
        o.retry_period = Duration::from_millis(8300);
        assert!(o.validate().is_ok(), "1.2 × 8.3 s < 10 s");
        o.retry_period = Duration::from_millis(8400);
        assert!(matches!(
            o.validate(),
            Err(ShardConfigError::Timings { .. })
        ));
        o.retry_period = Duration::from_secs(9);
        assert_eq!(
            o.validate().unwrap_err().to_string(),
            "shard lease timings must satisfy 1.2 × retry period (9s) < renew deadline (10s) < lease duration (15s)"
        );
        o = ShardingOptions::auto("g");
        o.ranges = 0;
        assert_eq!(o.validate(), Err(ShardConfigError::Ranges(0)));
    }
}
