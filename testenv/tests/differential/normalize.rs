//! What may differ between two correct servers is replaced by a placeholder before answers
//! are compared: uids, resourceVersions, continue tokens, timestamps, ages, generated names,
//! allocated cluster IPs, node ports and health check node ports, the port each server listens on; and the part of managedFields' order that follows the
//! second each entry was written in ([`sort_managed_fields`]).

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

use crate::send::Answer;

fn timestamp() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)").unwrap()
    })
}

fn age() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^(<invalid>|\d+(s|m|h|d)(\d+(s|m|h))?)$").unwrap())
}

fn resource_version() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            // Also inside JSON quoted in a message (`\"resourceVersion\":\"251\"`).
            r#"(resourceVersion|ResourceVersion|resource version|, current|in record)(\\?":|=| |: | \()(\\?")?\d+(\\?")?"#,
        )
        .unwrap()
    })
}

/// `answer` with its varying parts replaced.
pub fn normalize(answer: &Answer) -> Answer {
    let mut generated = BTreeMap::new();
    collect_generated(&answer.body, &mut generated);
    let mut body = answer.body.clone();
    sort_causes(&mut body);
    sort_custom_resources(&mut body);
    drop_certificate_credential(&mut body);
    sort_rules_review(&mut body);
    blank_builtin_column_descriptions(&mut body);
    walk(&mut body, None, &generated);
    Answer {
        code: answer.code,
        body,
        warnings: answer
            .warnings
            .iter()
            .map(|w| text(w, &generated))
            .collect(),
        headers: answer.headers.clone(),
        yaml: answer.yaml.as_deref().map(|t| yaml_text(t, &generated)),
    }
}

fn yaml_line() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?m)^(\s*(?:- )?(?:continue|clusterIP|nodePort|healthCheckNodePort): ).+$|^(\s*- )(<invalid>|\d+(s|m|h|d)(\d+(s|m|h))?)$|^(\s*serverAddress: .*:)\d+$",
        )
        .unwrap()
    })
}

/// A YAML answer's text with what varies replaced as in a JSON answer: times, uids,
/// resourceVersions, generated names anywhere; continue tokens, allocated IPs and ports, ages
/// (a Table's cells) and the listening port on their lines.
fn yaml_text(t: &str, generated: &BTreeMap<String, String>) -> String {
    let out = text(t, generated);
    yaml_line()
        .replace_all(&out, |c: &regex::Captures<'_>| {
            if let Some(key) = c.get(1) {
                format!("{}<placeholder>", key.as_str())
            } else if let Some(item) = c.get(2) {
                format!("{}<age>", item.as_str())
            } else {
                format!("{}<port>", &c[7])
            }
        })
        .to_string()
}

/// The rules of a SelfSubjectRulesReview in a fixed order: the real server lists them in the
/// order its RBAC informers give the bindings, a Go map's, which changes from one request to
/// the next.
fn sort_rules_review(body: &mut Value) {
    if body["kind"] != "SelfSubjectRulesReview" {
        return;
    }
    for rules in ["resourceRules", "nonResourceRules"] {
        if let Some(list) = body["status"].get_mut(rules).and_then(Value::as_array_mut) {
            list.sort_by_key(Value::to_string);
        }
    }
}

/// The credential id the real server's client certificate authenticator gives the harness's
/// admin (`X509SHA256=` and the certificate's fingerprint), recorded where a request's user is
/// (a CertificateSigningRequest's `spec.extra`, a review's `status.userInfo.extra`): the
/// embedded server authenticates the admin by a bearer token, which carries no credential id.
/// An `extra` left empty goes with it, as the real server leaves out an empty one.
fn drop_certificate_credential(v: &mut Value) {
    const ID: &str = "authentication.kubernetes.io/credential-id";
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(extra)) = m.get_mut("extra") {
                let certificate = extra.get(ID).and_then(Value::as_array).is_some_and(|ids| {
                    ids.iter()
                        .all(|id| id.as_str().is_some_and(|id| id.starts_with("X509SHA256=")))
                });
                if certificate {
                    extra.remove(ID);
                    if extra.is_empty() {
                        m.remove("extra");
                    }
                }
            }
            m.values_mut().for_each(drop_certificate_credential);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_certificate_credential),
        _ => {}
    }
}

/// The prefix of the service account token volume the ServiceAccount admission plugin adds to
/// a pod, named like a generated name (the prefix and 5 random characters).
const TOKEN_VOLUME: &str = "kube-api-access-";

/// Names made from a generateName (`prefix` + 5 random characters), and pods' service account
/// token volumes, anywhere in the answer.
fn collect_generated(v: &Value, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(m) => {
            if let Some(name) = m.get("name").and_then(Value::as_str)
                && name.len() == TOKEN_VOLUME.len() + 5
                && name.starts_with(TOKEN_VOLUME)
            {
                out.insert(name.to_string(), format!("{TOKEN_VOLUME}<random>"));
            }
            if let (Some(prefix), Some(name)) = (
                m.get("generateName").and_then(Value::as_str),
                m.get("name").and_then(Value::as_str),
            ) && name.len() == prefix.len() + 5
                && name.starts_with(prefix)
            {
                out.insert(name.to_string(), format!("{prefix}<random>"));
            }
            // A generated name refused with its generateName: the Status names the object and
            // quotes the prefix.
            if let (Some(name), Some(message)) = (
                m.get("details")
                    .and_then(|d| d.get("name"))
                    .and_then(Value::as_str),
                m.get("message").and_then(Value::as_str),
            ) && let Some(prefix) = refused_prefix(message)
                && name.len() == prefix.len() + 5
                && name.starts_with(prefix)
            {
                out.insert(name.to_string(), format!("{prefix}<random>"));
            }
            m.values().for_each(|v| collect_generated(v, out));
        }
        Value::Array(a) => a.iter().for_each(|v| collect_generated(v, out)),
        _ => {}
    }
}

/// The prefix a refusal of `metadata.generateName` quotes.
fn refused_prefix(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("metadata.generateName: Invalid value: \"")?;
    rest.split_once('"').map(|(prefix, _)| prefix)
}

fn uuid() -> &'static Regex {
    static RE: std::sync::OnceLock<Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap()
    })
}

fn text(s: &str, generated: &BTreeMap<String, String>) -> String {
    // The instant is masked, its form kept: a server that writes a time in another zone or
    // precision still differs.
    let mut out = timestamp()
        .replace_all(s, |c: &regex::Captures<'_>| {
            let fraction = c.get(1).map_or(0, |f| f.len() - 1);
            match (fraction, &c[2]) {
                (0, "Z") => "<time>".to_string(),
                (0, zone) => format!("<time{zone}>"),
                (n, zone) => format!("<time.{n}{zone}>"),
            }
        })
        .to_string();
    out = uuid().replace_all(&out, "<uid>").to_string();
    out = resource_version().replace_all(&out, "$1$2<rv>").to_string();
    for (name, placeholder) in generated {
        out = out.replace(name, placeholder);
    }
    out
}

fn walk(v: &mut Value, key: Option<&str>, generated: &BTreeMap<String, String>) {
    let placeholder = match key {
        Some("uid") => Some("<uid>"),
        Some("resourceVersion") => Some("<rv>"),
        Some("continue") => Some("<continue>"),
        Some("clusterIP" | "clusterIPs") => Some("<ip>"),
        Some("nodePort" | "healthCheckNodePort") => Some("<port>"),
        _ => None,
    };
    // The port each server listens on (`/api`'s advertised address).
    if key == Some("serverAddress")
        && let Value::String(address) = v
        && let Some((host, port)) = address.rsplit_once(':')
        && !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
    {
        *address = format!("{host}:<port>");
        return;
    }
    // The key set's address in the service account issuer's configuration: the same
    // advertised address, with each server's port.
    if key == Some("jwks_uri")
        && let Value::String(uri) = v
        && let Some((authority, path)) = uri
            .strip_prefix("https://")
            .and_then(|rest| rest.split_once('/'))
        && let Some((host, _)) = authority.rsplit_once(':')
    {
        *uri = format!("https://{host}:<port>/{path}");
        return;
    }
    if let Some(p) = placeholder {
        match v {
            Value::Array(items) => items.iter_mut().for_each(|i| *i = Value::from(p)),
            Value::Null => {}
            other => *other = Value::from(p),
        }
        return;
    }
    match v {
        Value::String(s) => {
            *s = if age().is_match(s) && key.is_none() {
                "<age>".to_string()
            } else {
                text(s, generated)
            };
        }
        Value::Array(items) => items.iter_mut().for_each(|i| walk(i, None, generated)),
        Value::Object(m) => {
            m.remove("selfLink");
            // Keys carry uids too (`k:{"uid":...}` in managedFields).
            for (k, mut v) in std::mem::take(m) {
                walk(&mut v, Some(k.as_str()), generated);
                m.insert(uuid().replace_all(&k, "<uid>").to_string(), v);
            }
        }
        _ => {}
    }
}

/// The column descriptions of a built-in kind's Table, which the real server fills with
/// Kubernetes' documentation (not copied by the project). A custom resource's Table keeps its
/// descriptions; it is recognised by a column described the way the CRD printer describes a
/// column the CRD gives no description (`Custom resource definition column ...`).
fn blank_builtin_column_descriptions(body: &mut Value) {
    if body["kind"] != "Table" || body["apiVersion"] != "meta.k8s.io/v1" {
        return;
    }
    let Some(columns) = body["columnDefinitions"].as_array_mut() else {
        return;
    };
    let custom = columns.iter().any(|c| {
        c["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("Custom resource definition column"))
    });
    if !custom {
        for c in columns {
            c["description"] = Value::from("");
        }
    }
}

/// The real server lists the errors of an object in the order its validator walks the
/// object's maps, which is Go's random map order: causes are sorted, and the message that
/// lists them (`... is invalid: [a, b]`) is rebuilt in that order when it lists exactly them.
/// The resources of a custom group's discovery document (`/apis/<group>/<version>`), in name
/// order: kube-apiserver lists them in the order of its CRD cache, a Go map whose iteration
/// order changes from one request to the next. The corpus's custom groups are the
/// `*.kubeforge.dev` ones; built-in groups keep their order, which is fixed and compared.
fn sort_custom_resources(body: &mut Value) {
    let custom = body["kind"] == "APIResourceList"
        && body["groupVersion"]
            .as_str()
            .and_then(|gv| gv.split_once('/'))
            .is_some_and(|(group, _)| group.ends_with(".kubeforge.dev"));
    if !custom {
        return;
    }
    if let Some(resources) = body.get_mut("resources").and_then(Value::as_array_mut) {
        resources.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    }
}

/// Every `managedFields` list in name order within each operation. Both servers order the
/// entries of one operation by the second each was written in, then by manager; two writes a
/// moment apart can fall in one second on one server and in two on the other, so the
/// seconds' part of that order is not compared where a step compares whole lists (a step
/// that picks entries by index compares their order).
/// A managedFields list in a fixed order: entries written in the same second come in
/// either order on the real server.
pub fn sort_entries(entries: &mut [Value]) {
    entries.sort_by_key(|e| {
        ["operation", "manager", "apiVersion", "subresource"]
            .map(|k| e[k].as_str().unwrap_or_default().to_string())
    });
}

pub fn sort_managed_fields(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if key == "managedFields"
                    && let Value::Array(entries) = child
                {
                    sort_entries(entries);
                } else {
                    sort_managed_fields(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(sort_managed_fields),
        _ => {}
    }
}

fn sort_causes(body: &mut Value) {
    let Some(causes) = body
        .pointer("/details/causes")
        .and_then(Value::as_array)
        .cloned()
    else {
        return;
    };
    let line = |c: &Value| {
        format!(
            "{}: {}",
            c["field"].as_str().unwrap_or_default(),
            c["message"].as_str().unwrap_or_default()
        )
    };
    let mut lines: Vec<String> = causes.iter().map(line).collect();
    lines.dedup();
    let listed = if lines.len() == 1 {
        lines[0].clone()
    } else {
        format!("[{}]", lines.join(", "))
    };
    let mut sorted = causes.clone();
    sorted.sort_by_key(|c| (line(c), c["reason"].to_string()));
    if let Some(message) = body["message"].as_str()
        && let Some(prefix) = message.strip_suffix(&listed)
    {
        let mut sorted_lines: Vec<String> = sorted.iter().map(line).collect();
        sorted_lines.dedup();
        let relisted = if sorted_lines.len() == 1 {
            sorted_lines[0].clone()
        } else {
            format!("[{}]", sorted_lines.join(", "))
        };
        body["message"] = Value::String(format!("{prefix}{relisted}"));
    }
    body["details"]["causes"] = Value::Array(sorted);
}
