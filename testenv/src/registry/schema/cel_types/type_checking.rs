//! The type check kube-apiserver's policy status controller runs on a
//! ValidatingAdmissionPolicy, whose findings become `status.typeChecking.expressionWarnings`.
//!
//! The kinds checked are those the policy's `matchConstraints.resourceRules` name exactly: a
//! rule with a wildcard group or version is given up, wildcard resources and subresources
//! are skipped, each group/version/resource is mapped to its kind (at most ten kinds, sorted
//! by group, version and kind). Each validation's `expression` and `messageExpression` is
//! then checked once per kind with `object` and `oldObject` of that kind's schema, `params`
//! of the `paramKind`'s schema (undeclared when that kind has no schema), `authorizer`
//! always declared and no result type wanted. A kind whose expression has issues adds `<group>/<version>,
//! Kind=<kind>: <cel-go issues>` and a newline; the kinds' texts are joined by newlines.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value, json};

use super::admission::{namespace_decl, request_decl, variable_type};
use super::check::check;
use super::decl::{Decl, Shape, of_schema};
use super::types::{Type, opaque};
use super::{checking_env, issue};
use crate::support::openapi_schemas;

/// The most kinds one policy is checked against, as in the real checker.
const MAX_TYPES_TO_CHECK: usize = 10;

/// What the checker learns of the served kinds: the real server's REST mapper and schema
/// resolver.
pub trait Kinds {
    /// The kind served as `group`/`version`/`resource`, if it is served.
    fn kind_for(&self, group: &str, version: &str, resource: &str) -> Option<String>;
    /// The OpenAPI schema of a kind (its `$ref`s may name the built-in component schemas).
    fn schema_of(&self, group: &str, version: &str, kind: &str) -> Option<Value>;
}

/// One entry of `status.typeChecking.expressionWarnings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionWarning {
    /// The field checked: `spec.validations[0].expression`.
    pub field_ref: String,
    /// The issues, per kind.
    pub warning: String,
}

type Gvk = (String, String, String);

fn strings(rule: &Value, key: &str) -> Vec<String> {
    rule[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The kinds a policy is checked against, sorted by group, version and kind.
fn types_to_check(spec: &Value, kinds: &dyn Kinds) -> Vec<Gvk> {
    let mut found = BTreeSet::new();
    let rules = spec["matchConstraints"]["resourceRules"].as_array();
    for rule in rules.into_iter().flatten() {
        let mut groups = strings(rule, "apiGroups");
        let mut versions = strings(rule, "apiVersions");
        if groups.iter().chain(&versions).any(|s| s.contains('*')) {
            continue;
        }
        let mut resources: Vec<String> = strings(rule, "resources")
            .into_iter()
            .filter(|r| !r.contains(['*', '/']))
            .collect();
        groups.sort();
        versions.sort();
        resources.sort();
        let mut count = 0;
        for g in &groups {
            for v in &versions {
                for r in &resources {
                    let Some(kind) = kinds.kind_for(g, v, r) else {
                        continue;
                    };
                    found.insert((g.clone(), v.clone(), kind));
                    count += 1;
                    if count == MAX_TYPES_TO_CHECK {
                        return found.into_iter().collect();
                    }
                }
            }
        }
    }
    found.into_iter().collect()
}

/// `schema` with every `$ref` to a built-in component schema inlined (a schema met again
/// below itself becomes a bare object, as the real resolver makes it) and the built-in
/// `int-or-string` format marked as the extension.
fn inline(schema: &Value, visiting: &mut Vec<String>) -> Value {
    let reference = schema.get("$ref").and_then(Value::as_str).or_else(|| {
        let all = schema.get("allOf").and_then(Value::as_array)?;
        all.iter()
            .find_map(|a| a.get("$ref").and_then(Value::as_str))
    });
    let name = reference.and_then(|r| r.rsplit('/').next());
    let target = name.and_then(openapi_schemas::named);
    let (body, pushed) = match (name, target) {
        (Some(name), Some(_)) if visiting.iter().any(|v| v == name) => {
            return json!({"type": "object"});
        }
        (Some(name), Some(target)) => {
            visiting.push(name.to_string());
            (target, true)
        }
        _ => (schema, false),
    };
    let mut out: Map<String, Value> = body.as_object().cloned().unwrap_or_default();
    if out.get("format").and_then(Value::as_str) == Some("int-or-string") {
        out.insert("x-kubernetes-int-or-string".into(), Value::Bool(true));
    }
    if let Some(props) = body.get("properties").and_then(Value::as_object) {
        let props: Map<String, Value> = props
            .iter()
            .map(|(k, p)| (k.clone(), inline(p, visiting)))
            .collect();
        out.insert("properties".into(), Value::Object(props));
    }
    for key in ["additionalProperties", "items"] {
        if let Some(sub) = body.get(key).filter(|s| s.is_object()) {
            out.insert(key.into(), inline(sub, visiting));
        }
    }
    if pushed {
        visiting.pop();
    }
    Value::Object(out)
}

/// The declaration of a kind's schema at the root of a resource.
fn decl_of(schema: &Value, kind: &str) -> Option<Arc<Decl>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Option<Arc<Decl>>>>> = OnceLock::new();
    let key = format!("{kind}\n{schema}");
    let cache = CACHE.get_or_init(Mutex::default);
    let lock = || {
        cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(found) = lock().get(&key) {
        return found.clone();
    }
    let decl = of_schema(&inline(schema, &mut Vec::new()), true, kind);
    let mut cache = lock();
    if cache.len() >= 256 {
        cache.clear();
    }
    cache.insert(key, decl.clone());
    decl
}

/// cel-go's issues for `source` with the variables `vars`, or its result type.
fn checked(source: &str, vars: &[(String, Type)]) -> Result<Type, String> {
    let program = checking_env()
        .compile(source)
        .map_err(|e| e.to_string().replace("\n| ", "\n | "))?;
    let vars: Vec<(&str, Type)> = vars.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let expr = program.expression();
    let (types, errors) = check(expr, &vars);
    if errors.is_empty() {
        return Ok(types.type_of(expr.id));
    }
    let info = program.source_info();
    let mut found: Vec<(u32, String)> = errors
        .iter()
        .map(|e| {
            let offset = info.offset_for(e.id).map(|(s, _)| s);
            let text = issue(source, offset, &e.message);
            (offset.unwrap_or(u32::MAX), text)
        })
        .collect();
    found.sort_by_key(|(offset, _)| *offset);
    let text: Vec<String> = found.into_iter().map(|(_, t)| t).collect();
    Err(text.join("\n"))
}

fn object_decl(fields: &[(String, Type)]) -> Type {
    let fields = fields
        .iter()
        .map(|(n, t)| {
            let decl = Decl {
                shape: Shape::Scalar(t.clone()),
                max_elements: 0,
                min_size: 0,
                name: String::new(),
            };
            (n.clone(), Arc::new(decl))
        })
        .collect();
    Arc::new(Decl {
        shape: Shape::Object(fields),
        max_elements: 0,
        min_size: 0,
        name: "kubernetes.variables".into(),
    })
    .ty()
}

/// The variables of the check against one kind: `object` of type `object`, `params` when
/// the policy has a `paramKind`, and the policy's variables, each typed from its expression.
fn roots(spec: &Value, object: Type, params: Option<Type>) -> Vec<(String, Type)> {
    let mut vars = vec![
        ("object".to_string(), object.clone()),
        ("oldObject".to_string(), object),
        ("namespaceObject".to_string(), namespace_decl().ty()),
        ("request".to_string(), request_decl().ty()),
        (
            "authorizer".to_string(),
            Type::Opaque(opaque::AUTHORIZER, vec![]),
        ),
        (
            "authorizer.requestResource".to_string(),
            Type::Opaque(opaque::RESOURCE_CHECK, vec![]),
        ),
    ];
    vars.extend(params.map(|p| ("params".to_string(), p)));
    let mut fields: Vec<(String, Type)> = Vec::new();
    for v in spec["variables"].as_array().into_iter().flatten() {
        let mut with = vars.clone();
        with.push(("variables".into(), object_decl(&fields)));
        let source = v["expression"].as_str().unwrap_or_default();
        let t = checked(source, &with).unwrap_or(Type::Dyn);
        let name = v["name"].as_str().unwrap_or_default().to_string();
        fields.retain(|(n, _)| *n != name);
        fields.push((name, variable_type(&t)));
    }
    vars.push(("variables".into(), object_decl(&fields)));
    vars
}

/// The group and version of an `apiVersion`.
fn group_version(api_version: &str) -> (&str, &str) {
    api_version.split_once('/').unwrap_or(("", api_version))
}

/// The warnings the real type checker finds in the policy `spec`, in its order.
pub fn check_policy(spec: &Value, kinds: &dyn Kinds) -> Vec<ExpressionWarning> {
    let gvks = types_to_check(spec, kinds);
    // `params` is declared only when the paramKind's schema is found, as the real server
    // does: a custom paramKind leaves it undeclared.
    let params = spec["paramKind"].is_object().then(|| {
        let (group, version) =
            group_version(spec["paramKind"]["apiVersion"].as_str().unwrap_or(""));
        let kind = spec["paramKind"]["kind"].as_str().unwrap_or("");
        let schema = kinds.schema_of(group, version, kind)?;
        Some(decl_of(&schema, kind).map_or(Type::Dyn, |d| d.ty()))
    });
    let params = params.flatten();
    let envs: Vec<(String, Vec<(String, Type)>)> = gvks
        .iter()
        .filter_map(|(g, v, k)| {
            let decl = decl_of(&kinds.schema_of(g, v, k)?, k);
            let object = decl.map_or(Type::Dyn, |d| d.ty());
            Some((
                format!("{g}/{v}, Kind={k}"),
                roots(spec, object, params.clone()),
            ))
        })
        .collect();
    super::super::cel::on_large_stack(|| validation_warnings(spec, &envs))
}

/// The warnings of each validation's expression and message expression, checked in every
/// kind's variables `envs` (named by their group, version and kind).
fn validation_warnings(
    spec: &Value,
    envs: &[(String, Vec<(String, Type)>)],
) -> Vec<ExpressionWarning> {
    let check_all = |source: &str| -> Option<String> {
        let texts: Vec<String> = envs
            .iter()
            .filter_map(|(gvk, vars)| checked(source, vars).err().map(|e| format!("{gvk}: {e}\n")))
            .collect();
        (!texts.is_empty()).then(|| texts.join("\n"))
    };
    let mut warnings = Vec::new();
    for (i, v) in spec["validations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for key in ["expression", "messageExpression"] {
            let source = v[key].as_str().unwrap_or_default();
            if key == "messageExpression" && source.is_empty() {
                continue;
            }
            if let Some(warning) = check_all(source) {
                warnings.push(ExpressionWarning {
                    field_ref: format!("spec.validations[{i}].{key}"),
                    warning,
                });
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Serves ConfigMaps and Deployments, and one custom kind without a schema.
    struct Fake;

    impl Kinds for Fake {
        fn kind_for(&self, group: &str, version: &str, resource: &str) -> Option<String> {
            match (group, version, resource) {
                ("", "v1", "configmaps") => Some("ConfigMap".into()),
                ("apps", "v1", "deployments") => Some("Deployment".into()),
                ("example.dev", "v1", "things") => Some("Thing".into()),
                _ => None,
            }
        }

        fn schema_of(&self, group: &str, version: &str, kind: &str) -> Option<Value> {
            openapi_schemas::of_kind(group, version, kind).cloned()
        }
    }

    fn policy(rule: Value, validations: Value) -> Value {
        json!({"matchConstraints": {"resourceRules": [rule]}, "validations": validations})
    }

    fn deployments() -> Value {
        json!({"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["deployments"]})
    }

    #[test]
    fn a_type_error_is_reported_per_field_with_its_kind() {
        let spec = policy(
            deployments(),
            json!([
                {"expression": "object.spec.replicas > 'a'"},
                {"expression": "object.spec.replicas > 1", "messageExpression": "'x' + object.spec.nope"},
            ]),
        );
        let warnings = check_policy(&spec, &Fake);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert_eq!(warnings[0].field_ref, "spec.validations[0].expression");
        assert_eq!(
            warnings[0].warning,
            "apps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for \
             '_>_' applied to '(int, string)'\n | object.spec.replicas > 'a'\n \
             | .....................^\n"
        );
        assert_eq!(
            warnings[1].field_ref,
            "spec.validations[1].messageExpression"
        );
        assert!(warnings[1].warning.contains("undefined field 'nope'"));
    }

    #[test]
    fn correct_expressions_have_no_warnings() {
        let spec = policy(
            deployments(),
            json!([{
                "expression": "object.spec.template.spec.containers.all(c, c.image != '') && object.metadata.labels['a'] == 'b'",
                "messageExpression": "'name ' + object.metadata.name"
            }]),
        );
        assert_eq!(check_policy(&spec, &Fake), vec![]);
    }

    #[test]
    fn several_kinds_are_checked_in_order_and_joined() {
        let rule = json!({"apiGroups": ["apps", ""], "apiVersions": ["v1"],
            "resources": ["deployments", "configmaps", "*", "deployments/scale"]});
        let spec = policy(
            rule,
            json!([{"expression": "object.spec.replicas > 0"},
            {"expression": "object.metadata.name > 1"}]),
        );
        let warnings = check_policy(&spec, &Fake);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].warning.starts_with("/v1, Kind=ConfigMap: "));
        assert!(!warnings[0].warning.contains("Deployment"));
        let parts: Vec<&str> = warnings[1].warning.split("\n\n").collect();
        assert_eq!(parts.len(), 2, "{:?}", warnings[1].warning);
        assert!(parts[0].starts_with("/v1, Kind=ConfigMap: "));
        assert!(parts[1].starts_with("apps/v1, Kind=Deployment: "));
    }

    #[test]
    fn wildcards_and_kinds_without_schemas_are_not_checked() {
        let bad = json!([{"expression": "object.spec.replicas > 'a'"}]);
        for rule in [
            json!({"apiGroups": ["*"], "apiVersions": ["v1"], "resources": ["deployments"]}),
            json!({"apiGroups": ["apps"], "apiVersions": ["*"], "resources": ["deployments"]}),
            json!({"apiGroups": ["apps"], "apiVersions": ["v1"], "resources": ["*"]}),
            json!({"apiGroups": ["example.dev"], "apiVersions": ["v1"], "resources": ["things"]}),
        ] {
            assert_eq!(check_policy(&policy(rule, bad.clone()), &Fake), vec![]);
        }
    }

    #[test]
    fn params_and_variables_are_typed() {
        let mut spec = policy(
            deployments(),
            json!([{"expression": "params.data['x'] == object.spec.replicas"},
                {"expression": "variables.r > 'a'"},
                {"expression": "params.data['x'] == object.metadata.name"}]),
        );
        spec["paramKind"] = json!({"apiVersion": "v1", "kind": "ConfigMap"});
        spec["variables"] = json!([{"name": "r", "expression": "object.spec.replicas"}]);
        let warnings = check_policy(&spec, &Fake);
        let fields: Vec<&str> = warnings.iter().map(|w| w.field_ref.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.validations[0].expression",
                "spec.validations[1].expression"
            ]
        );
        assert!(
            warnings[0]
                .warning
                .contains("'_==_' applied to '(string, int)'")
        );
        assert!(
            warnings[1]
                .warning
                .contains("'_>_' applied to '(int, string)'")
        );
    }

    #[test]
    fn a_param_kind_without_a_schema_leaves_params_undeclared() {
        let mut spec = policy(
            deployments(),
            json!([{"expression": "params.spec.size > 1"}]),
        );
        spec["paramKind"] = json!({"apiVersion": "example.dev/v1", "kind": "Thing"});
        let warnings = check_policy(&spec, &Fake);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .warning
                .contains("undeclared reference to 'params' (in container '')")
        );
    }
}
