//! The scaffolder: commands describe every write in a [`Plan`] held in memory; the plan checks
//! them all (files in the way, markers present) and only then writes. A refused or failed
//! command therefore leaves the project byte-for-byte unchanged.

mod commit;
mod markers;
mod plan;

pub use markers::{Marker, insert_before_marker, insert_block_before_marker};
pub use plan::{Change, Plan};
