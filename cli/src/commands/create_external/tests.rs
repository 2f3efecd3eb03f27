//! `create api --external`'s stages on an in-memory project, with the vendored CRDs.

use super::super::harness::Harness;
use crate::error::Error;

/// The path of a vendored CRD fixture.
pub fn fixture(rel: &str) -> String {
    format!("{}/tests/fixtures/crds/{rel}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generates_types_modules_the_crd_copy_and_project_entries() {
    let mut project = Harness::init("");
    let crd = fixture("cert-manager/cert-manager.io_certificates.yaml");
    let ran = project
        .run(&format!(
            "create api --external --crd {crd} --controller=false"
        ))
        .unwrap();
    let types = project.read("src/external/cert_manager_io/v1/certificate.rs");
    assert!(types.contains("#[derive(CustomResource, "), "{types}");
    assert!(types.contains("    kind = \"Certificate\",\n"));
    assert!(
        project
            .read("src/lib.rs")
            .contains("pub mod external;\n// +kubeforge:scaffold:modules")
    );
    assert!(
        project
            .read("src/external/mod.rs")
            .contains("pub mod cert_manager_io;\n// +kubeforge:scaffold:modules")
    );
    assert!(
        project
            .read("src/external/cert_manager_io/mod.rs")
            .contains("pub mod v1;\n")
    );
    assert!(
        project
            .read("src/external/cert_manager_io/v1/mod.rs")
            .contains("pub mod certificate;\npub use certificate::*;\n")
    );
    assert!(
        project.read("config/crd/external/cert-manager.io_certificates.yaml")
            == std::fs::read_to_string(&crd).unwrap(),
        "the CRD's copy is not the file as read"
    );
    let entry = format!(
        "- domain: io\n  external: true\n  group: cert-manager\n  kind: Certificate\n  module: {crd}\n  path: demo::external::cert_manager_io::v1::Certificate\n  plural: certificates\n  version: v1\n"
    );
    assert!(
        project.read("PROJECT").contains(&entry),
        "{}",
        project.read("PROJECT")
    );
    assert!(!project.has("src/controllers/certificate.rs"));
    assert!(
        ran.stdout
            .contains("use demo::external::cert_manager_io::v1::Certificate;")
    );
    // Certificate's spec is optional in its CRD: the generator says what that means.
    assert!(
        ran.stderr
            .contains("note: Certificate v1: spec is optional"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_controller_is_registered_and_tested_with_the_crd_installed() {
    let mut project = Harness::init("");
    let crd = fixture("cert-manager/cert-manager.io_certificates.yaml");
    project
        .run(&format!("create api --external --crd {crd}"))
        .unwrap();
    let controller = project.read("src/controllers/certificate.rs");
    assert!(controller.contains("use crate::external::cert_manager_io::v1::Certificate;\n"));
    assert!(
        project
            .read("src/controllers/mod.rs")
            .contains("pub mod certificate;\n")
    );
    assert!(project.read("src/main.rs").contains(
        "    controllers::certificate::add_to_manager(&mut manager);\n    // +kubeforge:scaffold:builder"
    ));
    let test = project.read("tests/certificate_controller.rs");
    assert!(test.contains(
        "const CRD: &str = include_str!(\"../config/crd/external/cert-manager.io_certificates.yaml\");\n"
    ));
    // The example object has what the schema requires.
    assert!(
        test.contains(r#""spec":{"issuerRef":{"name":"example"},"secretName":"example"}"#),
        "{test}"
    );
    assert!(project.read("PROJECT").contains("- controller: true\n"));
    // A controller of the project's own API imports the same module: one import, in the form
    // `create api` writes, so the two never clash.
    project
        .run("create api --group cache --version v1 --kind Memcached")
        .unwrap();
    let main = project.read("src/main.rs");
    assert_eq!(main.matches("controllers;\n").count(), 1, "{main}");
}

#[test]
fn several_crds_versions_and_filters() {
    let mut project = Harness::init("--multigroup");
    let crds = fixture("kubeforge/typegen.kubeforge.dev_crds.yaml");
    project
        .run(&format!(
            "create api --external --crd {crds} --controller=false"
        ))
        .unwrap();
    assert!(project.has("src/external/typegen_kubeforge_dev/v1/exotic.rs"));
    assert!(project.has("src/external/typegen_kubeforge_dev/v1/bare.rs"));
    let route = fixture("gateway-api/gateway.networking.k8s.io_httproutes.yaml");
    project
        .run(&format!(
            "create api --external --crd {route} --version all --kind HTTPRoute"
        ))
        .unwrap();
    for version in ["v1", "v1beta1"] {
        assert!(project.has(&format!(
            "src/external/gateway_networking_k8s_io/{version}/http_route.rs"
        )));
    }
    // One controller, for the storage version.
    let controller = project.read("src/controllers/gateway/http_route.rs");
    assert!(controller.contains("use crate::external::gateway_networking_k8s_io::v1::HTTPRoute;"));
    assert_eq!(
        project.read("PROJECT").matches("controller: true").count(),
        1
    );
}

#[test]
fn refusals_name_the_rule_and_change_nothing() {
    let mut project = Harness::init("");
    let crd = fixture("cert-manager/cert-manager.io_certificates.yaml");
    project
        .run(&format!(
            "create api --external --crd {crd} --controller=false"
        ))
        .unwrap();
    let before = project.tree.clone();
    let mut refused = |args: &str| {
        let err = project
            .run(&format!("create api --external --crd {crd} {args}"))
            .unwrap_err();
        for path in before.paths() {
            assert_eq!(
                project.tree.get(path),
                before.get(path),
                "{args} changed {}",
                path.display()
            );
        }
        assert_eq!(
            project.tree.paths().count(),
            before.paths().count(),
            "{args}"
        );
        err.to_string()
    };
    assert!(refused("").contains("is already in PROJECT as an external kind"));
    assert!(refused("").contains("fix: run `kubeforge update external`"));
    assert!(
        refused("--resource=false --force")
            .contains("--resource=false cannot be used with --external")
    );
    assert!(refused("--plural certs --force").contains("--plural cannot be used with --external"));
    assert!(
        refused("--reconcile state-of-world --force").contains("--reconcile state-of-world cannot")
    );
    let err = refused("--kind Issuer");
    assert!(
        err.contains("has no CRD of kind Issuer (it has Certificate (cert-manager.io))"),
        "{err}"
    );
    let err = refused("--version v9 --force");
    assert!(err.contains("has no version v9 (it has v1)"), "{err}");
    assert!(
        err.contains("fix: pass --version with versions the CRD has (v1)"),
        "{err}"
    );
}

#[test]
fn a_changed_crd_copy_or_a_file_in_the_way_refuses() {
    let mut project = Harness::init("");
    let crd = fixture("cert-manager/cert-manager.io_certificates.yaml");
    project.tree.write(
        "config/crd/external/cert-manager.io_certificates.yaml",
        "# another CRD\n",
    );
    let err = project
        .run(&format!("create api --external --crd {crd}"))
        .unwrap_err();
    assert!(matches!(err, Error::FileExists { .. }), "{err}");
    assert!(!project.has("src/external/mod.rs"));
    project
        .run(&format!("create api --external --crd {crd} --force"))
        .unwrap();
    let once = project.tree.clone();
    // --force again: same files, no line inserted twice.
    project
        .run(&format!("create api --external --crd {crd} --force"))
        .unwrap();
    for path in once.paths() {
        assert_eq!(project.tree.get(path), once.get(path), "{}", path.display());
    }
}

#[test]
fn types_deeper_than_the_default_recursion_limit_raise_it_in_the_crates_that_use_them() {
    // Reading a CRD that deep recurses: on the stack the binary gives its commands.
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(deep_types_raise_the_recursion_limit)
        .unwrap()
        .join()
        .unwrap();
}

fn deep_types_raise_the_recursion_limit() {
    let mut project = Harness::init("");
    let mut schema = String::from(r#"{"type":"object","properties":{"leaf":{"type":"string"}}}"#);
    for _ in 0..140 {
        schema = format!(r#"{{"type":"object","properties":{{"child":{schema}}}}}"#);
    }
    let crd = format!(
        r#"{{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{{"name":"deeps.example.com"}},"spec":{{"group":"example.com","names":{{"kind":"Deep","plural":"deeps"}},"scope":"Namespaced","versions":[{{"name":"v1","served":true,"storage":true,"schema":{{"openAPIV3Schema":{{"type":"object","properties":{{"spec":{schema}}}}}}}}}]}}}}"#
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deeps.json");
    std::fs::write(&path, crd).unwrap();
    let ran = project
        .run(&format!(
            "create api --external --crd {} --controller=true",
            path.display()
        ))
        .unwrap();
    assert!(ran.stderr.contains("recursion_limit"), "{}", ran.stderr);
    for root in ["src/lib.rs", "src/main.rs", "tests/deep_controller.rs"] {
        let text = project.read(root);
        assert_eq!(
            text.matches("#![recursion_limit = \"").count(),
            1,
            "{root}:\n{text}"
        );
        syn::parse_file(text).unwrap();
    }
    // Run again (`--force`): the limit is not added twice.
    project
        .run(&format!(
            "create api --external --crd {} --controller=true --force",
            path.display()
        ))
        .unwrap();
    assert_eq!(
        project
            .read("src/lib.rs")
            .matches("#![recursion_limit")
            .count(),
        1
    );
}
