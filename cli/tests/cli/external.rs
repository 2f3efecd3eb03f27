//! `kubeforge create api --external` and `kubeforge update external` through the binary: CRDs
//! from a file, an http URL and the cluster of a kubeconfig (the dev server), the diff of an
//! update, and refusals that change nothing.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Run, kubeforge, project, read, refused, tree_hash};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/crds")
        .join(rel)
}

const CERTIFICATES: &str = "cert-manager/cert-manager.io_certificates.yaml";

/// Serves `body` over http on 127.0.0.1 to `requests` requests; returns the URL.
fn serve(body: String, requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/crds.yaml", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    url
}

/// Whether `program` runs (tests that need it skip with a note otherwise).
fn have(program: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
        || Command::new(program)
            .args(["version", "--client"])
            .stdout(Stdio::null())
            .status()
            .is_ok();
    if !found {
        eprintln!("NOTE: {program} is not installed: that part of the test did not run");
    }
    found
}

#[test]
fn create_api_external_from_a_file_writes_types_that_are_rustfmt_clean() {
    let temp = project(&[]);
    let dir = temp.path();
    let crd = fixture(CERTIFICATES).display().to_string();
    let ran = kubeforge(dir, &["create", "api", "--external", "--crd", &crd]).success();
    assert!(
        ran.stdout
            .contains("  create src/external/cert_manager_io/v1/certificate.rs\n")
    );
    assert!(
        ran.stdout
            .contains("  create config/crd/external/cert-manager.io_certificates.yaml\n")
    );
    assert!(
        ran.stdout
            .contains("  create src/controllers/certificate.rs\n")
    );
    assert!(
        ran.stderr
            .contains("note: Certificate v1: spec is optional")
    );
    for file in [
        "src/external/cert_manager_io/v1/certificate.rs",
        "src/controllers/certificate.rs",
        "tests/certificate_controller.rs",
        "src/external/mod.rs",
        "src/lib.rs",
        "src/main.rs",
    ] {
        let out = Command::new("rustfmt")
            .args(["--edition", "2024", "--check"])
            .arg(dir.join(file))
            .output()
            .expect("rustfmt is required for this test (rustup component add rustfmt)");
        assert!(
            out.status.success(),
            "{file} is not rustfmt-clean:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

#[test]
fn create_api_external_reads_a_url() {
    if !have("curl") {
        return;
    }
    let temp = project(&[]);
    let dir = temp.path();
    let url = serve(
        std::fs::read_to_string(fixture(
            "gateway-api/gateway.networking.k8s.io_gateways.yaml",
        ))
        .unwrap(),
        1,
    );
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--external",
            "--crd",
            &url,
            "--controller=false",
        ],
    )
    .success();
    assert!(
        dir.join("src/external/gateway_networking_k8s_io/v1/gateway.rs")
            .is_file()
    );
    assert!(read(dir, "PROJECT").contains(&format!("  module: {url}\n")));
}

/// Runs `kubeforge args` in `dir` with `KUBECONFIG` set.
fn kubeforge_with_kubeconfig(dir: &Path, kubeconfig: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(args)
        .current_dir(dir)
        .env("KUBEFORGE_SOURCE", "crates-io")
        .env("KUBECONFIG", kubeconfig)
        .output()
        .expect("kubeforge runs");
    Run {
        ok: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn create_api_external_reads_the_clusters_crd() {
    if !have("kubectl") {
        return;
    }
    let temp = project(&[]);
    let dir = temp.path();
    let crds = tempfile::tempdir().unwrap();
    std::fs::copy(fixture(CERTIFICATES), crds.path().join("certificates.yaml")).unwrap();
    let kubeconfig = crds.path().join("kubeconfig");
    let mut server = Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .arg("dev-server")
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .arg("--crd-dir")
        .arg(crds.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !kubeconfig.is_file() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let ran = kubeforge_with_kubeconfig(
        dir,
        &kubeconfig,
        &[
            "create",
            "api",
            "--external",
            "--crd",
            "cluster:certificates.cert-manager.io",
            "--controller=false",
        ],
    );
    let missing = kubeforge_with_kubeconfig(
        dir,
        &kubeconfig,
        &[
            "create",
            "api",
            "--external",
            "--crd",
            "cluster:nopes.example.com",
        ],
    );
    server.kill().unwrap();
    server.wait().unwrap();
    let ran = ran.success();
    assert!(
        ran.stdout
            .contains("create src/external/cert_manager_io/v1/certificate.rs")
    );
    assert!(read(dir, "PROJECT").contains("  module: cluster:certificates.cert-manager.io\n"));
    // The copy is the CRD as the server has it, without what the server adds.
    let copy = read(dir, "config/crd/external/cert-manager.io_certificates.yaml");
    assert!(copy.contains("kind: CustomResourceDefinition"));
    assert!(!copy.contains("resourceVersion"), "{copy}");
    assert!(!copy.contains("status:\n  acceptedNames"), "{copy}");
    missing.failure(&[
        "could not read the CRD from the cluster's CRD nopes.example.com: kubectl failed",
        "fix: check the CRD's name (`kubectl get crd`) and KUBECONFIG",
    ]);
}

#[test]
fn update_external_prints_the_diff_and_dry_run_writes_nothing() {
    let temp = project(&[]);
    let dir = temp.path();
    let original = std::fs::read_to_string(fixture(CERTIFICATES)).unwrap();
    std::fs::write(dir.join("certificates.yaml"), &original).unwrap();
    kubeforge(
        dir,
        &[
            "create",
            "api",
            "--external",
            "--crd",
            "certificates.yaml",
            "--controller=false",
        ],
    )
    .success();
    assert!(read(dir, "PROJECT").contains("  module: certificates.yaml\n"));
    let up_to_date = kubeforge(dir, &["update", "external"]).success();
    assert!(
        up_to_date.stdout.contains("nothing changed"),
        "{}",
        up_to_date.stdout
    );

    // A newer CRD: a field renamed.
    let newer = original.replace(
        "              secretName:\n",
        "              secretNameV2:\n",
    );
    assert_ne!(newer, original);
    std::fs::write(dir.join("certificates.yaml"), &newer).unwrap();
    let before = tree_hash(dir);
    let dry = kubeforge(dir, &["update", "external", "--dry-run"]).success();
    assert_eq!(tree_hash(dir), before, "--dry-run wrote");
    assert!(
        dry.stdout
            .contains("+++ b/src/external/cert_manager_io/v1/certificate.rs\n")
    );
    assert!(
        dry.stdout
            .contains("\n+    pub secret_name_v2: Option<String>,\n"),
        "{}",
        dry.stdout
    );
    let written = kubeforge(dir, &["update", "external"]).success();
    assert_eq!(dry.stdout.lines().next(), written.stdout.lines().next());
    assert!(read(dir, "src/external/cert_manager_io/v1/certificate.rs").contains("secret_name_v2"));
    assert_eq!(
        read(dir, "config/crd/external/cert-manager.io_certificates.yaml"),
        newer
    );
}

#[test]
fn refusals_change_nothing() {
    let temp = project(&[]);
    let dir = temp.path();
    refused(
        dir,
        &["create", "api", "--external", "--crd", "missing.yaml"],
        &["could not read the CRD from", "missing.yaml"],
    );
    let files = tempfile::tempdir().unwrap();
    let broken = files.path().join("broken.yaml");
    std::fs::write(&broken, "kind: [unclosed\n").unwrap();
    let broken = broken.display().to_string();
    refused(
        dir,
        &["create", "api", "--external", "--crd", &broken],
        &[
            "cannot be used: it is not YAML or JSON",
            "fix: pass a CustomResourceDefinition",
        ],
    );
    let config_map = files.path().join("cm.yaml");
    std::fs::write(
        &config_map,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    )
    .unwrap();
    let config_map = config_map.display().to_string();
    refused(
        dir,
        &["create", "api", "--external", "--crd", &config_map],
        &["it holds no CustomResourceDefinition (only ConfigMap)"],
    );
    refused(
        dir,
        &["update", "external"],
        &[
            "PROJECT has no external kind.",
            "fix: add one with `kubeforge create api --external",
        ],
    );
    refused(dir, &["create", "api", "--external"], &["--crd"]);
}
