//! What `kubeforge create api --external` (and `update external`) writes: the generated types
//! of an external kind, their modules, the copy of the CRD, a controller and its test.

use std::path::Path;

use super::api::MODULE;
use crate::external::ExternalLayout;
use crate::external::layout::TYPES_DIR;
use crate::scaffold::{Artifact, IfExists, Template};

/// The generated types of one kind at one version (the header, then the generator's source).
pub const TYPES: Template = Template::new("external/types.rs", &[]);
/// A controller of an external kind.
pub const CONTROLLER: Template = Template::new("external/controller.rs", &[]);
/// Its test, with the kind's CRD installed into the embedded API server.
pub const CONTROLLER_TEST: Template = Template::new("external/controller_test.rs", &[]);

/// `src/external/mod.rs`, written by the first external kind.
pub fn root_module() -> Artifact {
    Artifact::new(&MODULE, Path::new(TYPES_DIR).join("mod.rs"), IfExists::Keep)
}

/// The `mod.rs` of the kind's group.
pub fn group_module(layout: &ExternalLayout) -> Artifact {
    Artifact::new(&MODULE, &layout.group_mod_file, IfExists::Keep)
}

/// The `mod.rs` of the kind's version.
pub fn version_module(layout: &ExternalLayout) -> Artifact {
    Artifact::new(&MODULE, &layout.version_mod_file, IfExists::Keep)
}

/// The generated types: `update external` and `--force` write them again; otherwise a file in
/// the way refuses the command.
pub fn types(layout: &ExternalLayout, if_exists: IfExists) -> Artifact {
    Artifact::new(&TYPES, &layout.type_file, if_exists)
}

/// The controller; it belongs to the user, so it is in the way unless `--force`.
pub fn controller(layout: &ExternalLayout, force: bool) -> Artifact {
    Artifact::new(
        &CONTROLLER,
        &layout.api.controller_file,
        IfExists::refuse_unless(force),
    )
}

/// The controller's test.
pub fn controller_test(layout: &ExternalLayout, force: bool) -> Artifact {
    Artifact::new(
        &CONTROLLER_TEST,
        &layout.api.controller_test_file,
        IfExists::refuse_unless(force),
    )
}
