//! Where generated projects get the kubeforge crates from.
//!
//! The rule (also in `kubeforge version` and the README):
//! 1. `KUBEFORGE_SOURCE=crates-io`: by version from crates.io (`kubeforge = "0.1.0"`).
//! 2. `KUBEFORGE_SOURCE=<dir>`: by path to the kubeforge checkout `<dir>` (and by version).
//! 3. Unset: when this CLI was built from a checkout that still exists (its `runtime/Cargo.toml`
//!    is there at run time), by path to that checkout; otherwise by version.
//!
//! A path dependency that also names a version (`{ path = "...", version = "0.1.0" }`) builds
//! from the checkout, offline, and still resolves from crates.io once the project is published.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Environment variable that overrides where the kubeforge crates come from.
pub const ENV: &str = "KUBEFORGE_SOURCE";

/// Where the kubeforge crates of a generated project come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A kubeforge checkout: path dependencies (with the version too).
    Checkout(PathBuf),
    /// crates.io, by version.
    CratesIo,
}

fn is_checkout(dir: &Path) -> bool {
    dir.join("runtime/Cargo.toml").is_file() && dir.join("testenv/Cargo.toml").is_file()
}

impl Source {
    /// Applies the rule above.
    pub fn detect() -> Result<Self, Error> {
        match std::env::var_os(ENV) {
            Some(value) if value == "crates-io" => Ok(Source::CratesIo),
            Some(value) if !value.is_empty() => {
                let dir = PathBuf::from(value);
                if is_checkout(&dir) {
                    Ok(Source::Checkout(std::path::absolute(&dir).unwrap_or(dir)))
                } else {
                    Err(Error::BadSource { dir })
                }
            }
            _ => {
                let built_from = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .parent()
                    .map(Path::to_owned);
                Ok(match built_from {
                    Some(dir) if is_checkout(&dir) => Source::Checkout(dir),
                    _ => Source::CratesIo,
                })
            }
        }
    }

    /// The inside of the TOML inline table for crate `folder` (`runtime` or `testenv`).
    pub fn dependency(&self, folder: &str) -> String {
        let version = kubeforge_templates::versions::KUBEFORGE;
        match self {
            Source::Checkout(dir) => {
                let path = dir
                    .join(folder)
                    .display()
                    .to_string()
                    .replace('\\', "\\\\")
                    .replace('"', "\\\"");
                format!("path = \"{path}\", version = \"{version}\"")
            }
            Source::CratesIo => format!("version = \"{version}\""),
        }
    }

    /// One-line description for `kubeforge version` and messages.
    pub fn describe(&self) -> String {
        match self {
            Source::Checkout(dir) => format!("path dependencies on the checkout {}", dir.display()),
            Source::CratesIo => format!(
                "crates.io, version {}",
                kubeforge_templates::versions::KUBEFORGE
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_lines() {
        let dir = Source::Checkout(PathBuf::from("/src/kubeforge"));
        assert_eq!(
            dir.dependency("runtime"),
            "path = \"/src/kubeforge/runtime\", version = \"0.1.0\""
        );
        assert_eq!(
            Source::CratesIo.dependency("testenv"),
            "version = \"0.1.0\""
        );
    }
}
