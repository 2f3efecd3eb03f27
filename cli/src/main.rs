//! The `kubeforge` binary.

use std::process::ExitCode;

use clap::Parser;

/// The stack of the thread that runs a command: reading a CRD whose schema nests hundreds of
/// objects deep recurses once per YAML level (serde), which the main thread's 8 MiB does not
/// hold in a debug build.
const COMMAND_STACK: usize = 256 * 1024 * 1024;

fn main() -> ExitCode {
    let cli = kubeforge_cli::Cli::parse();
    let command = std::thread::Builder::new()
        .name("kubeforge".into())
        .stack_size(COMMAND_STACK)
        .spawn(move || kubeforge_cli::run(cli).map_err(|e| e.to_string()));
    let result = match command {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => Err(format!("cannot start the command's thread: {e}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
