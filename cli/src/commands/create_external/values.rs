//! The template values of one external kind at one version ([`ExternalContext`]).

use serde::Serialize;

use crate::external::ExternalLayout;
use crate::naming;
use crate::project::ProjectFile;
use crate::typegen::{self, Crd};

/// The values the `external/**` templates are rendered with.
#[derive(Debug, Clone, Serialize)]
pub struct ExternalContext {
    /// License header of Rust files.
    pub header: String,
    /// The crate as a path names it (`demo`, `r#match`).
    pub crate_name: String,
    /// The project's domain (the controller's annotation lives under it).
    pub domain: String,
    /// Kind.
    pub kind: String,
    /// Lower-case kind.
    pub kind_lower: String,
    /// snake_case kind.
    pub kind_snake: String,
    /// `group/version`.
    pub api_version: String,
    /// Whether objects are namespaced.
    pub namespaced: bool,
    /// Module of the types, from the crate root (`external::cert_manager_io::v1`).
    pub type_module: String,
    /// Module of the controller, from the crate root.
    pub controller_module: String,
    /// Its last segment.
    pub controller_leaf: String,
    /// The CRD copy, relative to the project root.
    pub crd_file: String,
    /// The controller test's `const CRD` line(s), which include the copy, laid out as rustfmt
    /// lays them out.
    pub crd_const: String,
    /// A JSON object of the kind for the controller test.
    pub example_object: String,
    /// The generated types (for `external/types.rs`).
    pub source: String,
}

/// The values for `crd` at `version` laid out as `layout`; `source` is the generated code.
pub fn external_context(
    project: &ProjectFile,
    crd: &Crd,
    layout: &ExternalLayout,
    header: &str,
    source: &str,
) -> ExternalContext {
    let example = crd
        .version(&layout.version)
        .map(|v| {
            typegen::example_object(crd, v, &format!("{}-sample", crd.kind.to_ascii_lowercase()))
        })
        .unwrap_or_default();
    ExternalContext {
        header: header.to_owned(),
        crate_name: naming::crate_ident(&project.project_name),
        domain: project.domain.clone(),
        kind: crd.kind.clone(),
        kind_lower: crd.kind.to_ascii_lowercase(),
        kind_snake: layout.api.kind_snake.clone(),
        api_version: format!("{}/{}", crd.group, layout.version),
        namespaced: crd.namespaced,
        type_module: layout.type_module.clone(),
        controller_module: layout.api.controller_module.clone(),
        controller_leaf: layout.api.kind_mod.clone(),
        crd_file: layout.crd_file.to_string_lossy().replace('\\', "/"),
        crd_const: crd_const(&layout.crd_file.to_string_lossy().replace('\\', "/")),
        example_object: example.to_string(),
        source: source.to_owned(),
    }
}

/// `const CRD: &str = include_str!("../<crd file>");` (tests/ is one level down), broken after
/// `=` when longer than rustfmt's 100 columns.
fn crd_const(crd_file: &str) -> String {
    let include = format!("include_str!(\"../{crd_file}\");");
    let line = format!("const CRD: &str = {include}");
    if line.len() <= 100 {
        line
    } else {
        format!("const CRD: &str =\n    {include}")
    }
}
