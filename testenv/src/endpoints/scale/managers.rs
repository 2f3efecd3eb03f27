//! The managers of a Scale and of the object it scales, converted both ways as
//! kube-apiserver's scale handler converts them for an apply through `/scale`.
//!
//! - To the Scale: each of the object's entries that owns the replicas becomes an entry of
//!   the same manager, operation, subresource and time in `autoscaling/v1`, owning
//!   `.spec.replicas`; entries of one identity (manager, operation, subresource and, for
//!   updates, apiVersion) collapse to the last one listed, as decoding them does.
//! - Back to the object: an entry that owns the replicas keeps them only when the Scale
//!   still has an entry of the same identity (an Apply entry: Update entries changed
//!   apiVersion on the way, so they never match and lose the replicas); each Scale entry
//!   owning the replicas that matched nothing becomes a new entry in the object's version,
//!   without time.

use crate::support::fieldmanager::managed::Entry;
use crate::support::fieldmanager::{FieldSet, ManagedFields, Operation, Owner, PathElement};

/// The apiVersion of the Scale.
const SCALE_VERSION: &str = "autoscaling/v1";

/// The path of a replicas field (`.spec.replicas`) as field names.
pub fn replicas_path(json_path: &str) -> Vec<PathElement> {
    json_path
        .trim_start_matches('.')
        .split('.')
        .filter(|s| !s.is_empty())
        .map(|s| PathElement::Field(s.to_string()))
        .collect()
}

fn only(path: &[PathElement]) -> FieldSet {
    let mut set = FieldSet::new();
    set.insert(path);
    set
}

fn owns(entry: &Entry, path: &[PathElement]) -> bool {
    !entry.fields.intersection(&only(path)).is_empty()
}

/// Whether two entries have the same identity in the real field manager.
fn same_identity(a: &Owner, b: &Owner) -> bool {
    a.manager == b.manager
        && a.operation == b.operation
        && a.subresource == b.subresource
        && (a.operation == Operation::Apply || a.api_version == b.api_version)
}

/// The entries with one per identity, the last listed winning.
fn by_identity(managed: &ManagedFields) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for e in &managed.entries {
        match out.iter_mut().find(|o| same_identity(&o.owner, &e.owner)) {
            Some(o) => *o = e.clone(),
            None => out.push(e.clone()),
        }
    }
    out
}

/// The Scale's managers from the object's (`replicas`: the object's replicas path).
pub fn to_scale(parent: &ManagedFields, replicas: &[PathElement]) -> ManagedFields {
    let scale_replicas = replicas_path(".spec.replicas");
    let entries = by_identity(parent)
        .into_iter()
        .filter(|e| owns(e, replicas))
        .map(|e| Entry {
            owner: Owner {
                api_version: SCALE_VERSION.to_string(),
                ..e.owner
            },
            time: e.time,
            fields: only(&scale_replicas),
        })
        .collect();
    ManagedFields { entries }
}

/// The object's managers after an apply to its Scale left the Scale with `scale`.
pub fn to_parent(
    parent: &ManagedFields,
    scale: &ManagedFields,
    replicas: &[PathElement],
    version: &str,
) -> ManagedFields {
    let mut entries: Vec<Entry> = Vec::new();
    for mut e in by_identity(parent) {
        if owns(&e, replicas)
            && !scale
                .entries
                .iter()
                .any(|s| same_identity(&s.owner, &e.owner))
        {
            e.fields = e.fields.difference(&only(replicas));
        }
        if !e.fields.is_empty() {
            entries.push(e);
        }
    }
    let scale_replicas = replicas_path(".spec.replicas");
    for s in &scale.entries {
        if !owns(s, &scale_replicas) || entries.iter().any(|e| same_identity(&e.owner, &s.owner)) {
            continue;
        }
        entries.push(Entry {
            owner: Owner {
                api_version: version.to_string(),
                ..s.owner.clone()
            },
            time: None,
            fields: only(replicas),
        });
    }
    ManagedFields { entries }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn entries(v: serde_json::Value) -> ManagedFields {
        ManagedFields::decode(&v).expect("managedFields")
    }

    #[test]
    fn update_entries_lose_the_replicas_and_scale_appliers_gain_them() {
        let replicas = replicas_path(".spec.replicas");
        let parent = entries(json!([
            {"manager": "creator", "operation": "Update", "apiVersion": "apps/v1",
             "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
             "fieldsV1": {"f:spec": {"f:replicas": {}, "f:paused": {}}}},
            {"manager": "other", "operation": "Update", "apiVersion": "apps/v1",
             "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:minReadySeconds": {}}}}]));
        let scale = to_scale(&parent, &replicas);
        assert_eq!(scale.entries.len(), 1);
        assert_eq!(scale.entries[0].owner.api_version, "autoscaling/v1");
        assert_eq!(
            scale.entries[0].time.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        // An apply by `sa` that shares the replicas with `creator`: back on the object,
        // creator's entry loses them to a new entry of its own without time (the real
        // server's split), and sa gets an entry in apps/v1.
        let mut after = scale.clone();
        after.entries.push(Entry {
            owner: Owner {
                manager: "sa".into(),
                operation: Operation::Apply,
                api_version: "autoscaling/v1".into(),
                subresource: "scale".into(),
            },
            time: Some("2026-01-01T00:00:01Z".into()),
            fields: only(&replicas),
        });
        let back = to_parent(&parent, &after, &replicas, "apps/v1").encode();
        assert_eq!(
            back,
            json!([
                {"manager": "sa", "operation": "Apply", "apiVersion": "apps/v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}},
                 "subresource": "scale"},
                {"manager": "creator", "operation": "Update", "apiVersion": "apps/v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
                {"manager": "other", "operation": "Update", "apiVersion": "apps/v1",
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:minReadySeconds": {}}}},
                {"manager": "creator", "operation": "Update", "apiVersion": "apps/v1",
                 "time": "2026-01-01T00:00:00Z", "fieldsType": "FieldsV1",
                 "fieldsV1": {"f:spec": {"f:paused": {}}}},
            ])
        );
    }
}
