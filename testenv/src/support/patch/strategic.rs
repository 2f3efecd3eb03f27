//! Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds.
//!
//! Semantics follow apimachinery's `strategicpatch` as the apiserver applies it:
//! - maps merge recursively; `null` deletes a field; new subtrees are inserted without their
//!   `null`s (the server applies patches with `IgnoreUnmatchedNulls`);
//! - lists with a patch merge key merge element by element (matching elements merge, new
//!   ones are added *before* the server-only ones, as the real ordering algorithm does);
//!   lists of scalars with the `merge` strategy (`metadata.finalizers`, `podCIDRs`) are unions;
//!   every other list is replaced, as in a JSON merge patch;
//! - directives: `$patch: replace|delete` in a map (`delete` leaves `{}` like the real
//!   server), `{"$patch": "replace"}` and `{"$patch": "delete", <key>: ...}` list elements,
//!   `$retainKeys`, `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>`.
//!
//! Known merge keys (from the Go types' `patchMergeKey` tags), for kinds of the built-in
//! groups (see [`is_builtin_group`]):
//!
//! | field | key |
//! |---|---|
//! | `containers`, `initContainers`, `ephemeralContainers` | `name` |
//! | container `env` | `name` |
//! | container `ports` | `containerPort` |
//! | container `volumeMounts` / `volumeDevices` | `mountPath` / `devicePath` |
//! | Service `spec.ports` | `port` |
//! | `volumes`, `imagePullSecrets`, `schedulingGates`, pod `resourceClaims`, ServiceAccount `secrets` | `name` |
//! | webhook configurations' `webhooks` | `name` |
//! | `hostAliases`, `podIPs`, `hostIPs` | `ip` |
//! | `topologySpreadConstraints` | `topologyKey` |
//! | `conditions` (every status), Node `status.addresses` | `type` |
//! | `metadata.ownerReferences` | `uid` |
//! | `metadata.finalizers`, Node `spec.podCIDRs` | scalar union |
//!
//! For other kinds (custom resources) every list is replaced; the real server refuses
//! strategic merge patches for custom resources with 415, which is the caller's decision.

use super::PatchError;
use super::go_print::go_type;
use super::strategic_errors::{
    bad_directive, check_element_order, missing_key, mixed_element_types,
};
use serde_json::{Map, Value};

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE: &str = "$deleteFromPrimitiveList/";
const SET_ELEMENT_ORDER: &str = "$setElementOrder/";

/// Applies a strategic merge `patch` to `target` in place for an object of `group`/`kind`
/// (group `""` is the core group). On error `target` is left unchanged.
pub fn strategic_merge(
    target: &mut Value,
    patch: &Value,
    group: &str,
    kind: &str,
) -> Result<(), PatchError> {
    let Value::Object(patch_map) = patch else {
        return Err(PatchError::Malformed(
            "a strategic merge patch must be a JSON object".into(),
        ));
    };
    let ctx = Ctx {
        builtin: is_builtin_group(group),
        kind: kind.to_string(),
    };
    let original = match target {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    let merged = merge_map(original, patch_map.clone(), &ctx, &mut Vec::new(), false)?;
    *target = Value::Object(merged);
    Ok(())
}

/// Whether `group` is one of the Kubernetes API groups whose types carry patch strategies.
pub fn is_builtin_group(group: &str) -> bool {
    matches!(
        group,
        "" | "apps"
            | "batch"
            | "autoscaling"
            | "policy"
            | "networking.k8s.io"
            | "rbac.authorization.k8s.io"
            | "coordination.k8s.io"
            | "discovery.k8s.io"
            | "storage.k8s.io"
            | "scheduling.k8s.io"
            | "admissionregistration.k8s.io"
            | "apiextensions.k8s.io"
            | "apiregistration.k8s.io"
            | "certificates.k8s.io"
            | "events.k8s.io"
            | "node.k8s.io"
            | "flowcontrol.apiserver.k8s.io"
            | "resource.k8s.io"
    )
}

struct Ctx {
    builtin: bool,
    kind: String,
}

/// How a list field is patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListStrategy {
    /// Replace the whole list (JSON merge patch semantics).
    Replace,
    /// Merge map elements by this key.
    MergeKey(&'static str),
    /// Union of scalars.
    Union,
}

/// The strategy for list `field` found under the object path `path` (field names only).
fn list_strategy(ctx: &Ctx, path: &[String], field: &str) -> ListStrategy {
    use ListStrategy::*;
    if !ctx.builtin {
        return Replace;
    }
    let parent = path.last().map_or("", String::as_str);
    let in_container = path.iter().any(|p| {
        matches!(
            p.as_str(),
            "containers" | "initContainers" | "ephemeralContainers"
        )
    });
    match field {
        "finalizers" if parent == "metadata" => Union,
        "ownerReferences" if parent == "metadata" => MergeKey("uid"),
        "containers" | "initContainers" | "ephemeralContainers" => MergeKey("name"),
        "env" if in_container => MergeKey("name"),
        "ports" if in_container => MergeKey("containerPort"),
        "volumeMounts" if in_container => MergeKey("mountPath"),
        "volumeDevices" if in_container => MergeKey("devicePath"),
        "ports" if ctx.kind == "Service" && path.len() == 1 && parent == "spec" => MergeKey("port"),
        "volumes" | "imagePullSecrets" | "schedulingGates" => MergeKey("name"),
        "resourceClaims" if !in_container => MergeKey("name"),
        "secrets" if ctx.kind == "ServiceAccount" && path.is_empty() => MergeKey("name"),
        "webhooks"
            if path.is_empty()
                && matches!(
                    ctx.kind.as_str(),
                    "ValidatingWebhookConfiguration" | "MutatingWebhookConfiguration"
                ) =>
        {
            MergeKey("name")
        }
        "hostAliases" | "podIPs" | "hostIPs" => MergeKey("ip"),
        "topologySpreadConstraints" => MergeKey("topologyKey"),
        "conditions" => MergeKey("type"),
        "addresses" if ctx.kind == "Node" && parent == "status" => MergeKey("type"),
        "podCIDRs" if ctx.kind == "Node" => Union,
        _ => Replace,
    }
}

/// Merges `patch` into `original` (both maps at `path`). `inserting` means the original did
/// not have this subtree (nulls are dropped rather than applied).
fn merge_map(
    mut original: Map<String, Value>,
    mut patch: Map<String, Value>,
    ctx: &Ctx,
    path: &mut Vec<String>,
    inserting: bool,
) -> Result<Map<String, Value>, PatchError> {
    if let Some(d) = patch.get(DIRECTIVE).cloned() {
        return match d.as_str() {
            Some("replace") => {
                patch.remove(DIRECTIVE);
                Ok(strip_nulls(patch))
            }
            Some("delete") => Ok(Map::new()),
            _ => Err(bad_directive(&d, &patch)),
        };
    }
    if let Some(keys) = patch.remove(RETAIN_KEYS) {
        let Value::Array(keys) = keys else {
            return Err(PatchError::Refused(
                "invalid patch format of retainKeys".into(),
            ));
        };
        // Fields of the original not listed are dropped; the patch's own fields (including
        // `null` deletions kubectl sends alongside) are then merged as usual.
        let keep: Vec<&str> = keys.iter().filter_map(Value::as_str).collect();
        original.retain(|k, _| keep.contains(&k.as_str()));
    }
    let directive_keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(DELETE_FROM_PRIMITIVE))
        .cloned()
        .collect();
    for dk in directive_keys {
        let field = dk[DELETE_FROM_PRIMITIVE.len()..].to_string();
        let Some(Value::Array(remove)) = patch.remove(&dk) else {
            return Err(PatchError::Invalid(format!("{dk} must be a list")));
        };
        if let Some(Value::Array(list)) = original.get_mut(&field) {
            mixed_element_types(list, &remove)?;
            list.retain(|v| !remove.contains(v));
        }
    }
    let order_keys: Vec<String> = patch
        .keys()
        .filter(|k| k.starts_with(SET_ELEMENT_ORDER))
        .cloned()
        .collect();
    let mut orders = Vec::new();
    for ok in order_keys {
        let field = ok[SET_ELEMENT_ORDER.len()..].to_string();
        let order = match patch.remove(&ok) {
            Some(Value::Array(order)) => order,
            other => {
                return Err(PatchError::Internal(format!(
                    "expected a []interface {{}}, but received a {}",
                    go_type(other.as_ref().unwrap_or(&Value::Null))
                )));
            }
        };
        if let ListStrategy::MergeKey(key) = list_strategy(ctx, path, &field) {
            let patched = patch.get(&field).is_some_and(Value::is_array);
            check_element_order(&order, key, patched)?;
        }
        orders.push((field, order));
    }
    for (k, pv) in patch {
        if k.starts_with('$') {
            return Err(PatchError::Invalid(format!("unknown directive {k:?}")));
        }
        if pv.is_null() {
            original.remove(&k);
            continue;
        }
        let ov = original.remove(&k);
        path.push(k.clone());
        let merged = merge_value(ov, pv, ctx, path, &k, inserting);
        path.pop();
        if let Some(v) = merged? {
            original.insert(k, v);
        }
    }
    for (field, order) in orders {
        if let Some(Value::Array(list)) = original.remove(&field) {
            let strategy = list_strategy(ctx, path, &field);
            let key = match strategy {
                ListStrategy::MergeKey(k) => Some(k),
                _ => None,
            };
            let server_order = list.clone();
            let reordered = order_by(list, &order, &server_order, key);
            original.insert(field, Value::Array(reordered));
        }
    }
    Ok(original)
}

/// Merges one field's patch value into its original value (`None` when it was absent).
/// Returns `None` when the field should not exist afterwards.
fn merge_value(
    ov: Option<Value>,
    pv: Value,
    ctx: &Ctx,
    path: &mut Vec<String>,
    field: &str,
    inserting: bool,
) -> Result<Option<Value>, PatchError> {
    // `path` already ends with `field`; list strategies look at the parent path.
    let parent: Vec<String> = path[..path.len() - 1].to_vec();
    match (ov, pv) {
        (Some(Value::Object(o)), Value::Object(p)) => {
            Ok(Some(Value::Object(merge_map(o, p, ctx, path, inserting)?)))
        }
        (None, Value::Object(p)) => {
            if p.get(DIRECTIVE).and_then(Value::as_str) == Some("delete") {
                return Ok(None);
            }
            Ok(Some(Value::Object(merge_map(
                Map::new(),
                p,
                ctx,
                path,
                true,
            )?)))
        }
        (Some(Value::Array(o)), Value::Array(p)) => {
            let strategy = list_strategy(ctx, &parent, field);
            Ok(Some(Value::Array(merge_list(o, p, strategy, ctx, path)?)))
        }
        (None, Value::Array(p)) => {
            let strategy = list_strategy(ctx, &parent, field);
            Ok(Some(Value::Array(merge_list(
                Vec::new(),
                p,
                strategy,
                ctx,
                path,
            )?)))
        }
        (_, pv) => Ok(Some(if inserting { strip_nulls_value(pv) } else { pv })),
    }
}

fn strip_nulls_value(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(strip_nulls(m)),
        other => other,
    }
}

fn strip_nulls(m: Map<String, Value>) -> Map<String, Value> {
    m.into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k, strip_nulls_value(v)))
        .collect()
}

fn merge_list(
    original: Vec<Value>,
    patch: Vec<Value>,
    strategy: ListStrategy,
    ctx: &Ctx,
    path: &mut Vec<String>,
) -> Result<Vec<Value>, PatchError> {
    match strategy {
        ListStrategy::Replace => Ok(patch
            .into_iter()
            .filter(|v| !is_bare_directive(v))
            .map(strip_nulls_value)
            .collect()),
        ListStrategy::Union => {
            if patch.is_empty() {
                return Ok(original);
            }
            let server_order = original.clone();
            let mut merged = original;
            for p in &patch {
                if !merged.contains(p) {
                    merged.push(p.clone());
                }
            }
            Ok(order_by(merged, &patch, &server_order, None))
        }
        ListStrategy::MergeKey(key) => {
            if patch.is_empty() {
                return Ok(original);
            }
            mixed_element_types(&original, &patch)?;
            if original.is_empty() && patch.iter().any(|p| !p.is_object()) {
                // Go takes such a list as the patch has it; decoding the result refuses it.
                return Ok(patch);
            }
            let server_order = original.clone();
            let mut merged = original;
            let mut items = Vec::new();
            for p in patch {
                let Value::Object(pm) = p else {
                    return Err(PatchError::Invalid(format!(
                        "the list {} holds objects merged by {key:?}, not {p}",
                        path.join(".")
                    )));
                };
                match pm.get(DIRECTIVE).and_then(Value::as_str) {
                    Some("replace") => {
                        // The whole list is replaced by the other patch elements.
                        merged = Vec::new();
                        continue;
                    }
                    Some("delete") => {
                        let Some(kv) = pm.get(key) else {
                            return Err(missing_key(&pm, key));
                        };
                        merged.retain(|o| o.get(key) != Some(kv));
                        continue;
                    }
                    Some("merge") | None => {}
                    Some(_) => return Err(bad_directive(&pm[DIRECTIVE], &pm)),
                }
                items.push(pm);
            }
            let mut patch_order = Vec::new();
            for mut pm in items {
                pm.remove(DIRECTIVE);
                let Some(kv) = pm.get(key).cloned() else {
                    return Err(missing_key(&pm, key));
                };
                patch_order.push(Value::Object(pm.clone()));
                match merged.iter().position(|o| o.get(key) == Some(&kv)) {
                    Some(i) => {
                        let o = match merged[i].take() {
                            Value::Object(o) => o,
                            _ => Map::new(),
                        };
                        merged[i] = Value::Object(merge_map(o, pm, ctx, path, false)?);
                    }
                    None => {
                        merged.push(Value::Object(merge_map(Map::new(), pm, ctx, path, true)?));
                    }
                }
            }
            Ok(order_by(merged, &patch_order, &server_order, Some(key)))
        }
    }
}

/// A list element that is only a `{"$patch": ...}` directive.
fn is_bare_directive(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|m| m.len() == 1 && m.contains_key(DIRECTIVE))
}

/// The identity of a list element for ordering: its merge key value, or itself.
fn ident<'a>(v: &'a Value, key: Option<&str>) -> Option<&'a Value> {
    match key {
        Some(k) => v.get(k),
        None => Some(v),
    }
}

fn position_in(list: &[Value], v: &Value, key: Option<&str>) -> Option<usize> {
    let id = ident(v, key)?;
    list.iter().position(|x| ident(x, key) == Some(id))
}

/// apimachinery's `normalizeElementOrder`: elements named by `patch_order` come in that
/// order, the others (server-only) in `server_order`; the two runs are merged so that an
/// element goes first only when both are in the server list and it came first there.
fn order_by(
    merged: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    key: Option<&str>,
) -> Vec<Value> {
    let (mut patch_items, mut server_only): (Vec<Value>, Vec<Value>) = merged
        .into_iter()
        .partition(|v| position_in(patch_order, v, key).is_some());
    patch_items.sort_by_key(|v| position_in(patch_order, v, key).unwrap_or(usize::MAX));
    server_only.sort_by_key(|v| position_in(server_order, v, key).unwrap_or(usize::MAX));
    let (mut left, mut right) = (
        server_only.into_iter().peekable(),
        patch_items.into_iter().peekable(),
    );
    let mut out = Vec::new();
    loop {
        match (left.peek(), right.peek()) {
            (None, None) => break,
            (Some(_), None) => out.extend(left.next()),
            (None, Some(_)) => out.extend(right.next()),
            (Some(l), Some(r)) => {
                let li = position_in(server_order, l, key);
                let ri = position_in(server_order, r, key);
                match (li, ri) {
                    (Some(a), Some(b)) if a < b => out.extend(left.next()),
                    _ => out.extend(right.next()),
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployment() -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "finalizers": ["a"], "labels": {"app": "d", "tier": "web"}},
            "spec": {"replicas": 1, "template": {"spec": {
                "containers": [
                    {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                     "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                    {"name": "sidecar", "image": "side:1"}
                ],
                "volumes": [{"name": "data", "emptyDir": {}}],
                "tolerations": [{"key": "k", "operator": "Exists"}]
            }}}
        })
    }

    fn apply(target: &mut Value, patch: Value) {
        strategic_merge(target, &patch, "apps", "Deployment").unwrap();
    }

    #[test]
    fn containers_and_env_merge_by_name() {
        let mut d = deployment();
        apply(
            &mut d,
            json!({"spec": {"template": {"spec": {"containers": [
                {"name": "app", "image": "app:2", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}]}
            ]}}}}),
        );
        let cs = &d["spec"]["template"]["spec"]["containers"];
        assert_eq!(cs.as_array().unwrap().len(), 2);
        assert_eq!(cs[0]["image"], "app:2");
        assert_eq!(
            cs[0]["ports"],
            json!([{"containerPort": 80, "protocol": "TCP"}])
        );
        // matching items keep their place, new ones join the patch run
        assert_eq!(
            cs[0]["env"],
            json!([{"name": "A", "value": "1"}, {"name": "B", "value": "3"}, {"name": "C", "value": "4"}])
        );
        assert_eq!(cs[1]["name"], "sidecar");
    }

    #[test]
    fn new_containers_go_first_and_other_lists_replace() {
        let mut d = deployment();
        apply(
            &mut d,
            json!({"spec": {"template": {"spec": {
                "containers": [{"name": "new", "image": "redis"}],
                "tolerations": [{"key": "x", "operator": "Exists"}]
            }}}}),
        );
        let spec = &d["spec"]["template"]["spec"];
        let names: Vec<&str> = spec["containers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["new", "app", "sidecar"]);
        assert_eq!(
            spec["tolerations"],
            json!([{"key": "x", "operator": "Exists"}])
        );
    }

    #[test]
    fn directives() {
        let mut d = deployment();
        apply(
            &mut d,
            json!({
                "metadata": {"labels": {"tier": null}, "finalizers": ["b"], "$deleteFromPrimitiveList/finalizers": ["a"]},
                "spec": {"template": {"spec": {
                    "containers": [{"name": "sidecar", "$patch": "delete"}],
                    "volumes": [{"name": "data", "$retainKeys": ["name", "configMap"], "configMap": {"name": "c"}}],
                }}}
            }),
        );
        assert_eq!(d["metadata"]["labels"], json!({"app": "d"}));
        assert_eq!(d["metadata"]["finalizers"], json!(["b"]));
        let spec = &d["spec"]["template"]["spec"];
        assert_eq!(spec["containers"].as_array().unwrap().len(), 1);
        assert_eq!(
            spec["volumes"],
            json!([{"name": "data", "configMap": {"name": "c"}}])
        );

        // kubectl's switch of a Deployment to Recreate
        let mut d = deployment();
        d["spec"]["strategy"] =
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%"}});
        apply(
            &mut d,
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": null}}}),
        );
        assert_eq!(d["spec"]["strategy"], json!({"type": "Recreate"}));

        let mut d = deployment();
        apply(
            &mut d,
            json!({"spec": {"template": {"spec": {"containers": [
                {"$patch": "replace"}, {"name": "only", "image": "x"}
            ]}}}}),
        );
        assert_eq!(
            d["spec"]["template"]["spec"]["containers"],
            json!([{"name": "only", "image": "x"}])
        );

        let mut d = deployment();
        apply(
            &mut d,
            json!({"spec": {"template": {"$patch": "replace", "spec": {"containers": []}}}}),
        );
        assert_eq!(d["spec"]["template"], json!({"spec": {"containers": []}}));
    }

    #[test]
    fn set_element_order_and_finalizer_union() {
        let mut d = deployment();
        apply(
            &mut d,
            json!({"metadata": {"finalizers": ["z"]}, "spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}],
                "containers": [{"name": "app", "image": "app:3"}]
            }}}}),
        );
        assert_eq!(d["metadata"]["finalizers"], json!(["z", "a"]));
        let cs = &d["spec"]["template"]["spec"]["containers"];
        assert_eq!(cs[0]["name"], "sidecar");
        assert_eq!(cs[1]["image"], "app:3");
    }

    #[test]
    fn service_ports_conditions_and_errors() {
        let mut svc = json!({"spec": {"ports": [{"port": 80, "targetPort": 8080}, {"port": 443}]},
            "status": {"conditions": [{"type": "A", "status": "True"}]}});
        strategic_merge(
            &mut svc,
            &json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]},
                "status": {"conditions": [{"type": "B", "status": "False"}]}}),
            "",
            "Service",
        )
        .unwrap();
        assert_eq!(
            svc["spec"]["ports"],
            json!([{"port": 80, "targetPort": 9090}, {"port": 443}])
        );
        assert_eq!(svc["status"]["conditions"].as_array().unwrap().len(), 2);

        let mut d = deployment();
        let before = d.clone();
        let err = strategic_merge(
            &mut d,
            &json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}),
            "apps",
            "Deployment",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("does not contain declared merge key: name"),
            "{err}"
        );
        assert_eq!(d, before);
    }

    #[test]
    fn custom_resources_replace_lists() {
        let mut cr = json!({"spec": {"containers": [{"name": "a"}], "m": {"x": 1}}});
        strategic_merge(
            &mut cr,
            &json!({"spec": {"containers": [{"name": "b"}], "m": {"y": 2}}}),
            "cache.example.com",
            "Memcached",
        )
        .unwrap();
        assert_eq!(
            cr,
            json!({"spec": {"containers": [{"name": "b"}], "m": {"x": 1, "y": 2}}})
        );
    }
}
