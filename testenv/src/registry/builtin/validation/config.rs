//! ConfigMaps and Secrets: valid keys, no key in both `data` and `binaryData`, the keys a
//! Secret's type requires, and immutability once `immutable` is set.

use serde_json::Value;

use super::errors::{Errors, config_key, forbidden, immutable, invalid_str, key, required};
use crate::support::go_json;

const IMMUTABLE: &str = "field is immutable when `immutable` is set";

fn keys_of<'a>(object: &'a Value, field: &str) -> impl Iterator<Item = &'a String> {
    object[field].as_object().into_iter().flat_map(|m| m.keys())
}

fn check_keys(object: &Value, field: &str) -> Errors {
    let mut out = Vec::new();
    for k in keys_of(object, field) {
        for why in config_key(k) {
            out.push(invalid_str(&key(field, k), k, &why));
        }
    }
    out
}

/// `ValidateConfigMap` (without the metadata, checked for every kind).
pub fn config_map(object: &Value) -> Errors {
    let mut out = Vec::new();
    let binary = object["binaryData"].as_object();
    for k in keys_of(object, "data") {
        for why in config_key(k) {
            out.push(invalid_str(&key("data", k), k, &why));
        }
        if binary.is_some_and(|b| b.contains_key(k)) {
            out.push(invalid_str(
                &key("data", k),
                k,
                "duplicate of key present in binaryData",
            ));
        }
    }
    out.extend(check_keys(object, "binaryData"));
    out
}

/// The checks of an update of a ConfigMap or Secret with `immutable` set: the contents
/// and the flag itself stay as they are.
pub fn immutable_update(object: &Value, old: &Value, contents: &[&str]) -> Errors {
    let mut out = Vec::new();
    if old["immutable"].as_bool() != Some(true) {
        return out;
    }
    if object["immutable"].as_bool() != Some(true) {
        out.push(forbidden("immutable", IMMUTABLE));
    }
    for f in contents {
        if object.get(*f) != old.get(*f) {
            out.push(forbidden(f, IMMUTABLE));
        }
    }
    out
}

/// `ValidateSecretUpdate`'s own checks: the type may not change, nor an immutable Secret.
pub fn secret_update(object: &Value, old: &Value) -> Errors {
    let mut out = Vec::new();
    if object["type"] != old["type"] {
        out.push(immutable("type", &object["type"]));
    }
    out.extend(immutable_update(object, old, &["data"]));
    out
}

fn has(object: &Value, k: &str) -> bool {
    object["data"].get(k).is_some()
}

/// `ValidateSecret` (without the metadata): valid keys, then what the type requires.
pub fn secret(object: &Value) -> Errors {
    let mut out = check_keys(object, "data");
    let data_key = |k: &str| key("data", k);
    match object["type"].as_str().unwrap_or_default() {
        "kubernetes.io/service-account-token" => {
            let name = &object["metadata"]["annotations"]["kubernetes.io/service-account.name"];
            if name.as_str().is_none_or(str::is_empty) {
                out.push(required(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                ));
            }
        }
        t @ ("kubernetes.io/dockercfg" | "kubernetes.io/dockerconfigjson") => {
            let k = if t.ends_with("json") {
                ".dockerconfigjson"
            } else {
                ".dockercfg"
            };
            match object["data"].get(k).and_then(Value::as_str) {
                None => out.push(required(&data_key(k))),
                Some(encoded) => {
                    let bytes = super::base64::decode(encoded).unwrap_or_default();
                    if let Some(why) = json_object_error(&bytes) {
                        out.push(invalid_str(
                            &data_key(k),
                            "<secret contents redacted>",
                            &why,
                        ));
                    }
                }
            }
        }
        "kubernetes.io/basic-auth" if !has(object, "username") && !has(object, "password") => {
            out.push(required(&data_key("username")));
            out.push(required(&data_key("password")));
        }
        "kubernetes.io/ssh-auth"
            if object["data"]["ssh-privatekey"]
                .as_str()
                .is_none_or(str::is_empty) =>
        {
            out.push(required(&data_key("ssh-privatekey")));
        }
        "kubernetes.io/tls" => {
            for k in ["tls.crt", "tls.key"] {
                if !has(object, k) {
                    out.push(required(&data_key(k)));
                }
            }
        }
        _ => {}
    }
    out
}

/// Why Go's `json.Unmarshal` into a map refuses `bytes`, in its words (a syntax error as
/// Go's scanner finds it first, else the type of the top-level value); `None` when it
/// accepts them.
fn json_object_error(bytes: &[u8]) -> Option<String> {
    if let Some(why) = go_json::syntax_error(bytes) {
        return Some(why);
    }
    // Valid JSON to Go: only the top-level value's type matters (`null` leaves the map nil).
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    let kind = match first {
        b'{' | b'n' => return None,
        b'[' => "array",
        b'"' => "string",
        b't' | b'f' => "bool",
        _ => "number",
    };
    Some(format!(
        "json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tls_secret_needs_both_keys() {
        let errs = secret(&json!({"type": "kubernetes.io/tls", "data": {}}));
        let fields: Vec<&str> = errs.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["data[tls.crt]", "data[tls.key]"]);
    }

    #[test]
    fn immutable_config_map() {
        let old = json!({"immutable": true, "data": {"a": "b"}});
        let new = json!({"immutable": true, "data": {"a": "c"}});
        let errs = immutable_update(&new, &old, &["data", "binaryData"]);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].field, "data");
    }

    #[test]
    fn docker_config_is_json() {
        assert_eq!(
            json_object_error(b"x").unwrap(),
            "invalid character 'x' looking for beginning of value"
        );
        assert!(json_object_error(b"{}").is_none());
        assert!(json_object_error(b" null ").is_none());
        assert_eq!(
            json_object_error(b"not json").unwrap(),
            "invalid character 'o' in literal null (expecting 'u')"
        );
        assert_eq!(
            json_object_error(b"01").unwrap(),
            "invalid character '1' after top-level value"
        );
        assert_eq!(
            json_object_error(b"[1, 2]").unwrap(),
            "json: cannot unmarshal array into Go value of type map[string]interface {}"
        );
    }
}
