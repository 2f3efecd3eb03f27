//! Writing a checked plan to disk: all contents go to temporary files first, then each is
//! renamed over its target, so a failure while writing leaves no target half-written.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Writes `(target, contents)` pairs; `root` is only used to name errors.
pub fn write_all(root: &Path, writes: &[(PathBuf, &str)]) -> Result<(), Error> {
    let mut created_dirs: Vec<PathBuf> = Vec::new();
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(writes.len());
    let result = (|| {
        for (target, contents) in writes {
            let parent = target.parent().unwrap_or(root);
            create_dirs(parent, &mut created_dirs)?;
            let name = target
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("file");
            let temp = parent.join(format!(".{name}.kubeforge-tmp"));
            std::fs::write(&temp, contents).map_err(|source| Error::Write {
                path: temp.clone(),
                source,
            })?;
            staged.push((temp, target.clone()));
        }
        Ok(())
    })();
    if let Err(err) = result {
        // Undo: remove the temporaries and the directories this commit created.
        for (temp, _) in &staged {
            let _ = std::fs::remove_file(temp);
        }
        for dir in created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(err);
    }
    for (temp, target) in staged {
        std::fs::rename(&temp, &target).map_err(|source| Error::Write {
            path: target.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Creates `dir` and its missing ancestors, remembering (outermost first) those it created.
fn create_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> Result<(), Error> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(d) = cursor {
        if d.as_os_str().is_empty() || d.exists() {
            break;
        }
        missing.push(d.to_owned());
        cursor = d.parent();
    }
    for d in missing.into_iter().rev() {
        std::fs::create_dir(&d).map_err(|source| Error::Write {
            path: d.clone(),
            source,
        })?;
        created.push(d);
    }
    Ok(())
}
