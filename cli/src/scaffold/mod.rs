//! The scaffolder's machinery: commands describe every write in a [`Plan`] held in memory,
//! reading the project through a read-only [`Tree`]; the plan checks each write (files in the
//! way, markers present, Rust files that parse) and only a finished plan ([`Changeset`]) is
//! committed. A refused or failed command therefore leaves the project byte-for-byte unchanged.
//!
//! * [`artifact`] — the descriptor types: [`Template`], [`Marker`], [`Artifact`], [`IfExists`].
//! * [`tree`] — the read-only views: [`DiskTree`], [`MemoryTree`].
//! * [`plan`] — the plan; [`changeset`] — the finished plan and its commit.
//! * [`markers`] — line insertion before the scaffold markers of YAML files and the Makefile.
//! * [`rust`] — edits of Rust files through syn, insertions at their markers too.

pub mod artifact;
pub mod changeset;
mod commit;
pub mod markers;
pub mod plan;
pub mod rust;
pub mod tree;

pub use artifact::{Anchor, Artifact, FixedFile, Fragment, IfExists, Marker, Template};
pub use changeset::{Change, Changeset, FileChange};
pub use plan::Plan;
pub use tree::{DiskTree, MemoryTree, Tree};
