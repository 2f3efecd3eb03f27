//! The report stage of `create webhook`: what it wrote, the warnings about webhooks on
//! built-in kinds and an old Makefile, and what to do next.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::super::{changes_report, next_steps};
use super::plan::Outcome;
use super::request::WebhookRequest;
use super::target::Target;
use crate::layout::ApiLayout;
use crate::naming;
use crate::project::ProjectFile;
use crate::scaffold::Change;

/// What `create webhook` prints once its files are written: to stdout, and to stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The files written and the next steps.
    pub stdout: String,
    /// Warnings.
    pub stderr: String,
}

/// The report of `request`, planned with `outcome` and written as `changes`.
pub fn report(
    request: &WebhookRequest,
    project: &ProjectFile,
    outcome: &Outcome,
    changes: &[(Change, PathBuf)],
) -> Report {
    let target = &request.target;
    let layout = ApiLayout::new(
        project.multigroup,
        &target.group,
        &target.version,
        &target.kind,
    );
    let mut stderr = String::new();
    if target.builtin {
        let _ = writeln!(
            stderr,
            "{}",
            bootstrap_warning(target, &outcome.scope_patches)
        );
    }
    if !outcome.run_flags {
        stderr.push_str("warning: the Makefile has no `# +kubeforge:scaffold:run-flags` marker, so `make run` does not pass --webhook-local yet: run the manager with `cargo run -- --webhook-local` to serve the webhooks locally\n");
    }
    let mut steps = Vec::new();
    if request.requested.any() {
        steps.push(format!(
            "Write the rules of {} in {}.",
            target.kind,
            layout.webhook_file.display()
        ));
    }
    for spoke in request.conversion_spokes() {
        steps.push(format!(
            "Check the field mapping of {} {spoke} <-> {} in its {}_conversion.rs.",
            target.kind,
            target.version,
            naming::snake_case(&target.kind)
        ));
    }
    steps.push(
        "make manifests   # writes config/webhook/manifests.yaml (and the CRD conversion)".into(),
    );
    steps.push(format!(
        "make test        # {} runs the webhooks against the embedded API server",
        layout.webhook_test_file.display()
    ));
    steps.push("make run         # serves the webhooks locally (--webhook-local); deploying needs cert-manager in the cluster".into());
    Report {
        stdout: format!("{}{}", changes_report(changes), next_steps(&steps)),
        stderr,
    }
}

/// The warning for webhooks on built-in kinds: they see the operator's own objects too.
fn bootstrap_warning(target: &Target, scope_patches: &[(PathBuf, String)]) -> String {
    let kind = &target.kind;
    let plural = &target.plural;
    let mut text = format!(
        "warning: a webhook on {kind} ({}) is called for every {kind} of the cluster, the operator's own included. \
With failurePolicy Fail, while the operator is down the API server refuses those writes, so the operator's own {plural} \
(and those of the cluster's system components) might not come back up.",
        target.api_version
    );
    for (path, namespace) in scope_patches {
        let _ = write!(
            text,
            "\n  {} gives it a namespaceSelector that leaves out {namespace} (the operator's namespace) and kube-system.",
            path.display()
        );
    }
    let _ = write!(
        text,
        "\n  fix: scope the webhook to the {plural} it is for: keep a namespaceSelector (matchExpressions on the label \
kubernetes.io/metadata.name, operator NotIn, the operator's namespace and kube-system) in the scope patch under \
config/webhook, and add an objectSelector on a label only those {plural} carry, e.g. \
objectSelector: {{matchLabels: {{example.com/webhook: enabled}}}}."
    );
    text
}
