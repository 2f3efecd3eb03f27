//! The warnings of the files a pod's volumes write (`warningsForOverlappingVirtualPaths`): two
//! items of a secret, configMap or downward API volume at one path or one inside the other,
//! and in a projected volume an empty source and every file of its sources (secret,
//! configMap and downward API items, the service account token) at the path of an earlier
//! one or inside it, or the reverse. Paths are compared in the order they are listed (the
//! real server keeps a plain volume's in a Go set, whose order only matters for a path that
//! overlaps several).

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
        if let Some(sources) = volume["projected"]["sources"].as_array() {
            out.extend(projected(name, sources));
        }
    }
    out
}

/// Whether two paths (without trailing slashes) are one, or one is a directory of the other;
/// an empty path overlaps none.
fn overlapping(a: &str, b: &str) -> bool {
    !a.is_empty()
        && !b.is_empty()
        && (a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/")))
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// The paths of `items` (a projection's), each told as `what`.
fn listed<'a>(items: &'a Value, what: &str) -> Vec<(&'a str, String)> {
    let paths = items.as_array().into_iter().flatten();
    paths
        .map(|item| (text(&item["path"]), what.to_string()))
        .collect()
}

/// The files a projected volume's `source` writes, each with how a warning names the source.
fn source_files(source: &Value) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    for (field, kind) in [("configMap", "ConfigMap"), ("secret", "Secret")] {
        let projection = &source[field];
        let what = format!("{kind} {:?}", text(&projection["name"]));
        out.extend(listed(&projection["items"], &what));
    }
    out.extend(listed(&source["downwardAPI"]["items"], "DownwardAPI"));
    let token = &source["serviceAccountToken"];
    if token.is_object() {
        out.push((text(&token["path"]), "ServiceAccountToken".to_string()));
    }
    out
}

/// The warnings of the projected volume `name` with `sources`: an empty source (one left
/// with only the projections the registry dropped too), and each file at or inside the path
/// of an earlier file, or holding it, once per earlier file, in the order the sources list
/// them. Each said once: the real server's warning recorder keeps one of identical warnings.
fn projected(name: &str, sources: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut say = |warning: String| {
        if !out.contains(&warning) {
            out.push(warning);
        }
    };
    let mut earlier: Vec<(&str, String)> = Vec::new();
    for source in sources {
        let empty = source
            .as_object()
            .is_none_or(|s| s.keys().all(|k| DROPPED_PROJECTIONS.contains(&k.as_str())));
        if empty {
            say(format!(
                "volume {name:?} (Projected) has no sources provided"
            ));
            continue;
        }
        for (path, what) in source_files(source) {
            let path = path.trim_end_matches('/');
            for (other, other_what) in &earlier {
                if overlapping(path, other) {
                    say(format!(
                        "volume {name:?} (Projected): overlapping paths: {path:?} ({what}) with {other:?} ({other_what})"
                    ));
                }
            }
            earlier.push((path, what));
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

    #[test]
    fn a_projected_volumes_files_overlap_every_earlier_file_they_meet() {
        let spec = json!({"volumes": [{"name": "a", "projected": {"sources": [
            {"serviceAccountToken": {"path": "t/"}},
            {},
            {"downwardAPI": {"items": [{"path": "t/u"}, {"path": "t/u"}]}},
            {"podCertificate": {}},
            {"secret": {"name": "s", "items": [{"key": "k", "path": "t"}, {"key": "l", "path": "tu"}]}},
            {"configMap": {"name": "c"}},
        ]}}]});
        assert_eq!(
            warnings(&spec),
            [
                "volume \"a\" (Projected) has no sources provided",
                "volume \"a\" (Projected): overlapping paths: \"t/u\" (DownwardAPI) with \"t\" (ServiceAccountToken)",
                "volume \"a\" (Projected): overlapping paths: \"t/u\" (DownwardAPI) with \"t/u\" (DownwardAPI)",
                "volume \"a\" (Projected): overlapping paths: \"t\" (Secret \"s\") with \"t\" (ServiceAccountToken)",
                "volume \"a\" (Projected): overlapping paths: \"t\" (Secret \"s\") with \"t/u\" (DownwardAPI)",
            ]
        );
    }
}
