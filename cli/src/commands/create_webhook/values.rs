//! The values the `webhook/**` templates are rendered with.

use serde::Serialize;

use super::mapping::Mapping;
use super::order::use_path_cmp;
use super::target::Target;
use crate::kubernetes;
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::ProjectFile;

/// Every value the webhook templates use (strict rendering: each template finds all of its
/// names here).
#[derive(Debug, Clone, Serialize)]
pub struct Values {
    /// License header of Rust files.
    pub header: String,
    /// Project (package) name.
    pub project_name: String,
    /// The crate as a path names it (`demo`, `r#match`).
    pub crate_name: String,
    /// Project domain.
    pub domain: String,
    /// The kind.
    pub kind: String,
    /// The name the generated Rust files give the kind (`naming::kind_ident`).
    pub kind_ident: String,
    /// How they import it (`Memcached`, `Error as ErrorResource`).
    pub kind_import: String,
    /// Lower-case kind.
    pub kind_lower: String,
    /// The kind's module name.
    pub kind_mod: String,
    /// Full API group (`` for core).
    pub api_group: String,
    /// `apiVersion` of the kind's objects.
    pub api_version: String,
    /// Resource (plural) name.
    pub plural: String,
    /// Whether objects live in namespaces.
    pub namespaced: bool,
    /// A built-in kind.
    pub builtin: bool,
    /// `use` lines of the webhook file.
    pub imports: String,
    /// The webhook module under src/webhooks (`memcached_v1`).
    pub webhook_module: String,
    /// The type's path as tests name it.
    pub type_path: String,
    /// A JSON object of a built-in kind for the tests.
    pub example_object: String,
    /// The sample under config/samples.
    pub sample_file: String,
    /// Whether `validate_update`'s signature is too long for one line (rustfmt wraps it).
    pub wrap_update: bool,
    /// The `use` lines at the top of a defaulting or validation test, sorted as rustfmt sorts.
    pub test_uses: String,
    /// Prefix of the test functions (`memcached_v1`).
    pub fn_prefix: String,
    /// The test file (`tests/memcached_webhook.rs`).
    pub test_file: String,
    /// Conversion: the hub version.
    pub hub_version: String,
    /// Conversion: the hub version in a snake_case name (`v1_beta`, `self`).
    pub hub_version_ident: String,
    /// Conversion: the hub's `apiVersion`.
    pub hub_api_version: String,
    /// Conversion: the hub's module.
    pub hub_module: String,
    /// Conversion: the spoke version.
    pub spoke_version: String,
    /// Conversion: the spoke's `apiVersion`.
    pub spoke_api_version: String,
    /// Conversion: the spoke's module.
    pub spoke_module: String,
    /// Conversion: the test imports the hub before the spoke (rustfmt's order of the two
    /// `use` declarations).
    pub hub_first: bool,
    /// Conversion: the spoke's sample, when it has one.
    pub spoke_sample: String,
    /// Conversion: spec, spoke to hub.
    pub spec_to_hub: Mapping,
    /// Conversion: spec, hub to spoke.
    pub spec_from_hub: Mapping,
    /// Conversion: status, spoke to hub.
    pub status_to_hub: Mapping,
    /// Conversion: status, hub to spoke.
    pub status_from_hub: Mapping,
}

impl Values {
    /// The values of the webhooks of `target` in `project` (laid out as `layout`).
    pub fn new(project: &ProjectFile, target: &Target, layout: &ApiLayout, header: String) -> Self {
        let crate_name = naming::crate_ident(&project.project_name);
        // The project's own types are named `kind_ident` already; a built-in one is imported
        // under that name.
        let kind_import = if target.builtin {
            naming::kind_import(&target.kind)
        } else {
            naming::kind_ident(&target.kind)
        };
        let kind_ident = naming::kind_ident(&target.kind);
        let type_path = format!("{}::{kind_ident}", target.test_import_module(&crate_name));
        let mut test_uses = [
            format!(
                "use {}::{kind_import};",
                target.test_import_module(&crate_name)
            ),
            format!(
                "use ::{crate_name}::webhooks::{} as webhook;",
                layout.webhook_module
            ),
        ];
        // rustfmt's order: `use ::crate_name::..` before `use k8s_openapi::..`.
        test_uses.sort();
        let empty = Mapping::default();
        Values {
            header,
            project_name: project.project_name.clone(),
            crate_name,
            domain: project.domain.clone(),
            kind: target.kind.clone(),
            kind_ident: kind_ident.clone(),
            kind_import,
            kind_mod: layout.kind_mod.clone(),
            api_group: target.api_group.clone(),
            api_version: target.api_version.clone(),
            plural: target.plural.clone(),
            namespaced: target.namespaced,
            builtin: target.builtin,
            imports: String::new(),
            wrap_update: format!(
                "    async fn validate_update(&self, old: &{kind_ident}, new: &{kind_ident}) -> Result<Warnings, Denied> {{"
            )
            .len()
                > 100,
            test_uses: test_uses.iter().map(|u| format!("    {u}\n")).collect(),
            fn_prefix: layout.fn_prefix.clone(),
            webhook_module: layout.webhook_module.clone(),
            type_path,
            example_object: kubernetes::example_object(
                &target.api_version,
                &target.kind,
                &format!("{}-sample", layout.kind_lower),
            ),
            kind_lower: layout.kind_lower.clone(),
            sample_file: target.sample_file.clone(),
            test_file: layout.webhook_test_file.display().to_string(),
            hub_version: target.version.clone(),
            hub_version_ident: naming::join_snake(&[&target.version]),
            hub_api_version: target.api_version.clone(),
            hub_module: target.type_module.clone(),
            spoke_version: String::new(),
            spoke_api_version: String::new(),
            spoke_module: String::new(),
            hub_first: true,
            spoke_sample: String::new(),
            spec_to_hub: empty.clone(),
            spec_from_hub: empty.clone(),
            status_to_hub: empty.clone(),
            status_from_hub: empty,
        }
    }

    /// The values of the conversion of `spoke` (laid out as `spoke_layout`), for its code and
    /// its test.
    pub fn for_spoke(&self, spoke: &Target, spoke_layout: &ApiLayout) -> Self {
        let mut values = self.clone();
        values.spoke_version = spoke.version.clone();
        values.spoke_api_version = spoke.api_version.clone();
        values.spoke_module = spoke.type_module.clone();
        let path = |module: &str| format!("::{}::{module}::{}", self.crate_name, self.kind_ident);
        values.hub_first = use_path_cmp(&path(&self.hub_module), &path(&spoke.type_module)).is_le();
        values.fn_prefix = spoke_layout.fn_prefix.clone();
        values
    }
}
