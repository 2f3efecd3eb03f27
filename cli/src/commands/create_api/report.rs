//! The report stage of `create api`: what it wrote and what to do next.

use std::path::PathBuf;

use super::super::{changes_report, next_steps};
use super::request::ApiRequest;
use crate::layout::ApiLayout;
use crate::project::ProjectFile;
use crate::scaffold::Change;

/// The text `create api` prints once its files are written.
pub fn report(
    request: &ApiRequest,
    project: &ProjectFile,
    changes: &[(Change, PathBuf)],
) -> String {
    let layout = ApiLayout::new(
        project.multigroup,
        &request.group,
        &request.version,
        &request.kind,
    );
    let mut steps = Vec::new();
    if request.resource {
        steps.push(format!(
            "Define the spec and status of {} in {}.",
            request.kind,
            layout.type_file.display()
        ));
    }
    if request.controller {
        steps.push(format!(
            "Write its reconcile in {}.",
            layout.controller_file.display()
        ));
    }
    steps.push("make manifests   # the CRD into config/crd/bases, the manager role into config/rbac/role.yaml".into());
    if request.controller {
        steps.push(format!(
            "make test        # {} runs against the embedded API server",
            layout.controller_test_file.display()
        ));
    } else {
        steps
            .push("make test        # the project's tests, against the embedded API server".into());
    }
    format!("{}{}", changes_report(changes), next_steps(&steps))
}
