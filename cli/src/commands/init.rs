//! `kubeforge init`: a new operator project.

use crate::cli::{InitArgs, License};
use crate::context::{self, BOILERPLATE_FILE, ProjectContext};
use crate::error::Error;
use crate::project::{self, LAYOUT, PROJECT_FILE, ProjectFile};
use crate::scaffold::Plan;
use crate::source::Source;
use crate::{kubernetes, naming, validate};

/// Files whose presence means the directory already holds a project.
const PROJECT_MARKERS: &[&str] = &[PROJECT_FILE, "Cargo.toml", "src/main.rs"];

/// Names Cargo refuses as package names or that clash with the standard crates.
const RESERVED_NAMES: &[&str] = &[
    "test",
    "core",
    "std",
    "alloc",
    "proc-macro",
    "self",
    "super",
    "crate",
];

/// `(template, file)` of everything `init` writes besides PROJECT and the boilerplate.
const FILES: &[(&str, &str)] = &[
    ("project/Cargo.toml", "Cargo.toml"),
    ("project/Makefile", "Makefile"),
    ("project/Dockerfile", "Dockerfile"),
    ("project/dockerignore", ".dockerignore"),
    ("project/gitignore", ".gitignore"),
    ("project/README.md", "README.md"),
    ("project/src/main.rs", "src/main.rs"),
    ("project/src/lib.rs", "src/lib.rs"),
    ("project/src/api/mod.rs", "src/api/mod.rs"),
    ("project/src/controllers/mod.rs", "src/controllers/mod.rs"),
    (
        "project/config/default/kustomization.yaml",
        "config/default/kustomization.yaml",
    ),
    (
        "project/config/default/metrics_service.yaml",
        "config/default/metrics_service.yaml",
    ),
    (
        "project/config/default/manager_metrics_patch.yaml",
        "config/default/manager_metrics_patch.yaml",
    ),
    (
        "project/config/manager/kustomization.yaml",
        "config/manager/kustomization.yaml",
    ),
    (
        "project/config/manager/manager.yaml",
        "config/manager/manager.yaml",
    ),
    (
        "project/config/rbac/kustomization.yaml",
        "config/rbac/kustomization.yaml",
    ),
    (
        "project/config/rbac/service_account.yaml",
        "config/rbac/service_account.yaml",
    ),
    ("project/config/rbac/role.yaml", "config/rbac/role.yaml"),
    (
        "project/config/rbac/role_binding.yaml",
        "config/rbac/role_binding.yaml",
    ),
    (
        "project/config/rbac/leader_election_role.yaml",
        "config/rbac/leader_election_role.yaml",
    ),
    (
        "project/config/rbac/leader_election_role_binding.yaml",
        "config/rbac/leader_election_role_binding.yaml",
    ),
    (
        "project/config/rbac/metrics_auth_role.yaml",
        "config/rbac/metrics_auth_role.yaml",
    ),
    (
        "project/config/rbac/metrics_auth_role_binding.yaml",
        "config/rbac/metrics_auth_role_binding.yaml",
    ),
    (
        "project/config/rbac/metrics_reader_role.yaml",
        "config/rbac/metrics_reader_role.yaml",
    ),
    (
        "project/config/prometheus/kustomization.yaml",
        "config/prometheus/kustomization.yaml",
    ),
    (
        "project/config/prometheus/monitor.yaml",
        "config/prometheus/monitor.yaml",
    ),
    (
        "project/config/network-policy/kustomization.yaml",
        "config/network-policy/kustomization.yaml",
    ),
    (
        "project/config/network-policy/allow-metrics-traffic.yaml",
        "config/network-policy/allow-metrics-traffic.yaml",
    ),
];

/// Runs `kubeforge init`.
pub fn run(args: InitArgs) -> Result<(), Error> {
    let dir = super::project_dir(args.dir.as_deref())?;
    for file in PROJECT_MARKERS {
        let path = dir.join(file);
        if path.exists() {
            return Err(Error::AlreadyInitialized { path });
        }
    }

    let from_dir = args.project_name.is_none();
    let project_name = match args.project_name {
        Some(name) => name,
        None => dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    check_project_name(&project_name, from_dir)?;
    validate::dns1123_subdomain(&args.domain).map_err(|v| Error::InvalidInput {
        flag: "--domain",
        value: args.domain.clone(),
        subject: format!("the domain {:?}", args.domain),
        rule: v.rule,
        fix: "pass a lower-case domain you own, e.g. --domain example.com".into(),
    })?;
    let k8s_feature =
        kubernetes::openapi_feature(&args.k8s_version).ok_or_else(|| Error::InvalidInput {
            flag: "--k8s-version",
            value: args.k8s_version.clone(),
            subject: "the Kubernetes version".into(),
            rule: format!(
                "one k8s-openapi {} supports: 1.{} to 1.{}",
                kubeforge_templates::versions::of("k8s-openapi").unwrap_or("?"),
                kubernetes::SUPPORTED_MINORS.start(),
                kubernetes::SUPPORTED_MINORS.end()
            ),
            fix: format!("pass e.g. --k8s-version {}", kubernetes::DEFAULT_VERSION),
        })?;
    let k8s_version = args.k8s_version.trim_start_matches('v').to_owned();
    let source = Source::detect()?;
    let apache2 = args.license == License::Apache2;
    let owner = args.owner.unwrap_or_default();

    let renderer = kubeforge_templates::Renderer::new()?;
    let year = context::year();
    let boilerplate = if apache2 {
        Some(renderer.render("project/boilerplate.txt", &serde_boilerplate(year, &owner))?)
    } else {
        None
    };
    let ctx = ProjectContext {
        crate_name: naming::crate_name(&project_name),
        project_name: project_name.clone(),
        domain: args.domain.clone(),
        owner,
        apache2,
        year,
        header: context::rust_header(boilerplate.as_deref()),
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        k8s_version,
        k8s_feature,
        rust_version: env!("CARGO_PKG_RUST_VERSION"),
        versions: context::versions(),
        kubeforge_source: [
            ("runtime", source.dependency("runtime")),
            ("testenv", source.dependency("testenv")),
        ]
        .into_iter()
        .collect(),
    };

    let mut plan = Plan::new(&dir);
    for (template, file) in FILES {
        plan.create(file, renderer.render(template, &ctx)?, false)?;
    }
    if let Some(text) = boilerplate {
        plan.create(BOILERPLATE_FILE, text, false)?;
    }
    let project = ProjectFile {
        domain: args.domain,
        layout: vec![LAYOUT.into()],
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        project_name: project_name.clone(),
        resources: Vec::new(),
        version: "3".into(),
    };
    plan.create(PROJECT_FILE, project::render(&project)?, false)?;

    println!("Writing scaffold for you to edit...");
    let changes = plan.commit()?;
    super::print_changes(&changes);
    println!(
        "\nNext steps:\n  {cd}kubeforge create api --group <group> --version v1alpha1 --kind <Kind>\n  make test      # runs the project's tests against the embedded API server\n  make help      # every make target, explained\nThe kubeforge crates come from {}.",
        source.describe(),
        cd = if dir == super::project_dir(None)? {
            String::new()
        } else {
            format!("cd {} && ", dir.display())
        },
    );
    Ok(())
}

fn serde_boilerplate(year: i64, owner: &str) -> std::collections::BTreeMap<&'static str, String> {
    [("year", year.to_string()), ("owner", owner.to_owned())]
        .into_iter()
        .collect()
}

fn check_project_name(name: &str, from_dir: bool) -> Result<(), Error> {
    let fix = if from_dir {
        "the project name defaults to the directory's name; pass --project-name <name>, e.g. --project-name memcached-operator"
    } else {
        "pass a lower-case name, e.g. --project-name memcached-operator"
    };
    let invalid = |rule: String| Error::InvalidInput {
        flag: "--project-name",
        value: name.to_owned(),
        subject: format!("the project name {name:?}"),
        rule,
        fix: fix.into(),
    };
    validate::dns1123_label(name).map_err(|v| invalid(v.rule))?;
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(invalid("a DNS-1123 label starting with a letter (Cargo package names cannot start with a digit)".into()));
    }
    if RESERVED_NAMES.contains(&name) {
        return Err(invalid(format!(
            "a name Cargo accepts for a package ({name:?} is reserved by Rust)"
        )));
    }
    Ok(())
}
