//! Private scratch directories: a new directory under the system's temp dir, readable by its
//! owner only, removed when dropped.
//!
//! Written here rather than taken from `tempfile` on purpose: this crate is a dev-dependency of
//! every generated operator, and `tempfile` turns on features of crates kube's client also uses
//! (`fastrand`, `bitflags`). With it, a project's `cargo test` and `cargo run` resolve kube's
//! client stack differently and each builds it; without it, one build serves both.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A directory this process created, removed with its contents on drop unless [`kept`].
///
/// [`kept`]: ScratchDir::keep
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
}

impl ScratchDir {
    /// Creates `<temp dir>/<prefix><pid>-<n>-<nanos>`; the name is unique within the process by
    /// its counter, and `create_dir` refuses a name another process took, so a clash is retried.
    pub fn new(prefix: &str) -> io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let base = std::env::temp_dir();
        for _ in 0..64 {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.subsec_nanos());
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = base.join(format!("{prefix}{}-{n}-{nanos:08x}", std::process::id()));
            match create_private_dir(&path) {
                Ok(()) => return Ok(Self { path }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("no free name for a scratch directory in {}", base.display()),
        ))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Gives up ownership: the directory stays after this value is gone, for a caller that
    /// removes it another way.
    pub fn keep(self) -> PathBuf {
        let path = self.path.clone();
        std::mem::forget(self);
        path
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(unix)]
fn create_private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().mode(0o700).create(path)
}

#[cfg(not(unix))]
fn create_private_dir(path: &Path) -> io::Result<()> {
    std::fs::create_dir(path)
}

#[cfg(test)]
mod tests {
    use super::ScratchDir;

    #[test]
    fn each_is_new_private_and_removed_on_drop() {
        let a = ScratchDir::new("kubeforge-scratch-test-").unwrap();
        let b = ScratchDir::new("kubeforge-scratch-test-").unwrap();
        assert_ne!(a.path(), b.path());
        assert!(a.path().is_dir());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(a.path()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        std::fs::write(a.path().join("file"), "x").unwrap();
        let gone = a.path().to_owned();
        drop(a);
        assert!(!gone.exists());
        let kept = b.keep();
        assert!(kept.is_dir());
        std::fs::remove_dir_all(&kept).unwrap();
    }
}
