//! Projected volume sources of features off by default in kube-apiserver v1.34:
//! `clusterTrustBundle` (`ClusterTrustBundleProjection`) and `podCertificate`
//! (`PodCertificateProjection`). A registry given a Pod or a pod template drops them from
//! every projected volume (`dropDisabledClusterTrustBundleProjection` and
//! `dropDisabledPodCertificateProjection` of the pod strategy), leaving an empty source in
//! their place, unless the stored object already uses one (it never can). Done after the field
//! manager has recorded the writer's fields (on update, see [`restore_sent`]).

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

/// Whether the pod spec of `object`, a `group`/`plural`, has a disabled projection.
pub(super) fn has_disabled(group: &str, plural: &str, object: &Value) -> bool {
    spec_path(group, plural).is_some_and(|path| {
        projections(spec_of(object, path)).any(|s| DISABLED.iter().any(|k| !s[*k].is_null()))
    })
}

/// Puts back into `view`, a `group`/`plural` after [`drop_disabled`], the projected sources
/// of `sent` (the request as decoded) where they differ: what the field manager credits to
/// the writer of an update, recorded before the drop (a volume's `sources` is an atomic
/// list, owned whole). Whether it put any back.
pub(super) fn restore_sent(group: &str, plural: &str, view: &mut Value, sent: &Value) -> bool {
    let Some(path) = spec_path(group, plural) else {
        return false;
    };
    let sent_volumes = spec_of(sent, path)["volumes"].as_array();
    let spec = path.iter().try_fold(&mut *view, |v, k| v.get_mut(*k));
    let volumes = spec
        .and_then(|spec| spec.get_mut("volumes"))
        .and_then(Value::as_array_mut);
    let mut restored = false;
    for volume in volumes.into_iter().flatten() {
        let sent_sources = sent_volumes
            .into_iter()
            .flatten()
            .find(|v| v["name"] == volume["name"])
            .and_then(|v| v.pointer("/projected/sources"));
        let sources = volume.pointer_mut("/projected/sources");
        if let (Some(sources), Some(sent_sources)) = (sources, sent_sources)
            && sources != sent_sources
        {
            *sources = sent_sources.clone();
            restored = true;
        }
    }
    restored
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

    #[test]
    fn the_writer_is_credited_with_the_sources_it_sent() {
        let sent = json!({"spec": {"volumes": [{"name": "p", "projected": {"sources": [
            {"clusterTrustBundle": {"name": "n", "path": "x"}}, {"secret": {"name": "s"}},
        ]}}]}});
        assert!(has_disabled("", "pods", &sent));
        let mut view = sent.clone();
        drop_disabled("", "pods", &mut view, None);
        assert!(!has_disabled("", "pods", &view));
        assert!(restore_sent("", "pods", &mut view, &sent));
        assert_eq!(view, sent);
    }
}
