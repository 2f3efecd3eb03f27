//! The options object of a CONNECT request, read from its query (and, for proxies, the
//! path after `/proxy`) as kube-apiserver's parameter codec reads it: `PodExecOptions`,
//! `PodAttachOptions`, `PodPortForwardOptions`, `PodProxyOptions`, `ServiceProxyOptions`
//! and `NodeProxyOptions` (`v1`), with the fields Go leaves out when empty left out. This
//! is what admission webhooks and policies see, and what the connection then uses.

use serde_json::{Map, Value, json};

use crate::admission::webhooks::review::connect_options_kind;
use crate::registry::scheme::Scheme;
use crate::support::request::{Req, Target};
use crate::support::status::ApiError;

/// A boolean parameter as Go's `strconv.ParseBool` reads its first value; anything it
/// does not read is false.
fn flag(req: &Req, key: &str) -> bool {
    matches!(
        req.query.values(key).first().copied(),
        Some("1" | "t" | "T" | "true" | "TRUE" | "True")
    )
}

/// The ports of a port forward: every value, each split at commas, each a 16-bit
/// unsigned number (400 with the codec's message otherwise).
fn ports(req: &Req) -> Result<Vec<u16>, ApiError> {
    let mut out = Vec::new();
    for value in req.query.values("ports") {
        for p in value.split(',') {
            let port = p
                .parse::<u64>()
                .map_err(|_| "invalid syntax")
                .and_then(|n| u16::try_from(n).map_err(|_| "value out of range"));
            match port {
                Ok(n) => out.push(n),
                // Digits only, but too many for a u64: still out of range.
                Err(_) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                    return Err(conversion(p, "value out of range"));
                }
                Err(why) => return Err(conversion(p, why)),
            }
        }
    }
    Ok(out)
}

fn conversion(value: &str, why: &str) -> ApiError {
    ApiError::bad_request(format!(
        "cannot convert to []int32: strconv.ParseUint: parsing \"{value}\": {why}"
    ))
}

/// The path a proxy request proxies to: what follows `/<name>/proxy` in the request path
/// (absent when nothing does).
fn proxy_path<'a>(req: &'a Req, name: &str) -> Option<&'a str> {
    let marker = format!("/{name}/proxy");
    let at = req.path.find(&marker)? + marker.len();
    Some(&req.path[at..]).filter(|rest| !rest.is_empty())
}

/// The options object of a CONNECT to `target` (its subresource must be a connect one).
pub fn options(req: &Req, target: &Target) -> Result<Value, ApiError> {
    let sub = target.subresource.as_deref().unwrap_or_default();
    let kind = connect_options_kind(&target.def, sub)
        .ok_or_else(|| ApiError::internal(format!("{sub} is not a connect subresource")))?;
    let mut o = Map::new();
    o.insert("kind".into(), json!(kind));
    o.insert("apiVersion".into(), json!("v1"));
    match sub {
        "exec" | "attach" => {
            for key in ["stdin", "stdout", "stderr", "tty"] {
                if flag(req, key) {
                    o.insert(key.into(), json!(true));
                }
            }
            if let Some(c) = req
                .query
                .values("container")
                .first()
                .filter(|c| !c.is_empty())
            {
                o.insert("container".into(), json!(c));
            }
            // `command` has no `omitempty`: Go writes `null` when there is none.
            let command = req.query.values("command");
            if sub == "exec" {
                let command = (!command.is_empty()).then(|| json!(command));
                o.insert("command".into(), command.unwrap_or(Value::Null));
            }
        }
        "portforward" => {
            let ports = ports(req)?;
            if !ports.is_empty() {
                o.insert("ports".into(), json!(ports));
            }
        }
        _ => {
            let name = target.name.as_deref().unwrap_or_default();
            if let Some(path) = proxy_path(req, name) {
                o.insert("path".into(), json!(path));
            }
        }
    }
    Ok(Value::Object(o))
}

/// The Go type of each field of an options kind, as `json` names it in its errors.
fn field_types(kind: &str) -> &'static [(&'static str, &'static str)] {
    match kind {
        "PodExecOptions" => &[
            ("stdin", "bool"),
            ("stdout", "bool"),
            ("stderr", "bool"),
            ("tty", "bool"),
            ("container", "string"),
            ("command", "[]string"),
        ],
        "PodAttachOptions" => &[
            ("stdin", "bool"),
            ("stdout", "bool"),
            ("stderr", "bool"),
            ("tty", "bool"),
            ("container", "string"),
        ],
        "PodPortForwardOptions" => &[("ports", "[]int32")],
        _ => &[("path", "string")],
    }
}

/// The name Go's JSON decoder gives a value it cannot put in a field.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

fn fits(value: &Value, go_type: &str) -> bool {
    match go_type {
        "bool" => value.is_boolean(),
        "string" => value.is_string(),
        "[]string" => value
            .as_array()
            .is_some_and(|a| a.iter().all(|v| v.is_string() || v.is_null())),
        _ => value.as_array().is_some_and(|a| {
            a.iter()
                .all(|v| v.is_null() || v.as_i64().is_some_and(|n| i32::try_from(n).is_ok()))
        }),
    }
}

fn internal(message: String) -> ApiError {
    let mut e = ApiError::internal(format!("Internal error occurred: {message}"));
    e.details = json!({"causes": [{"message": message}]});
    e
}

/// The field of `kind` a JSON key sets: the server's decoder matches names exactly (a key
/// in another case is a field the type lacks).
fn field_of(kind: &str, key: &str) -> Option<(&'static str, &'static str)> {
    field_types(kind).iter().find(|(f, _)| *f == key).copied()
}

/// Whether Go writes a decoded value back: `omitempty` fields are left out at their zero
/// value (`false`, `""`, an empty list), `command` (no `omitempty`) never is.
fn written(field: &str, value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => field == "command" || !a.is_empty(),
        Value::Null => field == "command",
        _ => true,
    }
}

/// A value that fits its Go type as Go stores it: `null` items of a list are the zero
/// value of the item type.
fn stored(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| match v {
                    Value::Null => json!(0),
                    other => other.clone(),
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The options as the server decodes them after a mutating webhook changed them: the same
/// kind in `v1`, every field of its Go type (500 with the decoder's message otherwise),
/// and then as Go writes them again: fields the type lacks (a key in another case among
/// them) and zero values dropped. A kind the legacy scheme does not register for its
/// apiVersion is a missing kind, one it does (a Pod patched in) a failed conversion.
pub fn decode(options: &Value, expected_kind: &str) -> Result<Value, ApiError> {
    let api_version = options["apiVersion"].as_str().unwrap_or_default();
    let kind = options["kind"].as_str().unwrap_or_default();
    let into = format!("core.{expected_kind}");
    match Scheme::Legacy.lookup(api_version, kind) {
        None => {
            return Err(internal(Scheme::Legacy.unregistered(api_version, kind)));
        }
        Some(found) if found.internal.as_deref() != Some(into.as_str()) => {
            return Err(ApiError::new(
                500,
                "",
                format!(
                    "converting ({}) to ({into}): unknown conversion",
                    found.go_type
                ),
            ));
        }
        Some(_) => {}
    }
    let mut fields: Vec<(&str, Value)> = Vec::new();
    for (key, value) in options.as_object().into_iter().flatten() {
        let Some((field, go_type)) = field_of(kind, key) else {
            continue;
        };
        if !value.is_null() && !fits(value, go_type) {
            return Err(internal(format!(
                "json: cannot unmarshal {} into Go struct field {kind}.{field} of type {}",
                json_type(value),
                go_type.trim_start_matches("[]")
            )));
        }
        // An `[]string` item that is null is "".
        let value = match (go_type, value) {
            ("[]string", Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .map(|v| if v.is_null() { json!("") } else { v.clone() })
                    .collect(),
            ),
            _ => stored(value),
        };
        fields.retain(|(f, _)| *f != field);
        fields.push((field, value));
    }
    let mut out = Map::new();
    out.insert("kind".into(), json!(kind));
    out.insert("apiVersion".into(), json!(api_version));
    // In the type's field order.
    for (field, _) in field_types(kind) {
        let value = fields
            .iter()
            .find(|(f, _)| f == field)
            .map_or(&Value::Null, |(_, v)| v);
        if written(field, value) {
            out.insert((*field).to_string(), value.clone());
        }
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use crate::support::query::Query;

    fn req(path: &str, query: &str) -> Req {
        Req {
            method: http::Method::POST,
            path: path.into(),
            query: Query::parse(Some(query)),
            accept: String::new(),
            content_type: String::new(),
            user_agent: String::new(),
            body: bytes::Bytes::new(),
            bearer: String::new(),
            user: crate::support::user::User::admin(),
            assigned: None,
        }
    }

    fn target(plural: &str, name: &str, sub: &str) -> Target {
        Target {
            def: Registry::with_builtins().get("", "v1", plural).unwrap(),
            namespace: (plural != "nodes").then(|| "t1".to_string()),
            name: Some(name.into()),
            subresource: Some(sub.into()),
            legacy_watch: false,
        }
    }

    #[test]
    fn exec_and_attach_options() {
        let exec = options(
            &req(
                "/api/v1/namespaces/t1/pods/p/exec",
                "command=ls&command=-l&stdout=1&tty=T&stdin=abc&container=",
            ),
            &target("pods", "p", "exec"),
        )
        .unwrap();
        assert_eq!(
            exec,
            json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true, "tty": true,
                "command": ["ls", "-l"]})
        );
        let attach = options(
            &req(
                "/api/v1/namespaces/t1/pods/p/attach",
                "stdin=true&container=c&command=x",
            ),
            &target("pods", "p", "attach"),
        )
        .unwrap();
        assert_eq!(
            attach,
            json!({"kind": "PodAttachOptions", "apiVersion": "v1", "stdin": true, "container": "c"})
        );
    }

    #[test]
    fn port_forward_ports() {
        let t = target("pods", "p", "portforward");
        let path = "/api/v1/namespaces/t1/pods/p/portforward";
        assert_eq!(
            options(&req(path, "ports=80,81&ports=0"), &t).unwrap()["ports"],
            json!([80, 81, 0])
        );
        let e = options(&req(path, "ports=70000"), &t).unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                400,
                "cannot convert to []int32: strconv.ParseUint: parsing \"70000\": value out of range"
            )
        );
        let e = options(&req(path, "ports=-1"), &t).unwrap_err();
        assert_eq!(
            e.message,
            "cannot convert to []int32: strconv.ParseUint: parsing \"-1\": invalid syntax"
        );
    }

    #[test]
    fn patched_options_decode_as_go_decodes_them() {
        let exec = json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true,
            "container": "c", "command": ["ls"]});
        assert_eq!(decode(&exec, "PodExecOptions").unwrap(), exec);
        // Written back as Go writes the type: unknown fields (names are matched exactly)
        // and zero values gone.
        let patched = json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true,
            "stdin": false, "tty": null, "extra": 1, "CONTAINER": "upper",
            "command": ["ls", null]});
        assert_eq!(
            decode(&patched, "PodExecOptions").unwrap(),
            json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true,
                "command": ["ls", ""]})
        );
        let forward = json!({"kind": "PodPortForwardOptions", "apiVersion": "v1", "ports": []});
        assert_eq!(
            decode(&forward, "PodPortForwardOptions").unwrap(),
            json!({"kind": "PodPortForwardOptions", "apiVersion": "v1"})
        );
        let no_command = json!({"kind": "PodExecOptions", "apiVersion": "v1", "stdout": true});
        assert_eq!(
            decode(&no_command, "PodExecOptions").unwrap()["command"],
            Value::Null
        );
        let with = |key: &str, v: Value| {
            let mut o = exec.clone();
            o[key] = v;
            decode(&o, "PodExecOptions").unwrap_err()
        };
        let e = with("stdout", json!("yes"));
        assert_eq!(e.code, 500);
        assert_eq!(
            e.message,
            "Internal error occurred: json: cannot unmarshal string into Go struct field PodExecOptions.stdout of type bool"
        );
        assert_eq!(
            with("kind", json!("Foo")).message,
            "Internal error occurred: no kind \"Foo\" is registered for version \"v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""
        );
        assert_eq!(
            with("apiVersion", json!("apps/v1")).message,
            "Internal error occurred: no kind \"PodExecOptions\" is registered for version \"apps/v1\" in scheme \"pkg/api/legacyscheme/scheme.go:30\""
        );
        let e = with("kind", json!("Pod"));
        assert_eq!(
            (e.code, e.reason, e.message.as_str()),
            (
                500,
                "",
                "converting (v1.Pod) to (core.PodExecOptions): unknown conversion"
            )
        );
    }

    #[test]
    fn proxy_paths() {
        let pod = options(
            &req("/api/v1/namespaces/t1/pods/p:8080/proxy/", ""),
            &target("pods", "p:8080", "proxy"),
        )
        .unwrap();
        assert_eq!(
            pod,
            json!({"kind": "PodProxyOptions", "apiVersion": "v1", "path": "/"})
        );
        let bare = options(
            &req("/api/v1/namespaces/t1/pods/p/proxy", ""),
            &target("pods", "p", "proxy"),
        )
        .unwrap();
        assert_eq!(bare, json!({"kind": "PodProxyOptions", "apiVersion": "v1"}));
        let service = options(
            &req(
                "/api/v1/namespaces/t1/services/https:s:443/proxy/a/b",
                "x=1",
            ),
            &target("services", "https:s:443", "proxy"),
        )
        .unwrap();
        assert_eq!(service["kind"], "ServiceProxyOptions");
        assert_eq!(service["path"], "/a/b");
        let node = options(
            &req("/api/v1/nodes/n1/proxy/stats", ""),
            &target("nodes", "n1", "proxy"),
        )
        .unwrap();
        assert_eq!(
            node,
            json!({"kind": "NodeProxyOptions", "apiVersion": "v1", "path": "/stats"})
        );
    }
}
