//! Sharding: one operator's work spread over several replicas.
pub mod hash;
pub mod range;
pub mod ring;
