//! The dev server without the CLI: `cargo run -p kubeforge-testenv --example dev_server --
//! [port] [kubeconfig path] [crd dir...]`. `kubeforge dev-server` is the user-facing command.

use std::path::PathBuf;

use kubeforge_testenv::dev_server::{DevServerOptions, run};

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let port = match args.next().map(|p| p.parse::<u16>()) {
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            eprintln!("error: the first argument must be a port number (0 = random): {e}");
            std::process::exit(2);
        }
        None => 0,
    };
    let kubeconfig_path = args
        .next()
        .map_or_else(|| PathBuf::from("kubeconfig"), PathBuf::from);
    let crd_dirs = args.map(PathBuf::from).collect();
    if let Err(e) = run(DevServerOptions {
        port,
        kubeconfig_path,
        crd_dirs,
        feature_gates: Default::default(),
    })
    .await
    {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
