//! RBAC declarations: `#[kubeforge::rbac(...)]` registers rules (the equivalent of
//! `+kubebuilder:rbac`), `reconciles`/`owns`/`watches` derive the rules a controller needs for a
//! kind, and [`role_manifests`] merges everything into `config/rbac/role.yaml`.

mod declare;
mod normalize;
mod role;
mod rule;

pub use declare::{Declaration, declared_rules, owns, reconciles, watches};
pub use normalize::normalize;
pub use role::{ROLE_NAME, role_manifests};
pub use rule::{Rule, missing_verbs};
