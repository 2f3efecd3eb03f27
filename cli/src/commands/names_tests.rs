//! The generated Rust files use no name a kind can shadow: every CamelCase name a file other
//! than a type file uses unqualified (imported, defined, or from a prelude) is one of
//! `naming::TEMPLATE_NAMES` (so a kind of that name gets a renamed type), or a name of the
//! file's own kind.

use std::collections::BTreeSet;
use std::path::Path;

use syn::visit::Visit;

use super::harness::Harness;
use crate::naming::{self, TEMPLATE_NAMES};

/// The CamelCase names a file uses without a path before them.
#[derive(Default)]
struct Unqualified(BTreeSet<String>);

impl Unqualified {
    /// Records a name a kind's type could shadow: CamelCase, not `Self`, and not a constant's
    /// SCREAMING_CASE (constants live in the value namespace, a kind's type in the type
    /// namespace).
    fn add(&mut self, ident: &syn::Ident) {
        let name = ident.to_string();
        let constant = name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if name.starts_with(|c: char| c.is_ascii_uppercase()) && name != "Self" && !constant {
            self.0.insert(name);
        }
    }
}

impl<'ast> Visit<'ast> for Unqualified {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first()
        {
            self.add(&first.ident);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_use_name(&mut self, name: &'ast syn::UseName) {
        self.add(&name.ident);
    }

    fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
        self.add(&rename.rename);
    }

    fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
        self.add(&item.ident);
        syn::visit::visit_item_struct(self, item);
    }

    fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
        self.add(&item.ident);
        syn::visit::visit_item_enum(self, item);
    }
}

#[test]
fn generated_files_use_only_names_a_kind_of_that_name_cannot_shadow() {
    let kinds = ["Memcached", "World", "Deployment", "ConfigMap", "Pod"];
    let mut project = Harness::init("");
    for command in [
        "create api --group cache --version v1 --kind Memcached",
        "create api --group cache --version v1beta1 --kind Memcached --controller=false",
        "create api --group cache --version v1 --kind World --reconcile state-of-world",
        "create api --group apps --version v1 --kind Deployment --resource=false",
        "create api --group core --version v1 --kind ConfigMap --resource=false",
        "create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation --conversion --spoke v1beta1",
        "create webhook --group core --version v1 --kind Pod --defaulting --programmatic-validation",
    ] {
        project
            .run(command)
            .unwrap_or_else(|e| panic!("{command}: {e}"));
    }
    let mut checked = 0;
    for path in project.tree.paths() {
        let name = path.to_string_lossy();
        let kind_files = name.starts_with("src/controllers/")
            || name.starts_with("src/webhooks/")
            || name.starts_with("tests/")
            || name.ends_with("_conversion.rs");
        if !kind_files || path.file_name() == Some("mod.rs".as_ref()) {
            continue;
        }
        let text = project.read(&name);
        let file = syn::parse_file(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut used = Unqualified::default();
        used.visit_file(&file);
        let own = kind_of(path, &kinds);
        let allowed = |n: &str| {
            TEMPLATE_NAMES.contains(&n)
                || ["", "Spec", "Status", "Defaulter", "Validator"]
                    .iter()
                    .any(|suffix| n == format!("{}{suffix}", naming::kind_ident(own)))
        };
        let stray: Vec<&String> = used.0.iter().filter(|n| !allowed(n)).collect();
        assert!(
            stray.is_empty(),
            "{name} uses {stray:?} unqualified: add them to naming::TEMPLATE_NAMES, or write their paths"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} files checked");
}

/// The kind a generated file belongs to, from its name.
fn kind_of<'k>(path: &Path, kinds: &[&'k str]) -> &'k str {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    kinds
        .iter()
        .find(|kind| stem.starts_with(&naming::snake_case(kind)))
        .copied()
        .unwrap_or_else(|| panic!("no kind for {}", path.display()))
}
