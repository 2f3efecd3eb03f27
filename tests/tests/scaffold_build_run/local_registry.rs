//! A cargo local registry (`source.<name>.local-registry = "<dir>"`): `<name>-<version>.crate`
//! files beside an `index/` tree laid out as crates.io's index, one JSON line per version.
//!
//! Its lines come from two places: the packaged kubeforge crates (written here from
//! `cargo metadata` of the unpacked package, which reads its normalized `Cargo.toml`, and the
//! `.crate`'s sha256), and every other crate from the index lines cargo keeps in its cache of
//! crates.io's index (`$CARGO_HOME/registry/index/index.crates.io-*/.cache`), for exactly the
//! versions a `Cargo.lock` pins, with the `.crate` cargo downloaded when there is one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value as Json, json};

/// How `Cargo.lock` names crates.io.
pub const CRATES_IO: &str = "registry+https://github.com/rust-lang/crates.io-index";

/// The version of cargo's index cache files this reader knows.
const CACHE_VERSION: u8 = 3;

/// A local registry being written.
pub struct LocalRegistry {
    dir: PathBuf,
    /// Index lines by crate name.
    lines: BTreeMap<String, Vec<String>>,
}

impl LocalRegistry {
    /// An empty registry in `dir` (whatever was there is removed).
    pub fn create(dir: &Path) -> Self {
        if dir.exists() {
            std::fs::remove_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        }
        std::fs::create_dir_all(dir.join("index"))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Self {
            dir: dir.to_owned(),
            lines: BTreeMap::new(),
        }
    }

    /// Adds `version` of `name`: its index line and, when given, its `.crate` file.
    pub fn add(&mut self, name: &str, version: &str, line: &Json, crate_file: Option<&Path>) {
        if let Some(file) = crate_file {
            let copy = self.dir.join(format!("{name}-{version}.crate"));
            std::fs::copy(file, &copy).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
        self.lines
            .entry(name.to_owned())
            .or_default()
            .push(line.to_string());
    }

    /// Writes the index; returns the registry's directory.
    pub fn write_index(self) -> PathBuf {
        for (name, lines) in &self.lines {
            let file = self.dir.join("index").join(index_path(name));
            std::fs::create_dir_all(file.parent().expect("an index path has a folder"))
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            std::fs::write(&file, lines.join("\n") + "\n")
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        }
        self.dir
    }
}

/// Where crates.io's index (and cargo's cache of it) keeps the lines of `name`: `1/`, `2/`,
/// `3/<first letter>/`, else `<first two>/<next two>/`, lowercased.
pub fn index_path(name: &str) -> PathBuf {
    let name = name.to_lowercase();
    match name.len() {
        1 => Path::new("1").join(&name),
        2 => Path::new("2").join(&name),
        3 => Path::new("3").join(&name[..1]).join(&name),
        _ => Path::new(&name[..2]).join(&name[2..4]).join(&name),
    }
}

/// A crates.io package `Cargo.lock` pins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locked {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The sha256 of its `.crate`.
    pub checksum: String,
}

/// The crates.io packages of a `Cargo.lock` (its `[[package]]` tables with that source).
pub fn crates_io_packages(lock: &str) -> Vec<Locked> {
    let mut packages = Vec::new();
    for table in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            table.lines().find_map(|line| {
                let value = line.strip_prefix(key)?.trim_start().strip_prefix('=')?;
                Some(value.trim().trim_matches('"').to_owned())
            })
        };
        if field("source").as_deref() != Some(CRATES_IO) {
            continue;
        }
        let (Some(name), Some(version), Some(checksum)) =
            (field("name"), field("version"), field("checksum"))
        else {
            panic!("a crates.io package of Cargo.lock without name, version or checksum:{table}");
        };
        packages.push(Locked {
            name,
            version,
            checksum,
        });
    }
    packages
}

/// What cargo keeps of crates.io under `$CARGO_HOME/registry`: its index cache and downloads.
pub struct CratesIoCache {
    /// `registry/index/index.crates.io-*/.cache` and `registry/cache/index.crates.io-*`.
    dirs: Vec<(PathBuf, PathBuf)>,
}

impl CratesIoCache {
    /// The caches of crates.io's sparse index under `cargo_home`.
    pub fn find(cargo_home: &Path) -> Self {
        let index = cargo_home.join("registry/index");
        let entries =
            std::fs::read_dir(&index).unwrap_or_else(|e| panic!("{}: {e}", index.display()));
        let dirs: Vec<_> = entries
            .map(|entry| entry.expect("a directory entry").file_name())
            .filter(|name| name.to_string_lossy().starts_with("index.crates.io-"))
            .map(|name| {
                (
                    index.join(&name).join(".cache"),
                    cargo_home.join("registry/cache").join(&name),
                )
            })
            .collect();
        assert!(
            !dirs.is_empty(),
            "no cache of crates.io's index in {}",
            index.display()
        );
        Self { dirs }
    }

    /// The index line of `version` of `name`, as crates.io serves it.
    pub fn line(&self, name: &str, version: &str) -> Option<Json> {
        self.dirs.iter().find_map(|(index, _)| {
            let bytes = std::fs::read(index.join(index_path(name))).ok()?;
            let text = cached_lines(&bytes)
                .unwrap_or_else(|e| panic!("cargo's index cache of {name}: {e}"))
                .into_iter()
                .find(|(v, _)| v == version)?
                .1;
            Some(
                serde_json::from_str(&text)
                    .unwrap_or_else(|e| panic!("{name} {version}: {e}: {text}")),
            )
        })
    }

    /// The `.crate` cargo downloaded for `version` of `name`, if it did.
    pub fn crate_file(&self, name: &str, version: &str) -> Option<PathBuf> {
        self.dirs
            .iter()
            .map(|(_, downloads)| downloads.join(format!("{name}-{version}.crate")))
            .find(|file| file.is_file())
    }
}

/// The (version, index line) pairs of one file of cargo's index cache: a byte of cache
/// version, four of index format version, the index's own version (an HTTP validator) ended
/// by a NUL, then NUL-ended version and line, one after the other.
pub fn cached_lines(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    match bytes.first() {
        Some(&CACHE_VERSION) => {}
        other => {
            return Err(format!(
                "cache version {other:?}, this test reads version {CACHE_VERSION}"
            ));
        }
    }
    let body = bytes
        .get(5..)
        .ok_or("a cache file shorter than its header")?;
    let mut fields = body.split(|&b| b == 0).skip(1);
    let mut pairs = Vec::new();
    while let Some(version) = fields.next() {
        if version.is_empty() {
            // The split after the last NUL.
            break;
        }
        let line = fields.next().ok_or("a version without its line")?;
        pairs.push((
            String::from_utf8_lossy(version).into_owned(),
            String::from_utf8_lossy(line).into_owned(),
        ));
    }
    Ok(pairs)
}

/// The index line crates.io would serve for a package published with this `cargo metadata`
/// description (one of `packages`) and this `.crate` sha256.
pub fn published_line(package: &Json, cksum: &str) -> Json {
    let text = |value: &Json, key: &str| {
        value
            .get(key)
            .unwrap_or_else(|| panic!("no {key} in {value}"))
            .clone()
    };
    let deps: Vec<Json> = package
        .get("dependencies")
        .and_then(Json::as_array)
        .expect("cargo metadata lists dependencies")
        .iter()
        .map(published_dependency)
        .collect();
    // Features that name `dep:` or `?/` go to `features2`, with format version 2, as crates.io
    // keeps them from older cargo.
    let (mut features, mut features2) = (Map::new(), Map::new());
    for (name, values) in package
        .get("features")
        .and_then(Json::as_object)
        .expect("cargo metadata lists features")
    {
        let new_syntax = values.as_array().is_some_and(|values| {
            values
                .iter()
                .filter_map(Json::as_str)
                .any(|v| v.starts_with("dep:") || v.contains("?/"))
        });
        let list = if new_syntax {
            &mut features2
        } else {
            &mut features
        };
        list.insert(name.clone(), values.clone());
    }
    let mut line = json!({
        "name": text(package, "name"),
        "vers": text(package, "version"),
        "deps": deps,
        "cksum": cksum,
        "features": features,
        "yanked": false,
        "links": text(package, "links"),
        "rust_version": text(package, "rust_version"),
    });
    if !features2.is_empty() {
        line["v"] = json!(2);
        line["features2"] = Json::Object(features2);
    }
    line
}

/// One dependency of an index line from `cargo metadata`'s: `name` is the name the package
/// uses (a rename), `package` the crate's when renamed; no `registry`: crates.io's own.
fn published_dependency(dep: &Json) -> Json {
    let field = |key: &str| {
        dep.get(key)
            .unwrap_or_else(|| panic!("no {key} in {dep}"))
            .clone()
    };
    let name = field("name");
    assert_eq!(
        dep.get("source").and_then(Json::as_str),
        Some(CRATES_IO),
        "a published crate depends on crates.io only: {dep}"
    );
    let kind = match dep.get("kind") {
        Some(Json::String(kind)) => kind.clone(),
        _ => "normal".to_owned(),
    };
    let rename = dep.get("rename").filter(|r| !r.is_null());
    let mut line = json!({
        "name": rename.cloned().unwrap_or_else(|| name.clone()),
        "req": field("req"),
        "features": field("features"),
        "optional": field("optional"),
        "default_features": field("uses_default_features"),
        "target": field("target"),
        "kind": kind,
    });
    if rename.is_some() {
        line["package"] = name;
    }
    line
}

#[cfg(test)]
mod tests {
    use super::{Json, cached_lines, crates_io_packages, index_path, json, published_line};

    #[test]
    fn index_paths_follow_the_length_of_the_name() {
        for (name, path) in [
            ("a", "1/a"),
            ("cc", "2/cc"),
            ("syn", "3/s/syn"),
            ("Inflector", "in/fl/inflector"),
            ("kubeforge-cli", "ku/be/kubeforge-cli"),
        ] {
            assert_eq!(index_path(name).to_str(), Some(path));
        }
    }

    #[test]
    fn a_cache_file_gives_its_versions_and_lines() {
        let mut bytes = vec![3, 2, 0, 0, 0];
        bytes.extend_from_slice(b"etag: \"x\"\0");
        bytes.extend_from_slice(b"1.0.0\0{\"vers\":\"1.0.0\"}\0");
        bytes.extend_from_slice(b"1.1.0-rc.1\0{\"vers\":\"1.1.0-rc.1\"}\0");
        assert_eq!(
            cached_lines(&bytes).unwrap(),
            [
                ("1.0.0".to_owned(), "{\"vers\":\"1.0.0\"}".to_owned()),
                (
                    "1.1.0-rc.1".to_owned(),
                    "{\"vers\":\"1.1.0-rc.1\"}".to_owned()
                ),
            ]
        );
        bytes[0] = 4;
        assert!(cached_lines(&bytes).unwrap_err().contains("cache version"));
    }

    #[test]
    fn only_the_crates_io_packages_of_a_lock_are_listed() {
        let lock = r#"
version = 4

[[package]]
name = "kubeforge"
version = "0.1.0"
dependencies = [
 "serde",
]

[[package]]
name = "serde"
version = "1.0.228"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "9a8e"

[[package]]
name = "forked"
version = "0.2.0"
source = "git+https://example.com/forked#0123"
"#;
        let packages = crates_io_packages(lock);
        assert_eq!(packages.len(), 1);
        assert_eq!(
            (
                packages[0].name.as_str(),
                packages[0].version.as_str(),
                packages[0].checksum.as_str()
            ),
            ("serde", "1.0.228", "9a8e")
        );
    }

    #[test]
    fn a_published_line_renames_splits_features_and_keeps_kinds() {
        let package: Json = serde_json::from_str(
            r#"{"name":"p","version":"0.1.0","links":null,"rust_version":"1.85",
            "features":{"default":["full"],"full":["dep:x","y?/z"],"plain":[]},
            "dependencies":[
              {"name":"x-core","rename":"x","req":"^1","kind":null,"optional":true,
               "uses_default_features":false,"features":["f"],"target":"cfg(unix)",
               "registry":null,"source":"registry+https://github.com/rust-lang/crates.io-index"},
              {"name":"y","rename":null,"req":"=0.2.1","kind":"dev","optional":false,
               "uses_default_features":true,"features":[],"target":null,
               "registry":null,"source":"registry+https://github.com/rust-lang/crates.io-index"}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            published_line(&package, "ab12"),
            json!({
                "name": "p",
                "vers": "0.1.0",
                "deps": [
                    {"name": "x", "req": "^1", "features": ["f"], "optional": true,
                     "default_features": false, "target": "cfg(unix)", "kind": "normal",
                     "package": "x-core"},
                    {"name": "y", "req": "=0.2.1", "features": [], "optional": false,
                     "default_features": true, "target": null, "kind": "dev"},
                ],
                "cksum": "ab12",
                "features": {"default": ["full"], "plain": []},
                "yanked": false,
                "links": null,
                "v": 2,
                "features2": {"full": ["dep:x", "y?/z"]},
                "rust_version": "1.85",
            })
        );
    }
}
