//! What `kubeforge create api` writes: the type, its modules, its controller and test, its
//! sample and kustomize entries, its RBAC helper roles.

use std::path::PathBuf;

use crate::layout::ApiLayout;
use crate::scaffold::{Artifact, FixedFile, IfExists, Marker, Template};

/// A `mod.rs` of the API or controller tree (a version, or a group in a multigroup project).
pub const MODULE: Template = Template::new("api/module.rs", &["modules"]);
/// The API type: spec, status and the `#[kube(...)]` attribute.
pub const TYPE: Template = Template::new("api/type.rs", &[]);
/// A per-object controller of a kind of the project.
pub const CONTROLLER: Template = Template::new("api/controller.rs", &[]);
/// Its test against the embedded API server.
pub const CONTROLLER_TEST: Template = Template::new("api/controller_test.rs", &[]);
/// A per-object controller of a built-in kind.
pub const CONTROLLER_BUILTIN: Template = Template::new("api/controller_builtin.rs", &[]);
/// Its test.
pub const CONTROLLER_BUILTIN_TEST: Template = Template::new("api/controller_builtin_test.rs", &[]);
/// A state-of-world controller.
pub const CONTROLLER_WORLD: Template = Template::new("api/controller_world.rs", &[]);
/// Its test.
pub const CONTROLLER_WORLD_TEST: Template = Template::new("api/controller_world_test.rs", &[]);
/// A sample object under config/samples.
pub const SAMPLE: Template = Template::new("api/sample.yaml", &[]);
/// config/samples/kustomization.yaml, written by the first API.
pub const SAMPLES_KUSTOMIZATION: Template = Template::new(
    "api/samples_kustomization.yaml",
    &["manifestskustomizesamples"],
);
/// config/crd/kustomization.yaml, written by the first API.
pub const CRD_KUSTOMIZATION: Template =
    Template::new("api/crd_kustomization.yaml", &["crdkustomizeresource"]);
/// The admin role of a kind (kubebuilder's helper roles).
pub const ADMIN_ROLE: Template = Template::new("api/admin_role.yaml", &[]);
/// The editor role of a kind.
pub const EDITOR_ROLE: Template = Template::new("api/editor_role.yaml", &[]);
/// The viewer role of a kind.
pub const VIEWER_ROLE: Template = Template::new("api/viewer_role.yaml", &[]);

/// A module's `pub mod` lines.
pub const MODULES: Marker = Marker::new(&MODULE, "modules");
/// The samples kustomization's resources.
pub const SAMPLES: Marker = Marker::new(&SAMPLES_KUSTOMIZATION, "manifestskustomizesamples");
/// The CRD kustomization's resources.
pub const CRD_RESOURCES: Marker = Marker::new(&CRD_KUSTOMIZATION, "crdkustomizeresource");

/// `config/samples/kustomization.yaml`.
pub const SAMPLES_KUSTOMIZATION_FILE: FixedFile =
    FixedFile::new(&SAMPLES_KUSTOMIZATION, "config/samples/kustomization.yaml");
/// `config/crd/kustomization.yaml`.
pub const CRD_KUSTOMIZATION_FILE: FixedFile =
    FixedFile::new(&CRD_KUSTOMIZATION, "config/crd/kustomization.yaml");

/// The type file; it belongs to the user, so it is in the way unless `--force`.
pub fn type_file(layout: &ApiLayout, force: bool) -> Artifact {
    Artifact::new(&TYPE, &layout.type_file, IfExists::refuse_unless(force))
}

/// The `mod.rs` of the type's version, written by its first kind.
pub fn version_module(layout: &ApiLayout) -> Artifact {
    Artifact::new(&MODULE, layout.version_mod_file(), IfExists::Keep)
}

/// The `mod.rs` of the type's group (multigroup), written by its first version.
pub fn api_group_module(layout: &ApiLayout) -> Artifact {
    Artifact::new(
        &MODULE,
        layout.api_group_dir().join("mod.rs"),
        IfExists::Keep,
    )
}

/// The `mod.rs` of the group's controllers (multigroup), written by its first controller.
pub fn controller_group_module(layout: &ApiLayout) -> Artifact {
    Artifact::new(
        &MODULE,
        layout.controller_dir().join("mod.rs"),
        IfExists::Keep,
    )
}

/// The sample object.
pub fn sample(layout: &ApiLayout, force: bool) -> Artifact {
    Artifact::new(
        &SAMPLE,
        PathBuf::from("config/samples").join(&layout.sample_file),
        IfExists::refuse_unless(force),
    )
}

/// The admin, editor and viewer roles: about the resource, whatever its version, so a second
/// version keeps them (unless `--force`).
pub fn roles(layout: &ApiLayout, force: bool) -> [Artifact; 3] {
    [&ADMIN_ROLE, &EDITOR_ROLE, &VIEWER_ROLE].map(|template| {
        let role = template
            .name
            .trim_start_matches("api/")
            .trim_end_matches("_role.yaml");
        Artifact::new(
            template,
            format!("config/rbac/{}_{role}_role.yaml", layout.role_stem),
            IfExists::keep_unless(force),
        )
    })
}

/// Which controller is scaffolded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControllerKind {
    /// Per object, for a kind of the project.
    Own,
    /// Per object, for a built-in kind.
    Builtin,
    /// State of world, for a kind of the project.
    World,
}

/// The controller file.
pub fn controller(layout: &ApiLayout, kind: ControllerKind, force: bool) -> Artifact {
    let template = match kind {
        ControllerKind::Own => &CONTROLLER,
        ControllerKind::Builtin => &CONTROLLER_BUILTIN,
        ControllerKind::World => &CONTROLLER_WORLD,
    };
    Artifact::new(
        template,
        &layout.controller_file,
        IfExists::refuse_unless(force),
    )
}

/// The controller's test.
pub fn controller_test(layout: &ApiLayout, kind: ControllerKind, force: bool) -> Artifact {
    let template = match kind {
        ControllerKind::Own => &CONTROLLER_TEST,
        ControllerKind::Builtin => &CONTROLLER_BUILTIN_TEST,
        ControllerKind::World => &CONTROLLER_WORLD_TEST,
    };
    Artifact::new(
        template,
        &layout.controller_test_file,
        IfExists::refuse_unless(force),
    )
}
