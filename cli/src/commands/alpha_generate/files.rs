//! A project's files on disk: read (the files git knows, or every file but `target/`, `.git/`
//! and `.kubeforge/`), and written into a directory all or nothing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kubeforge_templates::Renderer;

use crate::error::Error;
use crate::git::Git;
use crate::scaffold::{DiskTree, IfExists, Plan};

/// Folders never read: build output, git's own, the dev server's.
const SKIPPED: &[&str] = &["target", ".git", ".kubeforge"];

/// Every file of the project at `root` (relative path → bytes): what git tracks or would track
/// when the project is a repository, else everything but [`SKIPPED`].
pub fn read(root: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, Error> {
    let paths = match Git::open(root, "reading the project") {
        Ok(git) => git.files()?,
        Err(_) => walk(root)?,
    };
    let mut files = BTreeMap::new();
    for rel in paths {
        let path = root.join(&rel);
        let bytes = std::fs::read(&path).map_err(|source| Error::Read { path, source })?;
        files.insert(rel, bytes);
    }
    Ok(files)
}

fn walk(root: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_owned()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| Error::Read {
            path: dir.clone(),
            source,
        })?;
        for entry in entries {
            let path = entry
                .map_err(|source| Error::Read {
                    path: dir.clone(),
                    source,
                })?
                .path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_owned();
            if path.is_dir() {
                if !SKIPPED.iter().any(|s| rel == Path::new(s)) {
                    pending.push(path);
                }
            } else if path.is_file() {
                out.push(rel);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Writes `files` under `target`: the text files all or nothing (each to a temporary beside its
/// target, then renamed), then any binary ones. Files that already hold the same contents are
/// left alone. Returns the paths written.
pub fn write(target: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) -> Result<Vec<PathBuf>, Error> {
    let tree = DiskTree::new(target);
    let renderer = Renderer::new()?;
    let mut plan = Plan::new(&tree, &renderer);
    let mut binary = Vec::new();
    for (path, bytes) in files {
        match std::str::from_utf8(bytes) {
            Ok(text) => plan.put(path, text.to_owned(), IfExists::Overwrite)?,
            Err(_) => binary.push((path, bytes)),
        }
    }
    let written = plan.finish().commit(target)?;
    let mut paths: Vec<PathBuf> = written.into_iter().map(|(_, p)| p).collect();
    for (path, bytes) in binary {
        let full = target.join(path);
        if std::fs::read(&full).ok().as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|source| Error::Write {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(&full, bytes).map_err(|source| Error::Write { path: full, source })?;
        paths.push(path.clone());
    }
    Ok(paths)
}
