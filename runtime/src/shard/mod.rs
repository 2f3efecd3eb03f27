//! Sharding: one operator's work spread over several replicas, on the Kubernetes API alone.
//!
//! The 64-bit hash ring of an object's `metadata.uid` (or namespace), hashed with FNV-1a as
//! the API server's `shardSelector` does (KEP-5866), is cut into equal ranges. Each replica
//! holds a Lease of its own ([`membership`]); the ranges are divided among the live members
//! deterministically ([`ring`]), and handed over so that an object is never reconciled by two
//! replicas at once ([`handover`]: stop, drain, announce; announce, verify, start). Each
//! replica's caches list and watch only its share where the API server supports it, and filter
//! client-side where it does not ([`filter`]); its controllers reconcile only objects in its
//! active ranges ([`gate`]). `design.md` beside this file has the protocol and its timing.
//!
//! Turned on with [`ManagerOptions::sharding`](crate::ManagerOptions::sharding) (flags
//! `--shards auto`, or `--shard-index`/`--shard-count` for a fixed part).

pub mod filter;
pub mod gate;
pub mod handover;
pub mod hash;
pub mod membership;
pub mod options;
pub mod range;
pub mod ring;

pub use gate::{Published, ShardGate, WorkGuard};
pub use handover::{Coordinator, MembershipLost};
pub use hash::ShardKey;
pub use options::{ShardAssignment, ShardConfigError, ShardingOptions};
pub use range::{RangeSet, ShardRange};
