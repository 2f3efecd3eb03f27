//! Conversion between the stored form and a served version, for kinds served by two groups
//! with different field names: `events.k8s.io/v1` Events are stored as core `v1` Events (one
//! storage, as in kube-apiserver), so `kubectl get events` sees what kube-runtime's event
//! recorder wrote; `autoscaling/v1` HorizontalPodAutoscalers are stored as `autoscaling/v2`
//! ([`super::hpa`]). Every other kind is stored as sent: custom resources with `None` conversion
//! only change `apiVersion` between versions, and those with `Webhook` conversion reach the
//! handlers already in their storage version (see [`super::codec`]).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::support::fieldmanager::{Pending, Reach, Versions};
use crate::support::resource::ResourceDef;

/// (events.k8s.io/v1 field, core/v1 field)
const EVENT_FIELDS: &[(&str, &str)] = &[
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("reportingController", "reportingComponent"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
];

fn is_events_group_event(def: &ResourceDef) -> bool {
    def.group == "events.k8s.io" && def.kind == "Event"
}

fn is_v1_autoscaler(def: &ResourceDef) -> bool {
    def.group == "autoscaling" && def.version == "v1" && def.kind == "HorizontalPodAutoscaler"
}

fn rename(object: &mut Value, from_to: impl Iterator<Item = (&'static str, &'static str)>) {
    let Some(map) = object.as_object_mut() else {
        return;
    };
    let mut moved = Map::new();
    for (from, to) in from_to {
        if let Some(v) = map.remove(from) {
            moved.insert(to.to_string(), v);
        }
    }
    map.extend(moved);
}

/// Whether objects of `def` are stored in another form than they are served in (the field
/// names differ), so that what a write changed must be seen in `def`'s form.
pub fn renames(def: &ResourceDef) -> bool {
    is_events_group_event(def) || is_v1_autoscaler(def)
}

/// The stored form of an object written through `def`.
pub fn to_storage(def: &ResourceDef, mut object: Value) -> Value {
    if is_events_group_event(def) {
        rename(&mut object, EVENT_FIELDS.iter().copied());
        object["apiVersion"] = Value::from("v1");
    }
    if is_v1_autoscaler(def) {
        object = super::hpa::to_v2(object);
        object["apiVersion"] = Value::from("autoscaling/v2");
    }
    object
}

/// The object as served by `def` (fields renamed; `apiVersion`/`kind` set by the caller).
pub fn from_storage(def: &ResourceDef, object: &Value) -> Value {
    let mut out = object.clone();
    if is_events_group_event(def) {
        rename(&mut out, EVENT_FIELDS.iter().map(|(a, b)| (*b, *a)));
        // Written always by core/v1, left out when empty by events.k8s.io/v1.
        if let Some(map) = out.as_object_mut() {
            for field in ["reportingController", "reportingInstance"] {
                if map.get(field).is_some_and(|v| v == "") {
                    map.remove(field);
                }
            }
        }
    }
    if is_v1_autoscaler(def) {
        out = super::hpa::to_v1(&out);
    }
    out
}

/// The object with `apiVersion` and `kind` of the served version `def` (None conversion).
pub fn as_version(def: &ResourceDef, object: &Value) -> Value {
    let mut out = from_storage(def, object);
    out["apiVersion"] = Value::String(def.api_version());
    out["kind"] = Value::String(def.kind.clone());
    out
}

/// The versions of a built-in kind served in versions with different fields
/// (HorizontalPodAutoscalers in `autoscaling/v1` and `autoscaling/v2`), as the field manager
/// converts between them: through the stored form.
#[derive(Debug, Clone)]
pub struct BuiltinVersions {
    group: String,
    kind: String,
    plural: String,
    versions: &'static [&'static str],
}

impl BuiltinVersions {
    /// The versions of `def`'s kind, when they differ in their fields.
    pub fn of(def: &ResourceDef) -> Option<Self> {
        if def.custom.is_some() {
            return None;
        }
        let versions: &'static [&'static str] = match (def.group.as_str(), def.kind.as_str()) {
            ("autoscaling", "HorizontalPodAutoscaler") => &["v1", "v2"],
            _ => return None,
        };
        Some(BuiltinVersions {
            group: def.group.clone(),
            kind: def.kind.clone(),
            plural: def.plural.clone(),
            versions,
        })
    }

    fn version_def(&self, api_version: &str) -> Option<ResourceDef> {
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        (group == self.group && self.versions.contains(&version))
            .then(|| ResourceDef::named(&self.group, version, &self.kind, &self.plural))
    }
}

impl Versions for BuiltinVersions {
    /// A version of another group, or one the kind is no longer served in
    /// (`autoscaling/v2beta2`), is missing: its entries are dropped.
    fn reach(&self, api_version: &str) -> Reach {
        match self.version_def(api_version) {
            Some(_) => Reach::Known,
            None => Reach::Missing,
        }
    }

    fn def(&self, api_version: &str) -> Option<Arc<ResourceDef>> {
        self.version_def(api_version).map(Arc::new)
    }

    fn convert(&self, object: &Value, api_version: &str) -> Result<Value, Pending> {
        let from = object["apiVersion"].as_str().unwrap_or_default();
        match (self.version_def(from), self.version_def(api_version)) {
            (Some(from), Some(to)) if from.version != to.version => {
                Ok(as_version(&to, &to_storage(&from, object.clone())))
            }
            _ => Ok(object.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_round_trip() {
        let def = ResourceDef::named("events.k8s.io", "v1", "Event", "events");
        let e = json!({"apiVersion": "events.k8s.io/v1", "kind": "Event", "note": "hi", "regarding": {"name": "x"}, "reason": "R"});
        let stored = to_storage(&def, e.clone());
        assert_eq!(stored["message"], "hi");
        assert_eq!(stored["involvedObject"]["name"], "x");
        let back = from_storage(&def, &stored);
        assert_eq!(back["note"], "hi");
        assert_eq!(back["reason"], "R");
    }

    #[test]
    fn autoscalers_convert_between_their_versions() {
        let def = ResourceDef::named(
            "autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
        );
        let versions = BuiltinVersions::of(&def).unwrap();
        assert!(versions.def("autoscaling/v1").is_some());
        assert!(versions.def("autoscaling/v2beta2").is_none());
        assert!(BuiltinVersions::of(&ResourceDef::named("", "v1", "Pod", "pods")).is_none());
        let v1 = serde_json::json!({"apiVersion": "autoscaling/v1",
            "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
            "spec": {"maxReplicas": 3, "targetCPUUtilizationPercentage": 50}});
        let v2 = versions.convert(&v1, "autoscaling/v2").unwrap();
        assert_eq!(v2["apiVersion"], "autoscaling/v2");
        assert_eq!(
            v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            50
        );
        let back = versions.convert(&v2, "autoscaling/v1").unwrap();
        assert_eq!(back["spec"]["targetCPUUtilizationPercentage"], 50);
        assert_eq!(versions.convert(&v1, "autoscaling/v1").unwrap(), v1);
    }
}
