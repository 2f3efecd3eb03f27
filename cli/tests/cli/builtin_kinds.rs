//! `kubeforge_cli::builtin_kinds` is k8s-openapi's list of kinds: derived again here from the
//! k8s-openapi sources cargo resolved (every `impl crate::Resource for <Kind>` under
//! `src/v1_<minor>/api/`), it must be the table, entry for entry.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubeforge_cli::builtin_kinds::{BUILTIN_KINDS, Scope};

/// The folder of the k8s-openapi package the workspace's Cargo.lock pins, in cargo's registry
/// sources (`$CARGO_HOME/registry/src/<index>/k8s-openapi-<version>`).
fn k8s_openapi_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lock = std::fs::read_to_string(workspace.join("Cargo.lock")).unwrap();
    let version = lock
        .split("name = \"k8s-openapi\"\nversion = \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("k8s-openapi in Cargo.lock");
    let cargo_home = std::env::var_os("CARGO_HOME").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cargo"),
        PathBuf::from,
    );
    let registry = cargo_home.join("registry/src");
    std::fs::read_dir(&registry)
        .unwrap_or_else(|e| panic!("{}: {e}", registry.display()))
        .flatten()
        .map(|index| index.path().join(format!("k8s-openapi-{version}")))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| panic!("no k8s-openapi-{version} under {}", registry.display()))
}

/// `const NAME: &'static str = "value";` in `body`.
fn constant<'a>(body: &'a str, name: &str) -> &'a str {
    let start = body
        .find(&format!("const {name}: &'static str = \""))
        .unwrap();
    let rest = &body[start..];
    let value = &rest[rest.find('"').unwrap() + 1..];
    &value[..value.find('"').unwrap()]
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A kind's (module, version, kind).
type Key = (String, String, String);
/// What k8s-openapi says of it: (group, plural, scope, listable, the minors that have it).
type Facts = (String, String, Scope, bool, Vec<u32>);

#[test]
fn builtin_kinds_are_k8s_openapis() {
    let src = k8s_openapi_dir().join("src");
    let mut found: BTreeMap<Key, Facts> = BTreeMap::new();
    for minor in 33..=37 {
        let api = src.join(format!("v1_{minor}/api"));
        let mut files = Vec::new();
        rust_files(&api, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let relative = file.strip_prefix(&api).unwrap();
            let mut parts = relative.iter().map(|p| p.to_string_lossy().into_owned());
            let (Some(module), Some(version)) = (parts.next(), parts.next()) else {
                continue;
            };
            for block in text.split("impl crate::Resource for ").skip(1) {
                let ty = block.split_whitespace().next().unwrap_or_default();
                let body = &block[..block.find("\n}").unwrap_or(block.len())];
                let scope = match body.split("type Scope = crate::").nth(1) {
                    Some(s) if s.starts_with("NamespaceResourceScope") => Scope::Namespaced,
                    Some(s) if s.starts_with("ClusterResourceScope") => Scope::Cluster,
                    _ => Scope::Subresource,
                };
                let listable = text.contains(&format!("impl crate::ListableResource for {ty} "));
                let entry = found
                    .entry((
                        module.clone(),
                        version.clone(),
                        constant(body, "KIND").to_owned(),
                    ))
                    .or_insert_with(|| {
                        (
                            constant(body, "GROUP").to_owned(),
                            constant(body, "URL_PATH_SEGMENT").to_owned(),
                            scope,
                            listable,
                            Vec::new(),
                        )
                    });
                entry.4.push(minor);
            }
        }
    }
    let derived: Vec<String> = found
        .iter()
        .map(
            |((module, version, kind), (group, plural, scope, listable, minors))| {
                format!(
                    "{group} {module} {version} {kind} {plural} {scope:?} {listable} {}..={}",
                    minors[0],
                    minors[minors.len() - 1]
                )
            },
        )
        .collect();
    let table: Vec<String> = BUILTIN_KINDS
        .iter()
        .map(|k| {
            format!(
                "{} {} {} {} {} {:?} {} {}..={}",
                k.api_group,
                k.module,
                k.version,
                k.kind,
                k.plural,
                k.scope,
                k.listable,
                k.minors.0,
                k.minors.1
            )
        })
        .collect();
    assert_eq!(
        table, derived,
        "cli/src/builtin_kinds.rs differs from k8s-openapi"
    );
    assert!(table.len() > 100, "{} kinds", table.len());
}
