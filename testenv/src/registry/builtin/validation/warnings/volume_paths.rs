//! The warnings of the files a pod's volumes write (`warningsForOverlappingVirtualPaths`): two
//! items of a secret, configMap or downward API volume at one path or one inside the other,
//! and a projected volume's empty source. Paths are compared in the order they are listed
//! (the real server keeps them in a Go set, whose order only matters for a path that overlaps
//! several). The overlaps of a projected volume's sources are not sought.

use serde_json::Value;

/// Projection kinds the registry drops (their features are off in v1.34) before the real
/// server seeks warnings: a source with only these is empty.
const DROPPED_PROJECTIONS: [&str; 2] = ["clusterTrustBundle", "podCertificate"];

fn items(list: &Value) -> impl Iterator<Item = &Value> {
    list.as_array().into_iter().flatten()
}

/// The path an earlier path of `seen` overlaps `path` at, as `checkForOverlap` finds it: the
/// same path, or one a directory of the other (`p` and `p/q`, not `p` and `pq`; an empty
/// path overlaps none).
fn overlap<'a>(seen: &[&'a str], path: &str) -> Option<&'a str> {
    for item in seen {
        if item.is_empty() || path.is_empty() {
            return None;
        }
        if *item == path
            || item.starts_with(&format!("{path}/"))
            || path.starts_with(&format!("{item}/"))
        {
            return Some(item);
        }
    }
    None
}

/// `checkVolumeMappingForOverlap` of the items of `source`, told as `what`.
fn overlaps(source: &Value, what: &str) -> Vec<String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for item in items(&source["items"]) {
        let path = item["path"]
            .as_str()
            .unwrap_or_default()
            .trim_end_matches('/');
        if let Some(earlier) = overlap(&seen, path) {
            out.push(format!(
                "{what}: overlapping paths: {path:?} with {earlier:?}"
            ));
        }
        if !seen.contains(&path) {
            seen.push(path);
        }
    }
    out
}

/// The warnings of the volumes of `spec`, volume by volume.
pub fn warnings(spec: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for volume in items(&spec["volumes"]) {
        let name = volume["name"].as_str().unwrap_or_default();
        for (field, kind, object_name) in [
            ("configMap", "ConfigMap", "name"),
            ("secret", "Secret", "secretName"),
        ] {
            let source = &volume[field];
            if source["items"].is_array() {
                let object = source[object_name].as_str().unwrap_or_default();
                out.extend(overlaps(
                    source,
                    &format!("volume {name:?} ({kind} {object:?})"),
                ));
            }
        }
        let downward = &volume["downwardAPI"];
        if downward["items"].is_array() {
            out.extend(overlaps(
                downward,
                &format!("volume {name:?} (DownwardAPI)"),
            ));
        }
        // Said once per volume: the real server's warning recorder keeps one of identical
        // warnings.
        let empty = items(&volume["projected"]["sources"]).any(|source| {
            source
                .as_object()
                .is_none_or(|s| s.keys().all(|k| DROPPED_PROJECTIONS.contains(&k.as_str())))
        });
        if empty {
            out.push(format!(
                "volume {name:?} (Projected) has no sources provided"
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn items_at_one_path_or_inside_another_overlap() {
        let spec = json!({"volumes": [
            {"name": "a", "configMap": {"name": "c", "items": [
                {"key": "a", "path": "p"}, {"key": "b", "path": "p/q/"}, {"key": "c", "path": "pq"}]}},
            {"name": "b", "downwardAPI": {"items": [{"path": "x"}, {"path": "x"}]}},
            {"name": "c", "projected": {"sources": [{"clusterTrustBundle": {"path": "x"}}]}},
        ]});
        assert_eq!(
            warnings(&spec),
            [
                "volume \"a\" (ConfigMap \"c\"): overlapping paths: \"p/q\" with \"p\"",
                "volume \"b\" (DownwardAPI): overlapping paths: \"x\" with \"x\"",
                "volume \"c\" (Projected) has no sources provided",
            ]
        );
    }
}
