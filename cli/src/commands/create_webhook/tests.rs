//! `create webhook`'s stages on an in-memory project, with the user's Rust files edited
//! through the parser.

use super::super::harness::Harness;
use crate::error::Error;

/// A project with Memcached at v1 (with its controller) and v1beta1 (type only).
fn memcached() -> Harness {
    let mut project = Harness::init("");
    project
        .run("create api --group cache --version v1 --kind Memcached")
        .unwrap();
    project
        .run("create api --group cache --version v1beta1 --kind Memcached --controller=false")
        .unwrap();
    project
}

const DEFAULTING: &str = "create webhook --group cache --version v1 --kind Memcached --defaulting";
const VALIDATION: &str =
    "create webhook --group cache --version v1 --kind Memcached --programmatic-validation";
const CONVERSION: &str =
    "create webhook --group cache --version v1 --kind Memcached --conversion --spoke v1beta1";

#[test]
fn registers_every_webhook_type_and_records_them() {
    let mut project = memcached();
    let ran = project
        .run("create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --conversion --spoke v1beta1")
        .unwrap();
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
    let registry = project.read("src/webhooks/mod.rs");
    for line in [
        "pub mod memcached_v1;\n// +kubeforge:scaffold:webhook-modules",
        "        .defaulter::<crate::api::v1::Memcached>(memcached_v1::MemcachedDefaulter)\n",
        "        .validator::<crate::api::v1::Memcached>(memcached_v1::MemcachedValidator)\n",
        "        .conversion::<crate::api::v1::Memcached>()\n    // +kubeforge:scaffold:webhooks",
    ] {
        assert!(registry.contains(line), "{registry}");
    }
    let module = project.read("src/webhooks/memcached_v1.rs");
    assert!(module.contains("use kubeforge::webhook::{Defaulter, Denied, Validator, Warnings};\n"));
    assert!(project.has("src/api/v1beta1/memcached_conversion.rs"));
    assert!(
        project
            .read("src/api/v1beta1/mod.rs")
            .contains("mod memcached_conversion;\n")
    );
    let spoke = project.read("src/api/v1beta1/memcached.rs");
    assert_eq!(
        spoke.matches("    storage = false,\n").count(),
        1,
        "{spoke}"
    );
    assert!(!project.read("src/api/v1/memcached.rs").contains("storage"));
    assert!(
        project
            .read("Makefile")
            .contains("RUN_FLAGS += --webhook-local\n")
    );
    assert!(project.read("PROJECT").contains(
        "  webhooks:\n    conversion: true\n    defaulting: true\n    spoke:\n    - v1beta1\n    validation: true\n    webhookVersion: v1\n"
    ));
}

#[test]
fn a_second_type_keeps_the_users_code_byte_for_byte() {
    let mut project = memcached();
    project.run(DEFAULTING).unwrap();
    let path = "src/webhooks/memcached_v1.rs";
    // The user's own code: comments, odd formatting, a multi-line import.
    let mine = project
        .read(path)
        .replace(
            "use kubeforge::webhook::{Defaulter, Denied};",
            "use kubeforge::webhook::{\n    Defaulter, // the defaulter\n    Denied,\n};",
        )
        .replace(
            "        Ok(())\n",
            "        // my rule\n        obj.spec.foo.get_or_insert_with(|| \"mine\".into());   // keep   this\n        Ok(())\n",
        );
    project.tree.write(path, &mine);
    project.run(VALIDATION).unwrap();
    let after = project.read(path);
    let head = mine.replace("    Denied,\n};", "    Denied, Validator, Warnings,\n};");
    assert!(after.starts_with(&head), "{after}");
    assert!(
        after[head.len()..].starts_with("\n/// The validating webhook"),
        "{after}"
    );
    assert!(after.contains("impl Validator<Memcached> for MemcachedValidator"));
}

#[test]
fn a_users_file_that_does_not_parse_is_refused_naming_it() {
    let mut project = memcached();
    project.run(DEFAULTING).unwrap();
    let path = "src/webhooks/memcached_v1.rs";
    let broken = format!("{}\nfn half_written( {{\n", project.read(path));
    project.tree.write(path, &broken);
    let before = project.tree.clone();
    let err = project.run(VALIDATION).unwrap_err();
    assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("src/webhooks/memcached_v1.rs does not parse as Rust"),
        "{message}"
    );
    assert!(message.contains("nothing was written"), "{message}");
    assert!(message.contains("fix:"), "{message}");
    for path in before.paths() {
        assert_eq!(project.tree.get(path), before.get(path));
    }

    // The types a conversion reads must parse too.
    let mut project = memcached();
    let spoke = "src/api/v1beta1/memcached.rs";
    project.tree.write(
        spoke,
        project
            .read(spoke)
            .replace("pub struct MemcachedSpec {", "pub struct MemcachedSpec {{"),
    );
    let err = project.run(CONVERSION).unwrap_err();
    assert!(
        err.to_string()
            .contains("src/api/v1beta1/memcached.rs does not parse as Rust (line "),
        "{err}"
    );
    assert!(!project.has("src/api/v1beta1/memcached_conversion.rs"));
}

#[test]
fn a_test_file_that_does_not_parse_is_refused_and_nothing_written() {
    let mut project = memcached();
    project.run(DEFAULTING).unwrap();
    let path = "tests/memcached_webhook.rs";
    let broken = project
        .read(path)
        .replace("async fn start()", "async fn start(");
    project.tree.write(path, &broken);
    let before = project.tree.clone();
    let err = project.run(VALIDATION).unwrap_err();
    assert!(matches!(err, Error::RustSyntax { .. }), "{err}");
    let message = err.to_string();
    assert!(
        message.contains("tests/memcached_webhook.rs does not parse as Rust (line "),
        "{message}"
    );
    assert!(message.contains("nothing was written"), "{message}");
    assert!(
        message.contains("fix: make the file valid Rust again"),
        "{message}"
    );
    assert_eq!(before.paths().count(), project.tree.paths().count());
    for path in before.paths() {
        assert_eq!(
            project.tree.get(path),
            before.get(path),
            "{}",
            path.display()
        );
    }
}

#[test]
fn tests_the_file_has_already_are_not_added_again() {
    // The test file of a project that has both webhooks, in a project that has none yet (the
    // user kept the file, PROJECT and the webhook module were reset).
    let mut done = memcached();
    done.run(DEFAULTING).unwrap();
    done.run(VALIDATION).unwrap();
    let path = "tests/memcached_webhook.rs";
    let tests = done.read(path).to_owned();
    assert_eq!(
        tests
            .matches("_is_defaulted() -> anyhow::Result<()>")
            .count(),
        1
    );
    assert_eq!(
        tests
            .matches("_is_validated() -> anyhow::Result<()>")
            .count(),
        1
    );

    let mut project = memcached();
    project.run(DEFAULTING).unwrap();
    // The defaulting test as the user reformatted it: the same tokens.
    let mine = tests.replace("Ok(())\n}", "Ok( () )\n}");
    project.tree.write(path, &mine);
    let ran = project.run(VALIDATION).unwrap();
    assert_eq!(project.read(path), mine);
    assert!(
        !ran.changes
            .files()
            .iter()
            .any(|f| f.path.as_os_str() == path),
        "the test file is unchanged"
    );
    // The rest of the command ran: the validator is registered.
    assert!(
        project
            .read("src/webhooks/memcached_v1.rs")
            .contains("impl Validator<Memcached> for MemcachedValidator")
    );
}

#[test]
fn the_spoke_type_is_edited_where_its_kind_is_whatever_its_layout() {
    let mut project = memcached();
    let spoke = "src/api/v1beta1/memcached.rs";
    // The user put the attribute on one line and commented it.
    let text = project.read(spoke);
    let start = text.find("#[kube(").unwrap();
    let end = start + text[start..].find(")]\n").unwrap() + 3;
    let mine = format!(
        "{}// my comment\n#[kube(group = \"cache.example.com\", version = \"v1beta1\", kind = \"Memcached\", plural = \"memcacheds\", namespaced, status = \"MemcachedStatus\")]\n{}",
        &text[..start],
        &text[end..]
    );
    project.tree.write(spoke, &mine);
    project.run(CONVERSION).unwrap();
    assert_eq!(
        project.read(spoke),
        mine.replace(
            "kind = \"Memcached\", plural",
            "kind = \"Memcached\", storage = false, plural"
        )
    );
}

#[test]
fn conversion_maps_the_fields_both_versions_have() {
    let mut project = memcached();
    let hub = "src/api/v1/memcached.rs";
    project.tree.write(
        hub,
        project.read(hub).replace(
            "    pub foo: Option<String>,\n",
            "    pub foo: Option<String>,\n    /// Replicas { with braces }.\n    pub replicas: i32,\n",
        ),
    );
    project.run(CONVERSION).unwrap();
    let conversion = project.read("src/api/v1beta1/memcached_conversion.rs");
    assert!(
        conversion.contains("            foo: spec.foo,\n            // `replicas` is not in v1beta1: it starts at its default.\n            replicas: Default::default(),\n"),
        "{conversion}"
    );
}

#[test]
fn webhooks_on_built_in_kinds_are_scoped_and_warned_about() {
    let mut project = Harness::init("");
    let ran = project
        .run("create webhook --group core --version v1 --kind Pod --defaulting")
        .unwrap();
    assert!(
        ran.stderr.starts_with("warning: a webhook on Pod (v1)"),
        "{}",
        ran.stderr
    );
    assert!(ran.stderr.contains("config/webhook/pod_v1_mutating_scope.yaml gives it a namespaceSelector that leaves out demo-system"));
    assert!(
        project
            .read("config/webhook/kustomization.yaml")
            .contains("- path: pod_v1_mutating_scope.yaml\n")
    );
    let err = project
        .run("create webhook --group core --version v1 --kind Pod --conversion --spoke v1beta1")
        .unwrap_err();
    assert!(matches!(err, Error::ConversionForBuiltin { .. }), "{err}");
}

#[test]
fn an_old_makefile_without_the_marker_gets_a_warning() {
    let mut project = memcached();
    let makefile = project
        .read("Makefile")
        .replace("# +kubeforge:scaffold:run-flags\n", "");
    project.tree.write("Makefile", &makefile);
    let ran = project.run(DEFAULTING).unwrap();
    assert!(
        ran.stderr
            .contains("the Makefile has no `# +kubeforge:scaffold:run-flags` marker")
    );
    assert_eq!(project.read("Makefile"), makefile);
}

#[test]
fn the_builder_chain_is_laid_out_as_rustfmt_lays_it_out() {
    let mut project = memcached();
    project.run(DEFAULTING).unwrap();
    assert!(project.read("src/webhooks/mod.rs").contains(
        "    builder.defaulter::<crate::api::v1::Memcached>(memcached_v1::MemcachedDefaulter)\n    // +kubeforge:scaffold:webhooks\n"
    ));
    project.run(VALIDATION).unwrap();
    assert!(project.read("src/webhooks/mod.rs").contains(
        "    builder\n        .defaulter::<crate::api::v1::Memcached>(memcached_v1::MemcachedDefaulter)\n        .validator::<crate::api::v1::Memcached>(memcached_v1::MemcachedValidator)\n    // +kubeforge:scaffold:webhooks\n"
    ));
}

#[test]
fn the_conversion_test_imports_hub_and_spoke_in_rustfmt_order() {
    // v1 (hub) sorts before v1beta1 (spoke) ...
    let mut project = memcached();
    project.run(CONVERSION).unwrap();
    assert!(project.read("tests/memcached_webhook.rs").contains(
        "    use ::demo::api::v1::Memcached as Hub;\n    use ::demo::api::v1beta1::Memcached as Spoke;\n"
    ));
    // ... and v10 (hub) after v2 (spoke).
    let mut project = Harness::init("");
    for version in ["v2", "v10"] {
        project
            .run(&format!(
                "create api --group cache --version {version} --kind Memcached --controller=false"
            ))
            .unwrap();
    }
    project
        .run("create webhook --group cache --version v10 --kind Memcached --conversion --spoke v2")
        .unwrap();
    assert!(project.read("tests/memcached_webhook.rs").contains(
        "    use ::demo::api::v2::Memcached as Spoke;\n    use ::demo::api::v10::Memcached as Hub;\n"
    ));
}
