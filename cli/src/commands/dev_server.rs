//! `kubeforge dev-server`: the embedded API server in the foreground (kubeforge-testenv).

use std::path::PathBuf;

use kubeforge_testenv::dev_server::{DevServerOptions, FeatureGates, run as serve};

use crate::cli::DevServerArgs;
use crate::error::Error;

/// Where CRDs are installed from when no `--crd-dir` is given (what `make manifests` writes).
const DEFAULT_CRD_DIR: &str = "config/crd/bases";

/// Serves until Ctrl-C.
pub fn run(args: DevServerArgs) -> Result<(), Error> {
    let crd_dirs = if args.crd_dirs.is_empty() {
        let default = PathBuf::from(DEFAULT_CRD_DIR);
        if default.is_dir() {
            vec![default]
        } else {
            Vec::new()
        }
    } else {
        args.crd_dirs
    };
    if let Some(missing) = crd_dirs.iter().find(|d| !d.is_dir()) {
        return Err(Error::InvalidInput {
            flag: "--crd-dir",
            value: missing.display().to_string(),
            subject: format!("{}", missing.display()),
            rule: "an existing directory".into(),
            fix: "run `make manifests` first, or pass the directory holding your CRD YAML files"
                .into(),
        });
    }
    let feature_gates =
        FeatureGates::parse(&args.feature_gates).map_err(|problem| Error::InvalidInput {
            flag: "--feature-gates",
            value: args.feature_gates.clone(),
            subject: "each comma-separated gate".into(),
            rule: "Name=true or Name=false, naming a gate the embedded API server knows (ShardedListAndWatch)".into(),
            fix: format!("{problem}; for example --feature-gates ShardedListAndWatch=true"),
        })?;
    let options = DevServerOptions {
        port: args.port,
        kubeconfig_path: args.kubeconfig,
        crd_dirs,
        feature_gates,
    };
    serve_blocking(options)
}

/// Serves `options` on a runtime of its own until Ctrl-C.
fn serve_blocking(options: DevServerOptions) -> Result<(), Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::DevServerRuntime { source })?;
    runtime
        .block_on(serve(options))
        .map_err(|source| Error::DevServer { source })
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_server_that_does_not_start_keeps_the_test_environments_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("broken.yaml"),
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: [\n",
        )
        .unwrap();
        let err = serve_blocking(DevServerOptions {
            port: 0,
            kubeconfig_path: dir.path().join("kubeconfig"),
            crd_dirs: vec![dir.path().to_owned()],
            feature_gates: FeatureGates::default(),
        })
        .unwrap_err();
        let message = err.to_string();
        assert!(message.starts_with("the dev server stopped: "), "{message}");
        assert!(message.contains("broken.yaml"), "{message}");
        assert!(message.contains("fix: "), "{message}");
        let source = err.source().expect("the dev server's error is kept");
        let testenv = source
            .downcast_ref::<kubeforge_testenv::dev_server::Error>()
            .expect("the source is the test environment's error");
        assert!(
            matches!(testenv, kubeforge_testenv::dev_server::Error::Start(_)),
            "{testenv:?}"
        );
        assert!(!dir.path().join("kubeconfig").exists());
    }
}
