//! The report stage of `init`: what it wrote and what to do next.

use std::path::PathBuf;

use super::super::changes_report;
use super::request::{Environment, InitRequest};
use crate::scaffold::Change;

/// The text `init` prints once the project is written.
pub fn report(
    request: &InitRequest,
    environment: &Environment,
    changes: &[(Change, PathBuf)],
) -> String {
    let cd = if request.dir == environment.cwd {
        String::new()
    } else {
        format!("cd {} && ", request.dir.display())
    };
    format!(
        "{}\nNext steps:\n  {cd}kubeforge create api --group <group> --version v1alpha1 --kind <Kind>\n  make test      # runs the project's tests against the embedded API server\n  make help      # every make target, explained\nThe kubeforge crates come from {}.\n",
        changes_report(changes),
        environment.source.describe(),
    )
}
