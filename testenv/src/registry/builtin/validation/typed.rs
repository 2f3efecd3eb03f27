//! The typed decoding of a strategic merge patch's result: the real server converts the
//! patched map into the kind's Go struct, and a value of the wrong JSON type is a 422 that
//! names the patch (`patch: Invalid value: "map[...]": unrecognized type: int32`), before
//! any validation. The types come from the built-in OpenAPI schemas (how an object is then
//! written as Go writes it is [`super::go_shape`]'s).

use serde_json::{Map, Value, json};

use crate::openapi::builtin::{component_prefix, schemas};
use crate::support::go_decode::Node;
use crate::support::go_time::{self, Precision};
use crate::support::go_types;
use crate::support::quantity;
use crate::support::status::ApiError;

pub(super) const QUANTITY: &str = "io.k8s.apimachinery.pkg.api.resource.Quantity";
const QUANTITY_RULE: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/// The schema a property schema stands for, following `$ref` and `allOf: [{$ref}]`, with
/// the component name when it is one.
pub(super) fn resolve(schema: &Value) -> (Option<&'static str>, &Value) {
    let reference = schema["$ref"]
        .as_str()
        .or_else(|| schema["allOf"][0]["$ref"].as_str());
    match reference.and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => match schemas().get_key_value(name) {
            Some((k, v)) => (Some(k.as_str()), v),
            None => (None, &Value::Null),
        },
        None => (None, schema),
    }
}

/// The kind of a decoded JSON value as Go's reflection names it.
fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::String(_) => "string",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::Object(_) => "map",
        Value::Array(_) => "slice",
        Value::Null => "interface",
    }
}

/// The Go type of a scalar schema.
fn go_scalar(schema: &Value) -> Option<&'static str> {
    match (schema["type"].as_str()?, schema["format"].as_str()) {
        ("string", Some("byte" | "date-time")) => None,
        ("string", _) => Some("string"),
        ("boolean", _) => Some("bool"),
        ("integer", Some("int32")) => Some("int32"),
        ("integer", _) => Some("int64"),
        ("number", _) => Some("float64"),
        _ => None,
    }
}

/// Why a scalar value does not convert to the Go type `target`, in the converter's words.
fn scalar_error(value: &Value, target: &str) -> Option<String> {
    let source = go_kind(value);
    let numeric = |t: &str| matches!(t, "int32" | "int64" | "float64");
    match value {
        Value::Null => None,
        _ if source == target => None,
        Value::Number(n) if numeric(target) => {
            // A whole number fits any numeric type; a fraction does not fit an integer.
            let whole = n.as_f64().is_some_and(|f| f.fract() == 0.0);
            (target != "float64" && !whole).then(|| format!("cannot convert {source} to {target}"))
        }
        _ if source == "int64" && (numeric(target) || target == "string") => {
            Some(format!("cannot convert {source} to {target}"))
        }
        _ => Some(format!("unrecognized type: {target}")),
    }
}

/// The first value of `value` that does not decode into `schema`.
fn first_error(value: &Value, schema: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let (name, schema) = resolve(schema);
    if name == Some(QUANTITY) {
        return matches!(value, Value::Bool(_) | Value::Object(_) | Value::Array(_))
            .then(|| QUANTITY_RULE.to_string());
    }
    if schema.get("oneOf").is_some() || schema["x-kubernetes-preserve-unknown-fields"] == true {
        return None;
    }
    match schema["type"].as_str() {
        Some("object") => {
            let properties = schema["properties"].as_object();
            let values = schema.get("additionalProperties");
            let Value::Object(map) = value else {
                return match (properties, values) {
                    (Some(_), _) => Some(format!("cannot restore struct from: {}", go_kind(value))),
                    (None, Some(_)) => Some(format!("cannot restore map from {}", go_kind(value))),
                    (None, None) => None,
                };
            };
            object_error(map, properties, values)
        }
        Some("array") => match value {
            Value::Array(items) => items.iter().find_map(|v| first_error(v, &schema["items"])),
            other => Some(format!("cannot restore slice from {}", go_kind(other))),
        },
        _ => go_scalar(schema).and_then(|t| scalar_error(value, t)),
    }
}

fn object_error(
    map: &Map<String, Value>,
    properties: Option<&Map<String, Value>>,
    values: Option<&Value>,
) -> Option<String> {
    map.iter().find_map(|(k, v)| {
        match (properties.and_then(|p| p.get(k)), values) {
            (Some(s), _) => first_error(v, s),
            (None, Some(s)) if properties.is_none() => first_error(v, s),
            // Unknown fields are dropped by the decoder.
            _ => None,
        }
    })
}

/// The Go type a resolved schema stands for as `reflect` prints it (`int32`, `[]string`,
/// `map[string]string`, `v1.ObjectMeta`), for the decoder's messages. The OpenAPI schemas do
/// not name scalar types (`v1.Protocol`): [`Place::error`] puts the recorded name in.
fn go_type(name: Option<&str>, schema: &Value) -> String {
    if schema.get("properties").is_some() {
        let mut parts = name.unwrap_or_default().rsplit('.');
        let (kind, package) = (parts.next().unwrap_or_default(), parts.next());
        return package.map_or_else(|| kind.to_string(), |p| format!("{p}.{kind}"));
    }
    let element = |field: &str| {
        let (name, schema) = resolve(&schema[field]);
        go_type(name, schema)
    };
    match (schema["type"].as_str(), schema["format"].as_str()) {
        (Some("object"), _) if schema.get("additionalProperties").is_some() => {
            format!("map[string]{}", element("additionalProperties"))
        }
        (Some("array"), _) => format!("[]{}", element("items")),
        (Some("string"), Some("byte")) => "[]uint8".into(),
        (Some("boolean"), _) => "bool".into(),
        (Some("integer"), Some("int32")) => "int32".into(),
        (Some("integer"), _) => "int64".into(),
        (Some("number"), _) => "float64".into(),
        _ => "string".into(),
    }
}

/// Whether `text` (a JSON number as written) is an integer of the Go type `target`, as
/// `strconv.ParseInt` and the overflow check of Go's decoder see it.
fn fits_integer(text: &str, target: &str) -> bool {
    match target {
        "int32" => text.parse::<i32>().is_ok(),
        _ => text.parse::<i64>().is_ok(),
    }
}

/// Where a value sits for the decoder's message: the innermost Go struct holding the field
/// and the field's path from the object's root (no indices or map keys, as Go prints it).
struct Place<'a> {
    parent: &'a str,
    path: &'a str,
    /// The named scalar type the field's values have (`v1.Protocol`), if any.
    named: Option<&'a str>,
}

impl Place<'_> {
    /// The decoder's message for a `value` that does not fit the type `ty` (as the schema
    /// describes it: the field's named scalar type takes the place of its underlying one).
    fn error(&self, value: &str, ty: &str) -> String {
        let ty = match self.named {
            Some(named) => with_named_scalar(ty, named),
            None => ty.to_string(),
        };
        format!(
            "json: cannot unmarshal {value} into Go struct field {}.{} of type {ty}",
            self.parent, self.path
        )
    }
}

/// `ty` (`string`, `[]string`, `map[string]string`) with its innermost scalar named `named`.
fn with_named_scalar(ty: &str, named: &str) -> String {
    for scalar in ["string", "int32", "int64", "bool", "float64"] {
        if let Some(outer) = ty.strip_suffix(scalar)
            && (outer.is_empty() || outer.ends_with(']'))
        {
            return format!("{outer}{named}");
        }
    }
    ty.to_string()
}

/// Walks `node` as Go's decoder decodes it into the Go type `schema` describes. A value of
/// the wrong type is remembered in `first` (the first one in document order) and skipped;
/// the types with their own `UnmarshalJSON` (Quantity, IntOrString, Time) stop decoding
/// at once with their error (`Err`), which wins over one remembered earlier.
fn walk(node: &Node, schema: &Value, at: &Place, first: &mut Option<String>) -> Result<(), String> {
    if *node == Node::Null {
        return Ok(());
    }
    let (name, schema) = resolve(schema);
    let mut remember = |message: String| {
        first.get_or_insert(message);
        Ok(())
    };
    if name == Some(QUANTITY) {
        // Go's Quantity decodes a string (trimmed) or a number's text with ParseQuantity;
        // a number always parses.
        return match node {
            Node::Bool(_) | Node::Object(_) | Node::Array(_) => Err(QUANTITY_RULE.to_string()),
            Node::String(text) => match quantity::go_parse_error(text.trim()) {
                Some(why) => Err(why.to_string()),
                None => Ok(()),
            },
            _ => Ok(()),
        };
    }
    if schema["format"] == "int-or-string" {
        // A string is kept as one; anything else is decoded as the int32 half.
        return match node {
            Node::String(_) => Ok(()),
            Node::Number(n) if fits_integer(n, "int32") => Ok(()),
            Node::Number(n) => Err(at.error(&format!("number {n}"), "int32")),
            other => Err(at.error(other.go_kind(), "int32")),
        };
    }
    if schema["format"] == "date-time" {
        // metav1.Time and MicroTime decode a string, then parse it with their Go layout.
        return match node {
            Node::String(text) => go_time::parse(text, precision_of(name)).map(|_| ()),
            other => Err(at.error(other.go_kind(), "string")),
        };
    }
    if schema.get("oneOf").is_some() || schema["x-kubernetes-preserve-unknown-fields"] == true {
        return Ok(());
    }
    let mismatch = || at.error(node.go_kind(), &go_type(name, schema));
    if let Some(properties) = schema["properties"].as_object() {
        let Node::Object(members) = node else {
            return remember(mismatch());
        };
        let parent = name.and_then(|n| n.rsplit('.').next()).unwrap_or(at.parent);
        for (key, value) in members {
            // Unknown fields are skipped by the decoder.
            let Some(field) = properties.get(key) else {
                continue;
            };
            let path = if at.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", at.path)
            };
            let named = name
                .and_then(go_types::named)
                .and_then(|go| go.field(key))
                .and_then(|f| f.named.as_deref());
            let place = Place {
                parent,
                path: &path,
                named,
            };
            walk(value, field, &place, first)?;
        }
        return Ok(());
    }
    match (schema["type"].as_str(), node) {
        // An object without declared fields or values (RawExtension, FieldsV1) takes any
        // JSON value.
        (Some("object"), _) if schema.get("additionalProperties").is_none() => Ok(()),
        (Some("object"), Node::Object(members)) => {
            let values = &schema["additionalProperties"];
            members
                .iter()
                .try_for_each(|(_, v)| walk(v, values, at, first))
        }
        (Some("array"), Node::Array(items)) => items
            .iter()
            .try_for_each(|v| walk(v, &schema["items"], at, first)),
        (Some("object" | "array"), _) => remember(mismatch()),
        (Some("string"), Node::String(_)) | (Some("boolean"), Node::Bool(_)) => Ok(()),
        (Some("number"), Node::Number(_)) => Ok(()),
        (Some("integer"), Node::Number(n)) => {
            let ty = go_type(name, schema);
            if fits_integer(n, &ty) {
                Ok(())
            } else {
                remember(at.error(&format!("number {n}"), &ty))
            }
        }
        (Some("string" | "boolean" | "number" | "integer"), _) => remember(mismatch()),
        _ => Ok(()),
    }
}

/// The message of Go's decoder for a built-in `group`/`version`/`kind` body (as written,
/// [`Node`]) with a value that does not fit its Go type: the error of a Quantity,
/// IntOrString or Time that cannot decode its value, else the first value of a wrong type
/// in document order (`json: cannot unmarshal bool into Go struct field
/// ObjectMeta.metadata.labels of type string`). The real server answers it as a 400
/// `<Kind> in version "<version>" cannot be handled as a <Kind>: ...`.
pub fn decode_error(group: &str, version: &str, kind: &str, node: &Node) -> Option<String> {
    let component = format!("{}.{kind}", component_prefix(group, version));
    let name = schemas().get_key_value(&component)?.0;
    let root = json!({"$ref": format!("#/components/schemas/{name}")});
    decode_error_of(node, &root, kind)
}

/// The decoder's first type error of a body `node` decoded as the type `root` describes,
/// whose Go struct is named `parent` when `root` names no component.
pub(super) fn decode_error_of(node: &Node, root: &Value, parent: &str) -> Option<String> {
    let mut first = None;
    let place = Place {
        parent,
        path: "",
        named: None,
    };
    match walk(node, root, &place, &mut first) {
        Err(hard) => Some(hard),
        Ok(()) => first,
    }
}

/// The Go type of a `date-time` component: `metav1.MicroTime` keeps microseconds.
pub(super) fn precision_of(component: Option<&str>) -> Precision {
    if component.is_some_and(|n| n.ends_with(".MicroTime")) {
        Precision::Micros
    } else {
        Precision::Seconds
    }
}

/// A decoded JSON value as Go's `%v` prints it (`map[a:1 b:[x y]]`), numbers as `float64`s.
fn go_print(value: &Value) -> String {
    crate::support::patch::go_print::go_print_numbers(value, &|n| match n.as_i64() {
        Some(i) => i.to_string(),
        None => go_float(n.as_f64().unwrap_or_default()),
    })
}

/// A float64 as Go's `%v` prints it: shortest digits, exponent form below 1e-4 and from 1e6.
fn go_float(f: f64) -> String {
    let exponent = if f == 0.0 {
        0
    } else {
        f.abs().log10().floor() as i32
    };
    if !(-4..6).contains(&exponent) {
        let text = format!("{f:e}");
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exp.abs());
    }
    f.to_string()
}

/// The 422 the real server answers when the result of a strategic merge `patch` on a
/// built-in `group`/`version`/`kind` does not decode into its Go type.
pub fn patch_type_error(
    group: &str,
    version: &str,
    kind: &str,
    patch: &Value,
    patched: &Value,
) -> Option<ApiError> {
    let component = format!("{}.{kind}", component_prefix(group, version));
    let schema = schemas().get(&component)?;
    let why = first_error(patched, schema)?;
    let value = format!("{:?}", go_print(patch));
    Some(patch_invalid(&value, &why))
}

/// The real server's 422 for a strategic merge patch whose result has fields the kind does
/// not have (or that repeats some) under `fieldValidation=Strict`: `patch` quoted as Go
/// prints a map, `why` the strict decoding error.
pub fn patch_strict_invalid(patch: &Value, why: &str) -> ApiError {
    patch_invalid(&format!("{:?}", go_print(patch)), why)
}

/// The real server's 422 for a patch whose result does not decode: `value` is the patch (or
/// its result) as the message quotes it, `why` the decode error.
pub fn patch_invalid(value: &str, why: &str) -> ApiError {
    let message = format!("Invalid value: {value}: {why}");
    ApiError {
        code: 422,
        reason: "Invalid",
        message: format!(" \"\" is invalid: patch: {message}"),
        details: json!({"causes": [{"reason": "FieldValueInvalid", "message": message, "field": "patch"}]}),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(patch: Value, patched: Value) -> Option<String> {
        patch_type_error("apps", "v1", "Deployment", &patch, &patched).map(|e| e.message)
    }

    fn decoded(kind: &str, group: &str, body: &str) -> Option<String> {
        let node = crate::support::go_decode::parse(body.as_bytes()).expect("valid JSON");
        decode_error(group, "v1", kind, &node)
    }

    /// The real server's messages (kube-apiserver v1.34.9): a named scalar type by its name.
    #[test]
    fn named_scalar_types_are_named_as_reflect_prints_them() {
        let cases = [
            (
                "Service",
                r#"{"spec":{"ports":[{"port":80,"protocol":5}]}}"#,
                "ServicePort.spec.ports.protocol of type v1.Protocol",
            ),
            (
                "ConfigMap",
                r#"{"metadata":{"name":"t","uid":5}}"#,
                "ObjectMeta.metadata.uid of type types.UID",
            ),
            (
                "Pod",
                r#"{"spec":{"containers":[{"name":"c","securityContext":{"capabilities":{"add":[5]}}}]}}"#,
                "Capabilities.spec.containers.securityContext.capabilities.add of type v1.Capability",
            ),
            (
                "Pod",
                r#"{"spec":{"restartPolicy":true}}"#,
                "PodSpec.spec.restartPolicy of type v1.RestartPolicy",
            ),
            (
                "Pod",
                r#"{"spec":{"containers":[{"name":"c","securityContext":{"capabilities":{"add":"x"}}}]}}"#,
                "Capabilities.spec.containers.securityContext.capabilities.add of type []v1.Capability",
            ),
        ];
        for (kind, body, tail) in cases {
            let message = decoded(kind, "", body).unwrap();
            assert!(message.ends_with(tail), "{message}");
        }
    }

    #[test]
    fn values_of_the_wrong_type_fail_as_in_go_s_decoder() {
        let deployment = |spec: &str| {
            decoded(
                "Deployment",
                "apps",
                &format!(r#"{{"metadata": {{"name": "d"}}, "spec": {spec}}}"#),
            )
        };
        assert_eq!(
            deployment(r#"{"template": {"metadata": {"labels": {"app": true}}}}"#).as_deref(),
            Some(
                "json: cannot unmarshal bool into Go struct field ObjectMeta.spec.template.metadata.labels of type string"
            )
        );
        // The first in document order, numbers as written.
        assert_eq!(
            deployment(r#"{"paused": "yes", "replicas": "two"}"#).as_deref(),
            Some(
                "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool"
            )
        );
        assert_eq!(
            deployment(r#"{"replicas": 1e20}"#).as_deref(),
            Some(
                "json: cannot unmarshal number 1e20 into Go struct field DeploymentSpec.spec.replicas of type int32"
            )
        );
        assert_eq!(
            deployment(r#"{"strategy": []}"#).as_deref(),
            Some(
                "json: cannot unmarshal array into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy"
            )
        );
        assert_eq!(
            deployment(
                r#"{"template": {"spec": {"containers": [{"name": "c", "args": [1], "ports": [{"containerPort": "80"}]}]}}}"#
            )
            .as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.args of type string"
            )
        );
        assert_eq!(
            deployment(
                r#"{"template": {"spec": {"containers": [{"readinessProbe": {"httpGet": {"port": true}}}]}}}"#
            )
            .as_deref(),
            Some(
                "json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port of type int32"
            )
        );
        assert_eq!(
            deployment(
                r#"{"template": {"spec": {"containers": [{"resources": {"limits": {"cpu": true}}}]}}}"#
            ),
            Some(QUANTITY_RULE.to_string())
        );
        // A value its own decoder refuses stops decoding and wins over an earlier one.
        assert_eq!(
            deployment(
                r#"{"template": {"spec": {"containers": [{"args": [1], "readinessProbe": {"httpGet": {"port": 1.5}}}]}}}"#
            )
            .as_deref(),
            Some(
                "json: cannot unmarshal number 1.5 into Go struct field HTTPGetAction.spec.template.spec.containers.readinessProbe.httpGet.port of type int32"
            )
        );
        assert_eq!(
            decoded("ConfigMap", "", r#"{"data": "x"}"#).as_deref(),
            Some(
                "json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string"
            )
        );
        assert_eq!(
            decoded("ConfigMap", "", r#"{"metadata": {"creationTimestamp": 5}}"#).as_deref(),
            Some(
                "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"
            )
        );
        assert_eq!(
            decoded("Deployment", "apps", r#"{"metadata": []}"#).as_deref(),
            Some(
                "json: cannot unmarshal array into Go struct field Deployment.metadata of type v1.ObjectMeta"
            )
        );
        assert_eq!(
            deployment(
                r#"{"replicas": 2, "selector": null, "unknown": 1, "template": {"metadata": {"labels": {"a": "b"}}}}"#
            ),
            None
        );
    }

    #[test]
    fn wrong_types_are_refused_like_the_go_converter() {
        let p = json!({"spec": {"replicas": "two"}});
        assert_eq!(
            error(p.clone(), p).unwrap(),
            " \"\" is invalid: patch: Invalid value: \"map[spec:map[replicas:two]]\": unrecognized type: int32"
        );
        let p = json!({"spec": {"replicas": 1.5}});
        assert!(
            error(p.clone(), p)
                .unwrap()
                .ends_with("cannot convert float64 to int32")
        );
        let p = json!({"metadata": {"labels": {"a": 1}}});
        assert!(
            error(p.clone(), p)
                .unwrap()
                .ends_with("cannot convert int64 to string")
        );
        let p = json!({"spec": {"template": {"spec": {"containers": "x"}}}});
        assert!(
            error(p.clone(), p)
                .unwrap()
                .ends_with("cannot restore slice from string")
        );
        let p = json!({"spec": {"template": "x"}});
        assert!(
            error(p.clone(), p)
                .unwrap()
                .ends_with("cannot restore struct from: string")
        );
        let p = json!({"spec": {"replicas": 3, "paused": true}, "unknown": [1]});
        assert_eq!(error(p.clone(), p), None);
    }

    #[test]
    fn floats_print_like_go() {
        assert_eq!(go_float(2.5), "2.5");
        assert_eq!(go_float(1e21), "1e+21");
        assert_eq!(go_float(0.00001), "1e-05");
        assert_eq!(go_float(1_234_567.5), "1.2345675e+06");
    }
}
