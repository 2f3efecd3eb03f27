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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::DevServer(e.to_string()))?;
    runtime
        .block_on(serve(options))
        .map_err(|e| Error::DevServer(e.to_string()))
}
