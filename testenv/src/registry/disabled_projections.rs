//! Projected volume sources of features off by default in kube-apiserver v1.34:
//! `clusterTrustBundle` (`ClusterTrustBundleProjection`) and `podCertificate`
//! (`PodCertificateProjection`). A registry given a Pod or a pod template drops them from
//! every projected volume (`dropDisabledClusterTrustBundleProjection` and
//! `dropDisabledPodCertificateProjection` of the pod strategy), leaving an empty source in
//! their place, unless the stored object already uses one (it never can).

use serde_json::Value;

use super::image_volume::{spec_of, spec_path};

/// The projection kinds of the features that are off.
const DISABLED: [&str; 2] = ["clusterTrustBundle", "podCertificate"];

/// The projections of a pod spec's volumes.
fn projections(spec: &Value) -> impl Iterator<Item = &Value> {
    spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["projected"]["sources"].as_array())
        .flatten()
}

/// Drops the disabled projections of `object`, a `group`/`plural` written over `old` (none
/// on a create), each kind unless `old`'s spec uses that kind.
pub fn drop_disabled(group: &str, plural: &str, object: &mut Value, old: Option<&Value>) {
    let Some(path) = spec_path(group, plural) else {
        return;
    };
    for kind in DISABLED {
        let in_use = old.is_some_and(|old| {
            projections(spec_of(old, path)).any(|source| !source[kind].is_null())
        });
        if in_use {
            continue;
        }
        let spec = path.iter().try_fold(&mut *object, |v, k| v.get_mut(*k));
        let volumes = spec
            .and_then(|spec| spec.get_mut("volumes"))
            .and_then(Value::as_array_mut);
        for volume in volumes.into_iter().flatten() {
            let sources = volume
                .pointer_mut("/projected/sources")
                .and_then(Value::as_array_mut);
            for source in sources
                .into_iter()
                .flatten()
                .filter_map(Value::as_object_mut)
            {
                source.remove(kind);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn disabled_projections_go_unless_the_old_object_used_them() {
        let spec = json!({"volumes": [{"name": "p", "projected": {"sources": [
            {"clusterTrustBundle": {"name": "n", "path": "x"}},
            {"podCertificate": {"signerName": "a/b"}},
            {"secret": {"name": "s"}},
        ]}}]});
        let mut pod = json!({"spec": spec.clone()});
        drop_disabled("", "pods", &mut pod, None);
        assert_eq!(
            pod["spec"]["volumes"][0]["projected"]["sources"],
            json!([{}, {}, {"secret": {"name": "s"}}])
        );
        let mut kept = json!({"spec": spec.clone()});
        drop_disabled("", "pods", &mut kept, Some(&json!({"spec": spec.clone()})));
        assert_eq!(kept["spec"], spec);
    }
}
