//! Which webhooks of a request's configurations are called: their rules, then their
//! namespaceSelector (the namespace's labels) and objectSelector, as kube-apiserver's
//! webhook matchers decide.

use std::sync::Arc;

use serde_json::Value;

use super::config::Hook;
use super::dispatch::Matched;
use super::review::Attributes;
use crate::support::resource::ResourceDef;
use crate::support::status::ApiError;

/// Looks up a stored Namespace by name.
pub type Namespaces<'a> = &'a (dyn Fn(&str) -> Option<Arc<Value>> + Sync);

/// The labels the namespaceSelector is matched against: the object's own for Namespaces,
/// `Ok(None)` for other cluster-scoped objects (every selector matches them), the
/// namespace's for namespaced ones; `Err` (404) when that namespace does not exist.
fn namespace_labels(
    namespaces: Namespaces<'_>,
    attrs: &Attributes,
) -> Result<Option<Value>, ApiError> {
    let def = &attrs.def;
    if def.group.is_empty() && def.plural == "namespaces" {
        let own = attrs.object.as_ref().or(attrs.old_object.as_ref());
        return Ok(Some(
            own.map_or(Value::Null, |o| o["metadata"]["labels"].clone()),
        ));
    }
    if !def.namespaced || attrs.namespace.is_empty() {
        return Ok(None);
    }
    match namespaces(&attrs.namespace) {
        Some(n) => Ok(Some(n["metadata"]["labels"].clone())),
        None => Err(ApiError::namespace_not_found(&attrs.namespace)),
    }
}

/// The webhooks of `hooks` that apply to `attrs`, each with the version it is called in.
/// A webhook whose rules cover the request and whose namespaceSelector is not empty needs
/// the namespace: a missing one is a 404 `namespaces "<ns>" not found`, as on the real
/// server (a write in a missing namespace is refused before; a CONNECT is not).
pub fn select(
    namespaces: Namespaces<'_>,
    hooks: &[Hook],
    attrs: &Attributes,
    versions: &[Arc<ResourceDef>],
) -> Result<Vec<Matched>, ApiError> {
    let sub = attrs.subresource.as_deref();
    let mut labels: Option<Result<Option<Value>, ApiError>> = None;
    let mut out = Vec::new();
    for hook in hooks {
        let Some(as_def) = hook.matching_version(attrs.operation, &attrs.def, sub, versions) else {
            continue;
        };
        if !hook.selects_every_namespace() {
            let ns = labels
                .get_or_insert_with(|| namespace_labels(namespaces, attrs))
                .clone()?;
            if !hook.namespace_matches(ns.as_ref()) {
                continue;
            }
        }
        if !hook.object_matches(attrs.object.as_ref(), attrs.old_object.as_ref()) {
            continue;
        }
        out.push((hook.clone(), as_def));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::webhooks::config::Operation;
    use crate::registry::Registry;
    use crate::support::user::User;
    use serde_json::json;

    fn attrs(def: Arc<ResourceDef>, namespace: &str, object: Option<Value>) -> Attributes {
        Attributes {
            operation: Operation::Connect,
            def,
            subresource: Some("exec".into()),
            namespace: namespace.into(),
            name: "p".into(),
            object,
            old_object: None,
            dry_run: false,
            options: Value::Null,
            user: User::admin(),
            authorizer: None,
        }
    }

    fn hook(extra: Value) -> Hook {
        let mut h = json!({"name": "h.example.com", "rules": [{"operations": ["CONNECT"],
            "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods/exec"]}]});
        for (k, v) in extra.as_object().into_iter().flatten() {
            h[k] = v.clone();
        }
        Hook::parse(&h)
    }

    #[test]
    fn selectors_on_a_connect() {
        let pods = Registry::with_builtins().get("", "v1", "pods").unwrap();
        let ns = |name: &str| {
            (name == "t1")
                .then(|| Arc::new(json!({"metadata": {"name": "t1", "labels": {"team": "a"}}})))
        };
        let options =
            Some(json!({"kind": "PodExecOptions", "apiVersion": "v1", "command": ["ls"]}));
        let names = |hooks: &[Hook], a: &Attributes| {
            select(&ns, hooks, a, &[])
                .map(|m| m.iter().map(|(h, _)| h.name.clone()).collect::<Vec<_>>())
        };
        let plain = hook(json!({}));
        let team_a = hook(
            json!({"name": "a.example.com", "namespaceSelector": {"matchLabels": {"team": "a"}}}),
        );
        let team_b = hook(
            json!({"name": "b.example.com", "namespaceSelector": {"matchLabels": {"team": "b"}}}),
        );
        let hooks = [plain.clone(), team_a, team_b];
        assert_eq!(
            names(&hooks, &attrs(pods.clone(), "t1", options.clone())).unwrap(),
            ["h.example.com", "a.example.com"]
        );
        // A missing namespace only matters to a webhook that selects namespaces.
        assert_eq!(
            names(
                std::slice::from_ref(&plain),
                &attrs(pods.clone(), "gone", options.clone())
            )
            .unwrap(),
            ["h.example.com"]
        );
        let e = names(&hooks, &attrs(pods.clone(), "gone", options.clone())).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (404, "namespaces \"gone\" not found")
        );
        // The options object has no labels: only an empty objectSelector lets it through,
        // even one asking for a label to be absent.
        for selector in [
            json!({"matchLabels": {"a": "b"}}),
            json!({"matchExpressions": [{"key": "a", "operator": "DoesNotExist"}]}),
        ] {
            let h = hook(json!({"objectSelector": selector}));
            assert!(
                names(&[h], &attrs(pods.clone(), "t1", options.clone()))
                    .unwrap()
                    .is_empty()
            );
        }
        let h = hook(json!({"objectSelector": {}}));
        assert_eq!(names(&[h], &attrs(pods, "t1", options)).unwrap().len(), 1);
    }
}
