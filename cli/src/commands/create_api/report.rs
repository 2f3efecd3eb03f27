//! The report stage of `create api`: what it wrote and what to do next.

use std::path::PathBuf;

use super::super::{changes_report, next_steps};
use super::request::{ApiRequest, Target};
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
    if let Some(version) = &request.controller_elsewhere {
        let theirs = ApiLayout::new(project.multigroup, &request.group, version, &request.kind);
        steps.push(format!(
            "No controller was scaffolded for {kind} {new}: {kind} has one ({}, written for {version}), and one controller reconciles a kind in every version (pass --controller --force to scaffold it again for {new}).",
            theirs.controller_file.display(),
            kind = request.kind,
            new = request.version,
        ));
    }
    if let Target::Own {
        storage_version, ..
    } = &request.target
        && request.resource
        && *storage_version != request.version
    {
        let stored = ApiLayout::new(
            project.multigroup,
            &request.group,
            storage_version,
            &request.kind,
        );
        steps.push(format!(
            "{kind} {new} is served, and stored as {storage_version}: its type has `storage = false`. To store {new} instead, move `storage = false` from {} to {storage_version}'s #[kube(...)] in {} (one version of a kind is stored).",
            layout.type_file.display(),
            stored.type_file.display(),
            kind = request.kind,
            new = request.version,
        ));
        steps.push(format!(
            "Convert between the versions: kubeforge create webhook --group {} --version {storage_version} --kind {} --conversion --spoke {} (the hub {storage_version} is the storage version; without a conversion webhook the API server only rewrites apiVersion).",
            request.group, request.kind, request.version
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
