//! The report stage of `create api --external`: what it wrote, the notes about the generated
//! types, and what to do next.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{changes_report, next_steps};
use super::request::ExternalRequest;
use crate::external::ExternalLayout;
use crate::naming;
use crate::project::ProjectFile;
use crate::scaffold::Change;

/// What the command prints: stdout (files, next steps) and stderr (notes on the types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The files written and the next steps.
    pub stdout: String,
    /// Notes about how the CRDs were typed.
    pub stderr: String,
}

/// The text `create api --external` prints once its files are written.
pub fn report(
    request: &ExternalRequest,
    project: &ProjectFile,
    changes: &[(Change, PathBuf)],
) -> Report {
    let crate_name = naming::crate_ident(&project.project_name);
    let mut stderr = String::new();
    let mut steps = Vec::new();
    for kind in &request.kinds {
        let crd = &kind.crd;
        for (version, generated) in &kind.versions {
            let layout = ExternalLayout::of_crd(project.multigroup, crd, version);
            for note in &generated.notes {
                let _ = writeln!(stderr, "note: {} {}: {note}", crd.kind, version);
            }
            if kind.controller_version.as_deref() == Some(version.as_str()) {
                steps.push(format!(
                    "Write the reconcile of {} in {}.",
                    crd.kind,
                    layout.api.controller_file.display()
                ));
                steps.push(format!(
                    "make test        # {} runs against the embedded API server with {} installed",
                    layout.api.controller_test_file.display(),
                    layout.crd_file.display()
                ));
            } else {
                steps.push(format!(
                    "Use the type: `use {crate_name}::{}::{};` and `Api::<{}>::all(client)` ({} structs, {} enums in {}).",
                    layout.type_module,
                    crd.kind,
                    crd.kind,
                    generated.structs,
                    generated.enums,
                    layout.type_file.display()
                ));
            }
        }
    }
    steps.push(
        "When the CRD changes: kubeforge update external   # regenerates the types and prints the diff"
            .into(),
    );
    Report {
        stdout: format!("{}{}", changes_report(changes), next_steps(&steps)),
        stderr,
    }
}
