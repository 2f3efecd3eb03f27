//! What `kubeforge init` writes, and the markers of those files that later commands insert at.

use crate::context::BOILERPLATE_FILE;
use crate::scaffold::{FixedFile, Marker, Template};

/// `Cargo.toml`.
pub const CARGO_TOML: Template = Template::new("project/Cargo.toml", &[]);
/// `Makefile`: `create webhook` adds `RUN_FLAGS` at `run-flags`.
pub const MAKEFILE: Template = Template::new("project/Makefile", &["run-flags"]);
/// `Dockerfile`.
pub const DOCKERFILE: Template = Template::new("project/Dockerfile", &[]);
/// `.dockerignore`.
pub const DOCKERIGNORE: Template = Template::new("project/dockerignore", &[]);
/// `.gitignore`.
pub const GITIGNORE: Template = Template::new("project/gitignore", &[]);
/// `README.md`.
pub const README: Template = Template::new("project/README.md", &[]);
/// The license header of generated files (kubebuilder's `hack/boilerplate.go.txt`).
pub const BOILERPLATE: Template = Template::new("project/boilerplate.txt", &[]);
/// `src/main.rs`: the manager; `create api` registers controllers, `create webhook` the
/// webhook server.
pub const MAIN_RS: Template = Template::new(
    "project/src/main.rs",
    &["imports", "webhook-builder", "builder", "webhook-server"],
);
/// `src/lib.rs`: the crate's modules and the list of its CRDs.
pub const LIB_RS: Template = Template::new("project/src/lib.rs", &["modules", "crds"]);
/// `src/api/mod.rs`: one module per version (per group, multigroup).
pub const API_MOD_RS: Template = Template::new("project/src/api/mod.rs", &["modules"]);
/// `src/controllers/mod.rs`: one module per controller (per group, multigroup).
pub const CONTROLLERS_MOD_RS: Template =
    Template::new("project/src/controllers/mod.rs", &["modules"]);
/// `config/default/kustomization.yaml` (`create webhook` switches its webhook parts on and
/// appends [`super::webhook::DEFAULT_REPLACEMENTS`]).
pub const DEFAULT_KUSTOMIZATION: Template =
    Template::new("project/config/default/kustomization.yaml", &[]);
/// `config/rbac/kustomization.yaml`: `create api` lists the admin/editor/viewer roles.
pub const RBAC_KUSTOMIZATION: Template =
    Template::new("project/config/rbac/kustomization.yaml", &["rbac"]);

/// The other files of `init`, each written once and left to the user.
pub const METRICS_SERVICE: Template =
    Template::new("project/config/default/metrics_service.yaml", &[]);
/// `config/default/manager_metrics_patch.yaml`.
pub const MANAGER_METRICS_PATCH: Template =
    Template::new("project/config/default/manager_metrics_patch.yaml", &[]);
/// `config/manager/kustomization.yaml`.
pub const MANAGER_KUSTOMIZATION: Template =
    Template::new("project/config/manager/kustomization.yaml", &[]);
/// `config/manager/manager.yaml`.
pub const MANAGER: Template = Template::new("project/config/manager/manager.yaml", &[]);
/// `config/rbac/service_account.yaml`.
pub const SERVICE_ACCOUNT: Template =
    Template::new("project/config/rbac/service_account.yaml", &[]);
/// `config/rbac/role.yaml` (`make manifests` rewrites it).
pub const ROLE: Template = Template::new("project/config/rbac/role.yaml", &[]);
/// `config/rbac/role_binding.yaml`.
pub const ROLE_BINDING: Template = Template::new("project/config/rbac/role_binding.yaml", &[]);
/// `config/rbac/leader_election_role.yaml`.
pub const LEADER_ELECTION_ROLE: Template =
    Template::new("project/config/rbac/leader_election_role.yaml", &[]);
/// `config/rbac/leader_election_role_binding.yaml`.
pub const LEADER_ELECTION_ROLE_BINDING: Template =
    Template::new("project/config/rbac/leader_election_role_binding.yaml", &[]);
/// `config/rbac/metrics_auth_role.yaml`.
pub const METRICS_AUTH_ROLE: Template =
    Template::new("project/config/rbac/metrics_auth_role.yaml", &[]);
/// `config/rbac/metrics_auth_role_binding.yaml`.
pub const METRICS_AUTH_ROLE_BINDING: Template =
    Template::new("project/config/rbac/metrics_auth_role_binding.yaml", &[]);
/// `config/rbac/metrics_reader_role.yaml`.
pub const METRICS_READER_ROLE: Template =
    Template::new("project/config/rbac/metrics_reader_role.yaml", &[]);
/// `config/prometheus/kustomization.yaml`.
pub const PROMETHEUS_KUSTOMIZATION: Template =
    Template::new("project/config/prometheus/kustomization.yaml", &[]);
/// `config/prometheus/monitor.yaml`.
pub const PROMETHEUS_MONITOR: Template =
    Template::new("project/config/prometheus/monitor.yaml", &[]);
/// `config/network-policy/kustomization.yaml`.
pub const NETWORK_POLICY_KUSTOMIZATION: Template =
    Template::new("project/config/network-policy/kustomization.yaml", &[]);
/// `config/network-policy/allow-metrics-traffic.yaml`.
pub const NETWORK_POLICY: Template = Template::new(
    "project/config/network-policy/allow-metrics-traffic.yaml",
    &[],
);

/// `src/main.rs`.
pub const MAIN: FixedFile = FixedFile::new(&MAIN_RS, "src/main.rs");
/// `src/lib.rs`.
pub const LIB: FixedFile = FixedFile::new(&LIB_RS, "src/lib.rs");
/// `src/api/mod.rs`.
pub const API_MOD: FixedFile = FixedFile::new(&API_MOD_RS, "src/api/mod.rs");
/// `src/controllers/mod.rs`.
pub const CONTROLLERS_MOD: FixedFile =
    FixedFile::new(&CONTROLLERS_MOD_RS, "src/controllers/mod.rs");
/// `Makefile`.
pub const MAKEFILE_FILE: FixedFile = FixedFile::new(&MAKEFILE, "Makefile");
/// `config/default/kustomization.yaml`.
pub const DEFAULT_KUSTOMIZATION_FILE: FixedFile =
    FixedFile::new(&DEFAULT_KUSTOMIZATION, "config/default/kustomization.yaml");
/// `config/rbac/kustomization.yaml`.
pub const RBAC_KUSTOMIZATION_FILE: FixedFile =
    FixedFile::new(&RBAC_KUSTOMIZATION, "config/rbac/kustomization.yaml");
/// The license header, read by later commands for the files they write.
pub const BOILERPLATE_TXT: FixedFile = FixedFile::new(&BOILERPLATE, BOILERPLATE_FILE);

/// `use` lines of main.rs.
pub const MAIN_IMPORTS: Marker = Marker::new(&MAIN_RS, "imports");
/// main.rs, where the webhook server builder gets the project's webhooks.
pub const MAIN_WEBHOOK_BUILDER: Marker = Marker::new(&MAIN_RS, "webhook-builder");
/// main.rs, where controllers are added to the manager.
pub const MAIN_BUILDER: Marker = Marker::new(&MAIN_RS, "builder");
/// main.rs, where the webhook server is added to the manager.
pub const MAIN_WEBHOOK_SERVER: Marker = Marker::new(&MAIN_RS, "webhook-server");
/// lib.rs, the crate's top-level modules.
pub const LIB_MODULES: Marker = Marker::new(&LIB_RS, "modules");
/// lib.rs, the CRDs of `crds()`.
pub const LIB_CRDS: Marker = Marker::new(&LIB_RS, "crds");
/// src/api/mod.rs, its modules.
pub const API_MODULES: Marker = Marker::new(&API_MOD_RS, "modules");
/// src/controllers/mod.rs, its modules.
pub const CONTROLLERS_MODULES: Marker = Marker::new(&CONTROLLERS_MOD_RS, "modules");
/// The Makefile's `RUN_FLAGS` (flags of `make run`).
pub const MAKEFILE_RUN_FLAGS: Marker = Marker::new(&MAKEFILE, "run-flags");
/// config/rbac/kustomization.yaml, its resources.
pub const RBAC_RESOURCES: Marker = Marker::new(&RBAC_KUSTOMIZATION, "rbac");

/// Every file `init` writes from a template, besides the boilerplate (written only with a
/// license) and PROJECT.
pub const FILES: &[FixedFile] = &[
    FixedFile::new(&CARGO_TOML, "Cargo.toml"),
    MAKEFILE_FILE,
    FixedFile::new(&DOCKERFILE, "Dockerfile"),
    FixedFile::new(&DOCKERIGNORE, ".dockerignore"),
    FixedFile::new(&GITIGNORE, ".gitignore"),
    FixedFile::new(&README, "README.md"),
    MAIN,
    LIB,
    API_MOD,
    CONTROLLERS_MOD,
    DEFAULT_KUSTOMIZATION_FILE,
    FixedFile::new(&METRICS_SERVICE, "config/default/metrics_service.yaml"),
    FixedFile::new(
        &MANAGER_METRICS_PATCH,
        "config/default/manager_metrics_patch.yaml",
    ),
    FixedFile::new(&MANAGER_KUSTOMIZATION, "config/manager/kustomization.yaml"),
    FixedFile::new(&MANAGER, "config/manager/manager.yaml"),
    RBAC_KUSTOMIZATION_FILE,
    FixedFile::new(&SERVICE_ACCOUNT, "config/rbac/service_account.yaml"),
    FixedFile::new(&ROLE, "config/rbac/role.yaml"),
    FixedFile::new(&ROLE_BINDING, "config/rbac/role_binding.yaml"),
    FixedFile::new(
        &LEADER_ELECTION_ROLE,
        "config/rbac/leader_election_role.yaml",
    ),
    FixedFile::new(
        &LEADER_ELECTION_ROLE_BINDING,
        "config/rbac/leader_election_role_binding.yaml",
    ),
    FixedFile::new(&METRICS_AUTH_ROLE, "config/rbac/metrics_auth_role.yaml"),
    FixedFile::new(
        &METRICS_AUTH_ROLE_BINDING,
        "config/rbac/metrics_auth_role_binding.yaml",
    ),
    FixedFile::new(&METRICS_READER_ROLE, "config/rbac/metrics_reader_role.yaml"),
    FixedFile::new(
        &PROMETHEUS_KUSTOMIZATION,
        "config/prometheus/kustomization.yaml",
    ),
    FixedFile::new(&PROMETHEUS_MONITOR, "config/prometheus/monitor.yaml"),
    FixedFile::new(
        &NETWORK_POLICY_KUSTOMIZATION,
        "config/network-policy/kustomization.yaml",
    ),
    FixedFile::new(
        &NETWORK_POLICY,
        "config/network-policy/allow-metrics-traffic.yaml",
    ),
];
