//! The naming rule of the scaffolder: every combination of names `kubeforge` accepts gives a
//! project that compiles, and every input it refuses leaves the project byte for byte as it
//! was.
//!
//! [`accepted_names_compile`] scaffolds tricky projects (kinds named like the names generated
//! code uses, Rust keywords (`Self` too), the standard prelude, project names equal to kinds or
//! keywords, groups and versions with digits, dashes, keywords, reserved words and path
//! keywords, more versions of a kind, built-in kinds), puts them in one cargo workspace and
//! runs one `cargo check --all-targets` over all of them, into the workspace's target
//! directory, then the manifests generator of one of them. [`refused_names_change_nothing`]
//! runs the inputs that must be refused.

use std::path::Path;

use kubeforge_e2e::{
    LINT_ARGS, LINT_WRAPPER, build_lock, cargo, kubeforge, target_dir, tree_bytes, try_kubeforge,
    workspace_root,
};

/// One scaffolded project: its name, `init`'s flags and the commands after it.
struct Project {
    name: &'static str,
    init: &'static [&'static str],
    commands: Vec<String>,
}

fn api(group: &str, version: &str, kind: &str, extra: &str) -> String {
    format!("create api --group {group} --version {version} --kind {kind} {extra}")
}

fn webhook(group: &str, version: &str, kind: &str, extra: &str) -> String {
    format!("create webhook --group {group} --version {version} --kind {kind} {extra}")
}

/// Kinds named like what generated code uses: the ones kubebuilder users hit first, and a
/// sample of the standard prelude, the kubeforge prelude and the templates' own items (the
/// CLI's unit tests check that every name the templates use is among the names it renames).
const SHADOWING_KINDS: &[&str] = &[
    "Manager",
    "Controller",
    "Api",
    "Client",
    "Condition",
    "Action",
    "Context",
    "Error",
    "Result",
    "Option",
    "String",
    "Vec",
    "Box",
    "Some",
    "Default",
    "From",
    "Into",
    "Fn",
    "Drop",
    "ResourceExt",
    "Serialize",
    "JsonSchema",
    "TestEnv",
    "Hub",
    "Snapshot",
    "Denied",
    "Validator",
    // A keyword: no type can have its name.
    "Self",
];

/// Kinds of the shadowing project that also get admission webhooks.
const WEBHOOK_KINDS: &[&str] = &[
    "Error",
    "Context",
    "Result",
    "Option",
    "Default",
    "Validator",
    "Denied",
    "Hub",
    "Into",
    "ResourceExt",
    "Self",
];

fn projects() -> Vec<Project> {
    let mut shadowing: Vec<String> = SHADOWING_KINDS
        .iter()
        .map(|kind| api("names", "v1", kind, ""))
        .collect();
    shadowing.extend(WEBHOOK_KINDS.iter().map(|kind| {
        webhook(
            "names",
            "v1",
            kind,
            "--defaulting --programmatic-validation",
        )
    }));
    // A second version of a shadowing kind, and a conversion whose hub is that later version.
    shadowing.push(api("names", "v2", "From", ""));
    shadowing.push(webhook("names", "v2", "From", "--conversion --spoke v1"));

    vec![
        // kubebuilder's Quick Start names: a project named like its kind.
        Project {
            name: "guestbook",
            init: &["--domain", "my.domain"],
            commands: vec![
                api("webapp", "v1", "Guestbook", ""),
                webhook(
                    "webapp",
                    "v1",
                    "Guestbook",
                    "--defaulting --programmatic-validation",
                ),
            ],
        },
        Project {
            name: "names",
            init: &["--domain", "example.com"],
            commands: shadowing,
        },
        // Keywords, digits, dashes and dots in groups and versions; crate and module names as
        // kinds and groups; kinds that differ only in case, in two groups.
        Project {
            name: "keywords",
            init: &["--domain", "example.com", "--multigroup"],
            commands: vec![
                api("type", "v1", "Match", ""),
                api("self", "async", "Crate", ""),
                api("1st-group", "v1beta1", "Super", ""),
                api("my-group", "v2alpha3", "Loop", "--namespaced=false"),
                api("kube", "type", "Kube", ""),
                api("kubeforge", "v1", "Kubeforge", ""),
                api("k8s", "openapi", "K8sOpenapi", ""),
                api("std", "v1", "Std", ""),
                api("core", "v1", "Core", ""),
                api("a.b", "v1-beta", "Dotted", ""),
                api("tests", "v1", "Tokio", ""),
                api("apps2", "v1", "CronJob", ""),
                api("batch2", "v1", "Cronjob", ""),
                api("world", "v1", "Snapshot", "--reconcile state-of-world"),
                api(
                    "world",
                    "v1",
                    "Changes",
                    "--reconcile state-of-world --plural changesets",
                ),
                api("core", "v1", "ConfigMap", "--resource=false"),
                webhook("type", "v1", "Match", "--defaulting"),
                webhook("self", "async", "Crate", "--programmatic-validation"),
                webhook("k8s", "openapi", "K8sOpenapi", "--defaulting"),
                // Reserved words (keywords-to-be) as groups, versions and kinds' modules.
                api("gen", "try", "Macro", ""),
                api("abstract", "yield", "Priv", ""),
                api("do", "box", "Final", ""),
                api("virtual", "become", "Typeof", ""),
                webhook(
                    "gen",
                    "try",
                    "Macro",
                    "--defaulting --programmatic-validation",
                ),
                // Path keywords as versions (modules `self_`, `super_`, `crate_`), the hub of a
                // conversion among them.
                api("paths", "self", "Path", ""),
                api("paths", "super", "Path", ""),
                api("paths", "crate", "Path", ""),
                webhook("paths", "self", "Path", "--conversion --spoke super,crate"),
            ],
        },
        // Project names that are keywords: the crate is `r#match`, `r#gen` in paths. The first
        // is also named like its kind, whose second version converts.
        Project {
            name: "match",
            init: &["--domain", "example.com"],
            commands: vec![
                api("loop", "v1", "Match", ""),
                webhook(
                    "loop",
                    "v1",
                    "Match",
                    "--defaulting --programmatic-validation",
                ),
                api("loop", "v2", "Match", ""),
                webhook("loop", "v2", "Match", "--conversion --spoke v1"),
            ],
        },
        Project {
            name: "gen",
            init: &["--domain", "example.com"],
            commands: vec![
                api("yield", "abstract", "Gen", ""),
                webhook("yield", "abstract", "Gen", "--defaulting"),
            ],
        },
        // More versions of a kind in a protected group: the later versions are not stored and
        // get no controller; the conversion's hub is a later version. Schedule's second version
        // has no conversion: v1 stays the storage version.
        Project {
            name: "versions",
            init: &[
                "--domain",
                "example.k8s.io",
                "--api-approved",
                "unapproved.testing-only",
            ],
            commands: vec![
                api("batch", "v1", "CronJob", ""),
                api("batch", "v2", "CronJob", ""),
                api("batch", "v1-beta", "CronJob", ""),
                api("batch", "first", "Thing2", "--plural thingies"),
                api("batch", "v10", "HTTPRoute", "--namespaced=false"),
                api("batch", "mod", "Index", ""),
                webhook("batch", "v2", "CronJob", "--conversion --spoke v1,v1-beta"),
                webhook("batch", "v1", "Job", "--defaulting"),
                api("batch", "v1", "Schedule", ""),
                api("batch", "v2", "Schedule", ""),
            ],
        },
        // Project names that are kinds, modules and aliases of the generated code.
        Project {
            name: "controllers",
            init: &["--domain", "example.com"],
            commands: vec![api("web", "v1", "Controllers", "")],
        },
        Project {
            name: "webhook",
            init: &["--domain", "example.com"],
            commands: vec![
                api("hooks", "v1", "Webhook", ""),
                webhook(
                    "hooks",
                    "v1",
                    "Webhook",
                    "--defaulting --programmatic-validation",
                ),
            ],
        },
        // Built-in kinds, in a namespaced manager.
        Project {
            name: "builtins",
            init: &["--domain", "example.com", "--namespaced"],
            commands: vec![
                api("apps", "v1", "Deployment", "--resource=false"),
                api("core", "v1", "Namespace", "--resource=false"),
                api("coordination", "v1", "Lease", "--resource=false"),
                api("networking.k8s.io", "v1", "Ingress", "--resource=false"),
                api("batch", "v1", "Job", "--resource=false"),
                webhook(
                    "core",
                    "v1",
                    "Pod",
                    "--defaulting --programmatic-validation",
                ),
                webhook("core", "v1", "Secret", "--defaulting"),
                webhook("apps", "v1", "Deployment", "--programmatic-validation"),
            ],
        },
    ]
}

/// Every file of the scaffolded projects (the packages `members` of the workspace at `root`) is
/// as rustfmt writes it (`cargo fmt --check`), so a user's first `cargo fmt` changes nothing.
/// Only those packages: not kubeforge's crates they depend on by path. Skipped, with the
/// reason printed, when rustfmt is not installed.
fn assert_rustfmt_clean(root: &Path, members: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let version = std::process::Command::new(&cargo)
        .args(["fmt", "--version"])
        .output();
    match version {
        Ok(out) if out.status.success() => {}
        _ => {
            eprintln!(
                "skipped `cargo fmt --check`: rustfmt is not installed (rustup component add rustfmt)"
            );
            return;
        }
    }
    let mut args = vec!["fmt", "--check"];
    for member in members {
        args.extend(["-p", member]);
    }
    let check = std::process::Command::new(&cargo)
        .args(&args)
        .current_dir(root)
        .env("CARGO_NET_OFFLINE", "true")
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "the scaffolded projects are not rustfmt-clean:\n{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

/// Scaffolds `project` under `root`, then makes it a member of the workspace there.
fn scaffold(root: &Path, project: &Project) -> usize {
    let dir = root.join(project.name);
    let mut init = vec!["init", "--project-name", project.name];
    init.extend_from_slice(project.init);
    kubeforge(&dir, &init);
    for command in &project.commands {
        let args: Vec<&str> = command.split_whitespace().collect();
        kubeforge(&dir, &args);
    }
    // A member of the workspace: its own [workspace] table and profiles go (profiles are the
    // workspace's).
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let package = manifest
        .split("\n[workspace]")
        .next()
        .unwrap_or(&manifest)
        .to_owned();
    std::fs::write(dir.join("Cargo.toml"), package).unwrap();
    project.commands.len()
}

#[test]
fn accepted_names_compile() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    let projects = projects();
    let combinations: usize = projects.iter().map(|p| scaffold(root, p)).sum();
    assert!(combinations >= 40, "{combinations} combinations");
    let members: Vec<String> = projects.iter().map(|p| format!("{:?}", p.name)).collect();
    std::fs::write(
        root.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n\n[profile.dev]\ndebug = \"line-tables-only\"\n\n[profile.dev.package.\"*\"]\ndebug = false\n",
            members.join(", ")
        ),
    )
    .unwrap();
    std::fs::copy(workspace_root().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let names: Vec<&str> = projects.iter().map(|p| p.name).collect();
    assert_rustfmt_clean(root, &names);

    let _build = build_lock();
    let check = cargo(
        root,
        &["check", "--workspace", "--all-targets", "--offline"],
    );
    eprintln!(
        "checked {combinations} scaffolded combinations in {} projects in {:.1?}",
        projects.len(),
        check.elapsed
    );

    // The manifests generator runs: the protected group's CRDs carry the approval; the
    // conversion's hub is CronJob's stored version, and a second version without a conversion
    // is served beside the first, which stays stored.
    let mut command =
        std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    let manifests = kubeforge_e2e::without_test_vars(&mut command)
        .args([
            "run",
            "--quiet",
            "--offline",
            "-p",
            "versions",
            "--",
            "manifests",
        ])
        .current_dir(root.join("versions"))
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove(LINT_WRAPPER)
        .env_remove(LINT_ARGS)
        .output()
        .unwrap();
    assert!(
        manifests.status.success(),
        "{}",
        String::from_utf8_lossy(&manifests.stderr)
    );
    let crd = |plural: &str| {
        std::fs::read_to_string(root.join(format!(
            "versions/config/crd/bases/batch.example.k8s.io_{plural}.yaml"
        )))
        .unwrap()
    };
    let cronjobs = crd("cronjobs");
    assert!(
        cronjobs.contains("api-approved.kubernetes.io: unapproved.testing-only"),
        "{cronjobs}"
    );
    assert_eq!(
        versions(&cronjobs),
        (vec!["v1", "v1-beta", "v2"], vec!["v2"]),
        "{cronjobs}"
    );
    let schedules = crd("schedules");
    assert_eq!(
        versions(&schedules),
        (vec!["v1", "v2"], vec!["v1"]),
        "{schedules}"
    );
    assert!(!schedules.contains("conversion:"), "{schedules}");
}

/// The versions of a CRD's YAML (each entry of spec.versions has `name:`, `served:` and
/// `storage:` four spaces deep), those served and those stored.
fn versions(crd: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut served, mut stored) = (Vec::new(), Vec::new());
    let mut name = "";
    for line in crd.lines() {
        if let Some(version) = line.strip_prefix("    name: ") {
            name = version;
        } else if line == "    served: true" {
            served.push(name);
        } else if line == "    storage: true" {
            stored.push(name);
        }
    }
    served.sort_unstable();
    (served, stored)
}

/// `kubeforge <command>` in `dir` fails with a message holding every one of `expected`, and
/// leaves the tree as it was.
#[track_caller]
fn refused(dir: &Path, command: &str, expected: &[&str]) {
    let before = tree_bytes(dir);
    let args: Vec<&str> = command.split_whitespace().collect();
    let error = try_kubeforge(dir, &args)
        .err()
        .unwrap_or_else(|| panic!("`kubeforge {command}` was accepted"));
    for needle in expected {
        assert!(
            error.contains(needle),
            "`kubeforge {command}`: {needle:?} not in:\n{error}"
        );
    }
    assert!(error.contains("fix:"), "{error}");
    assert!(
        tree_bytes(dir) == before,
        "`kubeforge {command}` changed the tree"
    );
}

#[test]
fn refused_names_change_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let empty = temp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for (init, expected) in [
        ("--domain k8s.io", &["api-approved.kubernetes.io"][..]),
        ("--domain apps.kubernetes.io", &["--api-approved"]),
        (
            "--domain k8s.io --api-approved approved",
            &["starting with \"unapproved\""],
        ),
        (
            "--domain example.com --api-approved unapproved",
            &["only for a domain under k8s.io"],
        ),
        ("--project-name kube", &["crates the project depends on"]),
        ("--project-name tokio", &["crates the project depends on"]),
        ("--project-name serde-json", &["serde_json"]),
        ("--project-name std", &["reserved by Rust"]),
        (
            "--project-name self",
            &["path keyword", "--project-name self-operator"],
        ),
        ("--project-name crate", &["path keyword"]),
    ] {
        let command = if init.contains("--project-name") {
            format!("init --domain example.com {init}")
        } else {
            format!("init --project-name demo {init}")
        };
        refused(&empty, &command, expected);
    }
    assert!(tree_bytes(&empty).is_empty());

    let dir = temp.path().join("batch-operator");
    kubeforge(&dir, &["init", "--domain", "example.com"]);
    for command in [
        api("batch", "v1", "CronJob", ""),
        api("batch", "v1", "Widget", "--plural widgets"),
    ] {
        let args: Vec<&str> = command.split_whitespace().collect();
        kubeforge(&dir, &args);
    }
    for (command, expected) in [
        // Versions: DNS-1035 labels that name a module.
        (
            api("batch", "1", "Thing", ""),
            &["--version", "DNS-1035 label"][..],
        ),
        (api("batch", "V1", "Thing", ""), &["DNS-1035 label"]),
        (api("batch", "v1.0", "Thing", ""), &["DNS-1035 label"]),
        (api("batch", "v1_beta", "Thing", ""), &["DNS-1035 label"]),
        (api("batch", "v1-", "Thing", ""), &["DNS-1035 label"]),
        // Kinds.
        (api("batch", "v1", "thing", ""), &["CamelCase"]),
        (api("batch", "v1", "My-Kind", ""), &["CamelCase"]),
        (api("batch", "v1", "1Kind", ""), &["CamelCase"]),
        (
            api("batch", "v1", "Cronjob", ""),
            &["differ only in case", "CronJob"],
        ),
        (
            api("batch", "v1", "CronJobList", ""),
            &["CronJob's list type"],
        ),
        (
            api("batch", "v1", "CronJobSpec", ""),
            &["CronJob's spec type"],
        ),
        (
            api("batch", "v1", "CronJobStatus", ""),
            &["CronJob's status type"],
        ),
        (api("batch", "v1", "Widgets", ""), &["Widget has it"]),
        // Plurals: unique in the group, one per kind.
        (
            api("batch", "v1", "Gadget", "--plural widgets"),
            &["Widget has it"],
        ),
        (
            api("batch", "v1", "Gadget", "--plural cronjob"),
            &["CronJob has it"],
        ),
        (
            api("batch", "v1", "Gadget", "--plural Gadgets"),
            &["DNS-1035"],
        ),
        (
            api("batch", "v2", "CronJob", "--plural crons"),
            &["every version of the kind", "--plural cronjobs"],
        ),
        (
            api("batch", "v2", "CronJob", "--namespaced=false"),
            &["every version of the kind", "namespaced"],
        ),
        // One controller per kind.
        (
            api("batch", "v2", "CronJob", "--controller"),
            &["already has a controller, for version v1", "--force"],
        ),
        // Built-in kinds that k8s-openapi does not have.
        (
            api("apps", "v1", "Widget", "--resource=false"),
            &["k8s-openapi's apps/v1 has", "Deployment"],
        ),
        (
            api("apps", "v2", "Deployment", "--resource=false"),
            &["k8s-openapi has Deployment in apps at v1, not v2"],
        ),
        (
            api("policy", "v1", "Eviction", "--resource=false"),
            &["subresource"],
        ),
        // Webhooks: the project's own kinds first, then k8s-openapi's.
        (
            webhook("batch", "v1", "Nope", "--defaulting"),
            &[
                "PROJECT has batch/v1 CronJob, batch/v1 Widget in group batch.example.com",
                "k8s-openapi's batch/v1 has CronJob, Job",
            ],
        ),
        (
            webhook("apps", "v2", "Deployment", "--defaulting"),
            &["k8s-openapi has Deployment in apps at v1, not v2"],
        ),
        (
            webhook("batch", "v1", "Job", "--conversion --spoke v2"),
            &["built-in Kubernetes kind"],
        ),
    ] {
        refused(&dir, &command, expected);
    }
}
