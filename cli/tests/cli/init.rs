//! `kubeforge init`: every flag, every refusal.

use crate::common;

use common::{kubeforge, project, read, refused, tree};

#[test]
fn writes_the_project_layout() {
    let temp = project(&[]);
    let dir = temp.path();
    for file in [
        "Cargo.toml",
        "PROJECT",
        "Makefile",
        "Dockerfile",
        ".dockerignore",
        ".gitignore",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/api/mod.rs",
        "src/controllers/mod.rs",
        "config/default/kustomization.yaml",
        "config/manager/manager.yaml",
        "config/manager/kustomization.yaml",
        "config/rbac/service_account.yaml",
        "config/rbac/role_binding.yaml",
        "config/rbac/leader_election_role.yaml",
        "config/rbac/leader_election_role_binding.yaml",
        "config/rbac/metrics_auth_role.yaml",
        "config/rbac/metrics_reader_role.yaml",
        "config/prometheus/monitor.yaml",
        "config/network-policy/allow-metrics-traffic.yaml",
        "hack/boilerplate.rs.txt",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let default = read(dir, "config/default/kustomization.yaml");
    assert!(default.contains("namespace: demo-system\n"));
    assert!(default.contains("namePrefix: demo-\n"));
    let manager = read(dir, "config/manager/manager.yaml");
    for needle in [
        "runAsNonRoot: true",
        "type: RuntimeDefault",
        "readOnlyRootFilesystem: true",
        "allowPrivilegeEscalation: false",
        "- \"ALL\"",
        "path: /healthz",
        "path: /readyz",
        "limits:",
        "requests:",
    ] {
        assert!(manager.contains(needle), "manager.yaml lacks {needle}");
    }
    let dockerfile = read(dir, "Dockerfile");
    assert!(dockerfile.contains("FROM gcr.io/distroless/static:nonroot"));
    assert!(dockerfile.contains("USER 65532:65532"));
    assert!(dockerfile.contains("unknown-linux-musl"), "static binary");
    assert!(read(dir, "config/prometheus/monitor.yaml").contains("kind: ServiceMonitor"));
}

#[test]
fn project_file_records_the_flags() {
    let temp = project(&["--multigroup", "--namespaced"]);
    let text = read(temp.path(), "PROJECT");
    for line in [
        "domain: example.com",
        "projectName: demo",
        "multigroup: true",
        "namespaced: true",
        "- rust.kubeforge.io/v1",
    ] {
        assert!(text.contains(line), "PROJECT lacks {line}:\n{text}");
    }
    let role = read(temp.path(), "config/rbac/role.yaml");
    assert!(
        role.contains("kind: Role\n"),
        "a namespaced manager gets a Role:\n{role}"
    );
    assert!(read(temp.path(), "config/manager/manager.yaml").contains("WATCH_NAMESPACE"));
}

#[test]
fn defaults() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("memcached-operator");
    std::fs::create_dir(&dir).unwrap();
    let run = kubeforge(&dir, &["init"]).success();
    assert!(run.stdout.contains("Next steps:"), "{}", run.stdout);
    let text = read(&dir, "PROJECT");
    assert!(text.contains("domain: my.domain"), "{text}");
    assert!(text.contains("projectName: memcached-operator"), "{text}");
    assert!(text.contains("multigroup: false"));
    let cargo = read(&dir, "Cargo.toml");
    assert!(cargo.contains("name = \"memcached-operator\""));
    assert!(cargo.contains("\"v1_35\""), "default Kubernetes 1.35");
    assert!(cargo.contains("license = \"Apache-2.0\""));
    assert!(read(&dir, "src/main.rs").starts_with("// Copyright 2026.\n"));
    assert!(read(&dir, "config/rbac/role.yaml").contains("kind: ClusterRole\n"));
}

#[test]
fn owner_and_license() {
    let temp = project(&["--owner", "Acme Corp"]);
    assert!(
        read(temp.path(), "src/lib.rs")
            .starts_with("// Copyright 2026 Acme Corp.\n//\n// Licensed under the Apache License")
    );
    let none = project(&["--license", "none", "--owner", "Acme Corp"]);
    assert!(read(none.path(), "src/lib.rs").starts_with("//! demo:"));
    assert!(!none.path().join("hack/boilerplate.rs.txt").exists());
    assert!(!read(none.path(), "Cargo.toml").contains("license ="));
}

#[test]
fn k8s_version_picks_the_openapi_feature() {
    let temp = project(&["--k8s-version", "1.33"]);
    let cargo = read(temp.path(), "Cargo.toml");
    assert!(cargo.contains("\"v1_33\""), "{cargo}");
    assert!(!cargo.contains("v1_35"));
}

#[test]
fn dir_is_created() {
    let temp = tempfile::tempdir().unwrap();
    kubeforge(temp.path(), &["init", "--dir", "nested/guestbook"]).success();
    assert!(
        read(&temp.path().join("nested/guestbook"), "PROJECT").contains("projectName: guestbook")
    );
}

#[test]
fn kubeforge_source_decides_the_dependencies() {
    let temp = project(&[]);
    let cargo = read(temp.path(), "Cargo.toml");
    assert!(
        cargo.contains("kubeforge = { version = \"0.1.0\" }"),
        "{cargo}"
    );
    assert!(
        cargo.contains("kubeforge-testenv = { version = \"0.1.0\" }"),
        "{cargo}"
    );

    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(["init", "--project-name", "demo"])
        .current_dir(dir.path())
        .env("KUBEFORGE_SOURCE", checkout)
        .output()
        .unwrap();
    assert!(out.status.success());
    let cargo = read(dir.path(), "Cargo.toml");
    let expected = format!(
        "kubeforge = {{ path = \"{}\", version = \"0.1.0\" }}",
        checkout.join("runtime").display()
    );
    assert!(cargo.contains(&expected), "{cargo}");
}

#[test]
fn refuses_bad_input_and_writes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    refused(
        dir,
        &["init", "--domain", "Example.com", "--project-name", "demo"],
        &["--domain", "DNS-1123 subdomain", "fix:"],
    );
    refused(
        dir,
        &["init", "--domain", "example..com", "--project-name", "demo"],
        &["DNS-1123 subdomain"],
    );
    refused(
        dir,
        &["init", "--project-name", "My_Project"],
        &["--project-name", "DNS-1123 label", "fix:"],
    );
    refused(
        dir,
        &["init", "--project-name", "1abc"],
        &["starting with a letter"],
    );
    refused(dir, &["init", "--project-name", "test"], &["reserved"]);
    refused(
        dir,
        &["init", "--project-name", "self"],
        &["path keyword", "--project-name self-operator"],
    );
    refused(
        dir,
        &["init", "--project-name", "demo", "--k8s-version", "1.20"],
        &["--k8s-version", "1.33 to 1.37"],
    );
    refused(
        dir,
        &["init", "--project-name", "demo", "--license", "mit"],
        &["invalid value 'mit'"],
    );
    assert!(tree(dir).is_empty(), "nothing was written");

    // The directory name is the default project name, and must be a valid one.
    let bad_dir = dir.join("Bad_Name");
    std::fs::create_dir(&bad_dir).unwrap();
    refused(
        &bad_dir,
        &["init"],
        &[
            "\"Bad_Name\"",
            "defaults to the directory's name",
            "--project-name",
        ],
    );
}

#[test]
fn refuses_an_existing_project() {
    for existing in ["PROJECT", "Cargo.toml", "src/main.rs"] {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(existing);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "mine").unwrap();
        refused(
            temp.path(),
            &["init", "--project-name", "demo"],
            &[existing, "already exists", "fix:"],
        );
    }
    let temp = project(&[]);
    refused(
        temp.path(),
        &["init", "--project-name", "demo"],
        &["already exists"],
    );
}

#[test]
fn make_help_explains_every_target() {
    let temp = project(&[]);
    let out = std::process::Command::new("make")
        .arg("help")
        .current_dir(temp.path())
        .output()
        .expect("make is installed");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for target in [
        "help",
        "manifests",
        "fmt",
        "lint",
        "test",
        "build",
        "run",
        "docker-build",
        "docker-push",
        "build-installer",
        "install",
        "uninstall",
        "deploy",
        "undeploy",
    ] {
        let line = help
            .lines()
            .find(|l| {
                l.split_whitespace().next().map(|w| {
                    w.trim_start_matches("\u{1b}[36m")
                        .trim_end_matches("\u{1b}[0m")
                }) == Some(target)
            })
            .unwrap_or_else(|| panic!("make help lacks {target}:\n{help}"));
        assert!(
            line.split_whitespace().count() > 2,
            "{target} has no explanation: {line}"
        );
    }
}
