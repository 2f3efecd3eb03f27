//! The files a pod volume writes into its directory: the key-to-path items of secret and
//! configMap volumes (`validateKeyToPath`), downward API files
//! (`validateDownwardAPIVolumeFile`), projected volumes' sources
//! (`validateProjectionSources`), their paths (`ValidateLocalNonReservedPath`: relative, no
//! `..` element, not starting with `..`) and file modes (0 to 0777), with the real server's
//! messages and paths (a downward API file's errors name no list index, a duplicate path is
//! reported at the projected volume).

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, child, forbidden, index, invalid, invalid_str, required, required_because,
};
use super::pod_container::{field_ref, resource_field_ref};

/// The field paths a downward API volume file may name.
const VOLUME_FIELD_PATHS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
];
const FILE_MODE: &str = "must be a number between 0 and 0777 (octal), both inclusive";
/// The shortest and longest lifetime a projected service account token may ask for.
const TOKEN_MIN_SECONDS: i64 = 10 * 60;
const TOKEN_MAX_SECONDS: i64 = 1 << 32;

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value[field].as_str().unwrap_or_default()
}

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

/// `validateLocalDescendingPath`: relative, without a `..` element.
pub(super) fn descending_path(value: &str, field: &str) -> Errors {
    let mut out = Vec::new();
    if value.starts_with('/') {
        out.push(invalid_str(field, value, "must be a relative path"));
    }
    if value.split('/').any(|part| part == "..") {
        out.push(invalid_str(field, value, "must not contain '..'"));
    }
    out
}

/// `ValidateLocalNonReservedPath`: a descending path that does not start with `..` either
/// (reported once when a `..` element was already).
fn non_reserved_path(value: &str, field: &str) -> Errors {
    let mut out = descending_path(value, field);
    if value.starts_with("..") && !value.starts_with("../") {
        out.push(invalid_str(field, value, "must not start with '..'"));
    }
    out
}

/// A file mode at `field` of `holder`, if set, out of 0..=0777.
pub(super) fn file_mode(holder: &Value, name: &str, path: &str) -> Errors {
    match holder[name].as_i64() {
        Some(mode) if !(0..=0o777).contains(&mode) => {
            vec![invalid(&child(path, name), &mode.into(), FILE_MODE)]
        }
        _ => Vec::new(),
    }
}

/// `validateKeyToPath` of the item at `path`.
pub(super) fn key_to_path(item: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if text(item, "key").is_empty() {
        out.push(required(&child(path, "key")));
    }
    let file = text(item, "path");
    let at = child(path, "path");
    if file.is_empty() {
        out.push(required(&at));
    }
    out.extend(non_reserved_path(file, &at));
    out.extend(file_mode(item, "mode", path));
    out
}

/// `validateDownwardAPIVolumeFile` of a file reported at `path` (its volume's or
/// projection's path: the real server names no index).
fn downward_api_file(file: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = text(file, "path");
    let at = child(path, "path");
    if name.is_empty() {
        out.push(required(&at));
    }
    out.extend(non_reserved_path(name, &at));
    let (field, resource) = (&file["fieldRef"], &file["resourceFieldRef"]);
    if field.is_object() {
        out.extend(field_ref(
            field,
            &child(path, "fieldRef"),
            VOLUME_FIELD_PATHS,
        ));
        if resource.is_object() {
            out.push(invalid_str(
                path,
                "resource",
                "fieldRef and resourceFieldRef can not be specified simultaneously",
            ));
        }
    } else if resource.is_object() {
        out.extend(resource_field_ref(
            resource,
            &child(path, "resourceFieldRef"),
            true,
        ));
    } else {
        out.push(required_because(
            path,
            "one of fieldRef and resourceFieldRef is required",
        ));
    }
    out.extend(file_mode(file, "mode", path));
    out
}

/// `validateDownwardAPIVolumeSource` of the `downwardAPI` volume source at `path`.
pub(super) fn downward_api(source: &Value, path: &str) -> Errors {
    let mut out = file_mode(source, "defaultMode", path);
    for file in items(&source["items"]) {
        out.extend(downward_api_file(file, path));
    }
    out
}

/// The paths a projected volume's sources have written so far, to refuse a second writer.
struct Paths<'a> {
    seen: HashSet<&'a str>,
    volume: &'a str,
}

impl<'a> Paths<'a> {
    /// A `conflicting duplicate paths` error (naming `value`) when `file` was written before.
    fn claim(&mut self, file: &'a str, value: &str) -> Option<crate::support::status::Cause> {
        (!self.seen.insert(file))
            .then(|| invalid_str(self.volume, value, "conflicting duplicate paths"))
    }
}

/// A projected secret or configMap: its name, and each item with its path claimed.
fn object_projection<'a>(source: &'a Value, path: &str, paths: &mut Paths<'a>) -> Errors {
    let name = text(source, "name");
    let mut out = Vec::new();
    if name.is_empty() {
        out.push(required(&child(path, "name")));
    }
    let items_path = child(path, "items");
    for (i, item) in items(&source["items"]).iter().enumerate() {
        out.extend(key_to_path(item, &index(&items_path, i)));
        let file = text(item, "path");
        if !file.is_empty() {
            out.extend(paths.claim(file, name));
        }
    }
    out
}

/// A projected service account token: its lifetime, and its path (reported at the volume).
fn token_projection(source: &Value, path: &str, volume: &str) -> Errors {
    let mut out = Vec::new();
    let seconds = source["expirationSeconds"].as_i64().unwrap_or(0);
    let at = child(path, "expirationSeconds");
    if seconds < TOKEN_MIN_SECONDS {
        out.push(invalid(
            &at,
            &seconds.into(),
            "may not specify a duration less than 10 minutes",
        ));
    }
    if seconds > TOKEN_MAX_SECONDS {
        out.push(invalid(
            &at,
            &seconds.into(),
            "may not specify a duration larger than 2^32 seconds",
        ));
    }
    let file = text(source, "path");
    let file_path = child(volume, "path");
    if file.is_empty() {
        out.push(required(&file_path));
    } else {
        out.extend(non_reserved_path(file, &file_path));
    }
    out
}

/// `validateProjectedVolumeSource` of the `projected` volume source at `path`: its default
/// mode, then each source's own rules, one kind per source.
pub(super) fn projected(source: &Value, path: &str) -> Errors {
    let mut out = file_mode(source, "defaultMode", path);
    let mut paths = Paths {
        seen: HashSet::new(),
        volume: path,
    };
    let sources_path = child(path, "sources");
    for (i, projection) in items(&source["sources"]).iter().enumerate() {
        let at = index(&sources_path, i);
        let mut kinds = 0;
        for kind in ["secret", "configMap"] {
            if projection[kind].is_object() {
                kinds += 1;
                let object = &projection[kind];
                out.extend(object_projection(object, &child(&at, kind), &mut paths));
            }
        }
        let downward = &projection["downwardAPI"];
        if downward.is_object() {
            kinds += 1;
            let downward_path = child(&at, "downwardAPI");
            for file in items(&downward["items"]) {
                out.extend(downward_api_file(file, &downward_path));
                let name = text(file, "path");
                if !name.is_empty() {
                    out.extend(paths.claim(name, name));
                }
            }
        }
        let token = &projection["serviceAccountToken"];
        if token.is_object() {
            kinds += 1;
            out.extend(token_projection(
                token,
                &child(&at, "serviceAccountToken"),
                path,
            ));
        }
        if kinds > 1 {
            out.push(forbidden(
                &at,
                "may not specify more than 1 volume type per source",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(errors: &Errors) -> Vec<String> {
        errors
            .iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn item_paths_stay_below_the_volume() {
        assert_eq!(
            lines(&key_to_path(&json!({"key": "k", "path": ".."}), "i")),
            [
                "i.path: Invalid value: \"..\": must not contain '..'",
                "i.path: Invalid value: \"..\": must not start with '..'",
            ]
        );
        assert_eq!(
            lines(&key_to_path(
                &json!({"key": "k", "path": "..x", "mode": 512}),
                "i"
            )),
            [
                "i.path: Invalid value: \"..x\": must not start with '..'",
                "i.mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
            ]
        );
        assert!(key_to_path(&json!({"key": "k", "path": "a/b..c", "mode": 511}), "i").is_empty());
    }

    #[test]
    fn projections_claim_their_paths_and_have_one_kind_each() {
        let source = json!({"sources": [
            {"secret": {"name": "s", "items": [{"key": "k", "path": "p"}]}},
            {"configMap": {"name": "c", "items": [{"key": "k", "path": "p"}]},
             "serviceAccountToken": {"path": "../t", "expirationSeconds": 60}},
        ]});
        assert_eq!(
            lines(&projected(&source, "v")),
            [
                "v: Invalid value: \"c\": conflicting duplicate paths",
                "v.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
                "v.path: Invalid value: \"../t\": must not contain '..'",
                "v.sources[1]: Forbidden: may not specify more than 1 volume type per source",
            ]
        );
    }

    #[test]
    fn downward_api_files_name_a_volume_field_or_a_container_resource() {
        let source = json!({"items": [
            {"path": "a", "resourceFieldRef": {"resource": "limits.cpu"}},
            {"path": "b"},
            {"path": "c", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.uid"}},
        ]});
        assert_eq!(
            lines(&downward_api(&source, "d")),
            [
                "d.resourceFieldRef.containerName: Required value",
                "d: Required value: one of fieldRef and resourceFieldRef is required",
            ]
        );
    }
}
