//! `kubeforge version`.

use crate::error::Error;
use crate::kubernetes;
use crate::source::{self, Source};

/// Prints the version, the default Kubernetes version, and where generated projects get the
/// kubeforge crates from.
pub fn run() -> Result<(), Error> {
    let source = Source::detect()?;
    println!("kubeforge {}", env!("CARGO_PKG_VERSION"));
    println!(
        "default Kubernetes version: {} (k8s-openapi {}, supports 1.{} to 1.{})",
        kubernetes::DEFAULT_VERSION,
        kubeforge_templates::versions::of("k8s-openapi").unwrap_or("?"),
        kubernetes::SUPPORTED_MINORS.start(),
        kubernetes::SUPPORTED_MINORS.end()
    );
    println!(
        "kubeforge crates of generated projects: {} (set {}=<checkout>|crates-io to change)",
        source.describe(),
        source::ENV
    );
    Ok(())
}
