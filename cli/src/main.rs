//! The `kubeforge` binary.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = kubeforge_cli::Cli::parse();
    match kubeforge_cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
