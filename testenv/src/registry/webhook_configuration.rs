//! Validation of Mutating- and ValidatingWebhookConfigurations on create and update, with
//! kube-apiserver's messages, for the fields the dispatcher relies on: names, rules,
//! failurePolicy, matchPolicy, sideEffects, timeoutSeconds, admissionReviewVersions,
//! clientConfig, reinvocationPolicy, the selectors and the `matchConditions` expressions
//! (compiled and type-checked as the real server does, not again on an update that leaves
//! them as they were).

use std::collections::HashSet;

use serde_json::Value;

use crate::registry::builtin::validation::errors::{check_labels, dns1123_subdomain};
use crate::registry::schema::cel_types::admission::{AdmissionDecls, Want};
use crate::registry::schema::cel_types::policy;
use crate::support::go_url;
use crate::support::meta::{label_key_errors, label_value_error, qualified_name_errors};
use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

/// `Some(true)` for MutatingWebhookConfiguration, `Some(false)` for
/// ValidatingWebhookConfiguration, `None` for any other resource.
pub fn configuration_kind(def: &ResourceDef) -> Option<bool> {
    if def.group != "admissionregistration.k8s.io" {
        return None;
    }
    match def.kind.as_str() {
        "MutatingWebhookConfiguration" => Some(true),
        "ValidatingWebhookConfiguration" => Some(false),
        _ => None,
    }
}

struct Causes(Vec<Cause>);

impl Causes {
    fn push(&mut self, reason: &str, field: String, message: String) {
        self.0.push(Cause {
            reason: reason.into(),
            message,
            field,
        });
    }

    fn required(&mut self, field: String, detail: &str) {
        let message = if detail.is_empty() {
            "Required value".to_string()
        } else {
            format!("Required value: {detail}")
        };
        self.push("FieldValueRequired", field, message);
    }

    fn unsupported(&mut self, field: String, value: &str, supported: &[&str]) {
        let list = supported
            .iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ");
        self.push(
            "FieldValueNotSupported",
            field,
            format!("Unsupported value: \"{value}\": supported values: {list}"),
        );
    }

    fn invalid(&mut self, field: String, value: &Value, detail: &str) {
        self.push(
            "FieldValueInvalid",
            field,
            format!("Invalid value: {value}: {detail}"),
        );
    }

    /// An optional enum field.
    fn one_of(&mut self, hook: &Value, field: &str, path: &str, supported: &[&str]) {
        if let Some(v) = hook.get(field).filter(|v| !v.is_null()) {
            let s = v.as_str().unwrap_or_default();
            if !supported.contains(&s) {
                self.unsupported(format!("{path}.{field}"), s, supported);
            }
        }
    }
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// `ValidateRuleWithOperations`, shared with the admission policies' resource rules.
fn check_rule(c: &mut Causes, rule: &Value, path: &str) {
    c.0.extend(crate::registry::builtin::validation::rule_with_operations(
        rule, path,
    ));
}

/// `ValidateLabelSelector`: the labels, then each expression's operator, key and values.
fn check_selector(c: &mut Causes, selector: &Value, path: &str) {
    if let Some(labels) = selector["matchLabels"].as_object() {
        c.0.extend(check_labels(&format!("{path}.matchLabels"), Some(labels)));
    }
    for (i, e) in selector["matchExpressions"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("{path}.matchExpressions[{i}]");
        let values = strings(&e["values"]);
        match e["operator"].as_str().unwrap_or_default() {
            "In" | "NotIn" if values.is_empty() => c.required(
                format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            ),
            "Exists" | "DoesNotExist" if !values.is_empty() => c.push(
                "FieldValueForbidden",
                format!("{at}.values"),
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    .into(),
            ),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            _ => c.invalid(
                format!("{at}.operator"),
                &e["operator"],
                "not a valid selector operator",
            ),
        }
        let key = e["key"].as_str().unwrap_or_default();
        for why in label_key_errors(key) {
            c.invalid(format!("{at}.key"), &e["key"], &why);
        }
        for (j, value) in values.iter().enumerate() {
            if let Some(why) = label_value_error(value) {
                c.invalid(format!("{at}.values[{j}]"), &Value::from(*value), why);
            }
        }
    }
}

/// `ValidateWebhookURL`: an https URL with a host, no user information, fragment or query.
fn check_url(c: &mut Causes, url: &str, field: String) {
    const FORM: &str = "; desired format: https://host[/path]";
    let u = match go_url::parse(url) {
        Ok(u) => u,
        Err(why) => return c.required(field, &format!("url must be a valid URL: {why}{FORM}")),
    };
    if u.scheme != "https" {
        let why = format!("'https' is the only allowed URL scheme{FORM}");
        c.invalid(field.clone(), &Value::from(u.scheme.as_str()), &why);
    }
    if u.host.is_empty() {
        let why = format!("host must be specified{FORM}");
        c.invalid(field.clone(), &Value::from(""), &why);
    }
    if let Some(user) = &u.user {
        let why = "user information is not permitted in the URL";
        c.invalid(field.clone(), &Value::from(user.as_str()), why);
    }
    if !u.fragment.is_empty() {
        let why = "fragments are not permitted in the URL";
        c.invalid(field.clone(), &Value::from(u.fragment.as_str()), why);
    }
    if !u.raw_query.is_empty() {
        let why = "query parameters are not permitted in the URL";
        c.invalid(field, &Value::from(u.raw_query.as_str()), why);
    }
}

/// `ValidateWebhookService`: a name and namespace, a valid port, and a path of DNS
/// subdomain segments starting with `/`.
fn check_service(c: &mut Causes, service: &Value, path: &str) {
    // kube-apiserver passes the service's name and namespace to its check in each other's
    // place: an empty namespace is reported at `name`, an empty name at `namespace`.
    for (value, reported) in [("namespace", "name"), ("name", "namespace")] {
        if service[value].as_str().is_none_or(str::is_empty) {
            c.required(format!("{path}.{reported}"), "");
        }
    }
    let port = service["port"].as_i64().unwrap_or(443);
    if !(1..=65535).contains(&port) {
        let why = "port is not valid: must be between 1 and 65535, inclusive";
        c.invalid(format!("{path}.port"), &Value::from(port), why);
    }
    let Some(url_path) = service["path"].as_str() else {
        return;
    };
    let field = format!("{path}.path");
    let value = Value::from(url_path);
    if url_path == "/" || url_path.is_empty() {
        return;
    }
    if url_path == "//" {
        return c.invalid(field, &value, "segment[0] may not be empty");
    }
    if !url_path.starts_with('/') {
        c.invalid(field.clone(), &value, "must start with a '/'");
    }
    let rest = &url_path[url_path
        .char_indices()
        .nth(1)
        .map_or(url_path.len(), |(i, _)| i)..];
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    for (i, step) in rest.split('/').enumerate() {
        if step.is_empty() {
            c.invalid(
                field.clone(),
                &value,
                &format!("segment[{i}] may not be empty"),
            );
            continue;
        }
        for why in dns1123_subdomain(step) {
            c.invalid(field.clone(), &value, &format!("segment[{i}]: {why}"));
        }
    }
}

fn check_client_config(c: &mut Causes, cfg: &Value, path: &str) {
    let url = cfg.get("url").filter(|u| !u.is_null());
    let service = cfg.get("service").filter(|s| !s.is_null());
    match (url, service) {
        (Some(url), None) => {
            check_url(c, url.as_str().unwrap_or_default(), format!("{path}.url"));
        }
        (None, Some(service)) => check_service(c, service, &format!("{path}.service")),
        _ => c.required(
            path.to_string(),
            "exactly one of url or service is required",
        ),
    }
}

/// The `sideEffects` values a stored webhook already had (allowed to stay on update).
fn old_side_effects(old: Option<&Value>) -> HashSet<String> {
    old.and_then(|o| o["webhooks"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|h| h["sideEffects"].as_str())
        .map(str::to_string)
        .collect()
}

/// One webhook's checks before its match conditions, in the real server's order: its
/// name, rules, policies, side effects, timeout, selectors, a mutating webhook's
/// reinvocation policy, then its client configuration.
fn check_webhook(
    c: &mut Causes,
    hook: &Value,
    path: &str,
    mutating: bool,
    old_effects: &HashSet<String>,
) {
    let name = hook["name"].as_str().unwrap_or_default();
    let subdomain = dns1123_subdomain(name);
    if name.is_empty() {
        c.required(format!("{path}.name"), "");
    } else if !subdomain.is_empty() {
        c.invalid(format!("{path}.name"), &hook["name"], &subdomain.join(","));
    } else if name.split('.').count() < 3 {
        c.invalid(
            format!("{path}.name"),
            &hook["name"],
            "should be a domain with at least three segments separated by dots",
        );
    }
    for (j, rule) in hook["rules"].as_array().into_iter().flatten().enumerate() {
        check_rule(c, rule, &format!("{path}.rules[{j}]"));
    }
    c.one_of(hook, "failurePolicy", path, &["Fail", "Ignore"]);
    c.one_of(hook, "matchPolicy", path, &["Equivalent", "Exact"]);
    match hook["sideEffects"].as_str() {
        None => c.required(
            format!("{path}.sideEffects"),
            "must specify one of None, NoneOnDryRun",
        ),
        Some("None" | "NoneOnDryRun") => {}
        Some(s) if old_effects.contains(s) => {}
        Some(s) => c.unsupported(format!("{path}.sideEffects"), s, &["None", "NoneOnDryRun"]),
    }
    if let Some(t) = hook.get("timeoutSeconds").filter(|t| !t.is_null())
        && !t.as_i64().is_some_and(|t| (1..=30).contains(&t))
    {
        c.invalid(
            format!("{path}.timeoutSeconds"),
            t,
            "the timeout value must be between 1 and 30 seconds",
        );
    }
    for selector in ["namespaceSelector", "objectSelector"] {
        check_selector(c, &hook[selector], &format!("{path}.{selector}"));
    }
    if mutating {
        c.one_of(hook, "reinvocationPolicy", path, &["IfNeeded", "Never"]);
    }
    check_client_config(c, &hook["clientConfig"], &format!("{path}.clientConfig"));
}

/// The validation errors of a webhook configuration (`old` on update).
pub fn configuration(object: &Value, old: Option<&Value>, mutating: bool) -> Vec<Cause> {
    let mut c = Causes(Vec::new());
    let mut names = HashSet::new();
    let old_effects = old_side_effects(old);
    // The real server does not compile the conditions again when no webhook's changed.
    let unchanged_conditions = old.is_some_and(|old| {
        let conditions = |v: &Value| -> Vec<Value> {
            let hooks = v["webhooks"].as_array().into_iter().flatten();
            hooks.map(|h| h["matchConditions"].clone()).collect()
        };
        conditions(old) == conditions(object)
    });
    for (i, hook) in object["webhooks"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let path = format!("webhooks[{i}]");
        check_webhook(&mut c, hook, &path, mutating, &old_effects);
        if !unchanged_conditions {
            check_match_conditions(&mut c, hook, &path);
        } else {
            check_condition_names(&mut c, hook, &path);
        }
        let versions = strings(&hook["admissionReviewVersions"]);
        if versions.is_empty() {
            c.required(
                format!("{path}.admissionReviewVersions"),
                "must specify one of v1, v1beta1",
            );
        } else {
            // Each version once, and a DNS-1035 label; then one the server speaks.
            let mut seen = HashSet::new();
            for (j, v) in versions.iter().enumerate() {
                let at = format!("{path}.admissionReviewVersions[{j}]");
                if !seen.insert(*v) {
                    c.invalid(at, &Value::from(*v), "duplicate version");
                    continue;
                }
                for why in crate::registry::schema::names::dns1035_label(v) {
                    c.invalid(at.clone(), &Value::from(*v), &why);
                }
            }
            if !versions.iter().any(|v| *v == "v1" || *v == "v1beta1") {
                c.invalid(
                    format!("{path}.admissionReviewVersions"),
                    &hook["admissionReviewVersions"],
                    "must include at least one of v1, v1beta1",
                );
            }
        }
        let name = hook["name"].as_str().unwrap_or_default();
        if !name.is_empty() && !names.insert(name) {
            c.push(
                "FieldValueDuplicate",
                format!("{path}.name"),
                format!("Duplicate value: \"{name}\""),
            );
        }
    }
    c.0
}

/// Each match condition: an expression that compiles to a bool with `object`,
/// `oldObject`, `request`, `namespaceObject` and `authorizer` (no `params`, no
/// `variables`), then a name (a qualified name, once).
fn check_match_conditions(c: &mut Causes, hook: &Value, path: &str) {
    let decls = AdmissionDecls {
        params: false,
        authorizer: true,
        variables: None,
    };
    let mut names = HashSet::new();
    let conditions = hook["matchConditions"].as_array().into_iter().flatten();
    for (j, condition) in conditions.enumerate() {
        let at = format!("{path}.matchConditions[{j}]");
        let source = condition["expression"].as_str().unwrap_or_default().trim();
        if source.is_empty() {
            c.required(format!("{at}.expression"), "");
        } else if let Err(detail) = policy::compile(source, &decls, Want::Bool) {
            let (reason, message) = policy::refusal(source, &detail);
            c.push(reason, format!("{at}.expression"), message);
        }
        check_condition_name(c, condition, &at, &mut names);
    }
}

/// The names of the match conditions alone (an update that left them as they were).
fn check_condition_names(c: &mut Causes, hook: &Value, path: &str) {
    let mut names = HashSet::new();
    let conditions = hook["matchConditions"].as_array().into_iter().flatten();
    for (j, condition) in conditions.enumerate() {
        check_condition_name(
            c,
            condition,
            &format!("{path}.matchConditions[{j}]"),
            &mut names,
        );
    }
}

fn check_condition_name<'a>(
    c: &mut Causes,
    condition: &'a Value,
    at: &str,
    names: &mut HashSet<&'a str>,
) {
    let name = condition["name"].as_str().unwrap_or_default();
    if name.is_empty() {
        return c.required(format!("{at}.name"), "");
    }
    for why in qualified_name_errors(name) {
        c.invalid(format!("{at}.name"), &condition["name"], &why);
    }
    if !names.insert(name) {
        c.push(
            "FieldValueDuplicate",
            format!("{at}.name"),
            format!("Duplicate value: {name:?}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid_hook() -> Value {
        json!({"name": "v.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"url": "https://127.0.0.1:9443/v"},
            "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}]})
    }

    fn messages(hooks: Value) -> Vec<String> {
        configuration(&json!({"webhooks": hooks}), None, true)
            .into_iter()
            .map(|c| format!("{}: {}", c.field, c.message))
            .collect()
    }

    #[test]
    fn accepts_a_valid_configuration() {
        assert!(messages(json!([valid_hook()])).is_empty());
    }

    #[test]
    fn real_messages() {
        let mut h = valid_hook();
        h["name"] = json!("short");
        h["sideEffects"] = json!("Some");
        h["timeoutSeconds"] = json!(31);
        h["clientConfig"] = json!({"url": "http://x/y"});
        h["failurePolicy"] = json!("Sometimes");
        let m = messages(json!([h]));
        assert!(m.contains(&"webhooks[0].name: Invalid value: \"short\": should be a domain with at least three segments separated by dots".to_string()), "{m:?}");
        assert!(m.contains(&"webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\"".to_string()), "{m:?}");
        assert!(m.contains(&"webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds".to_string()), "{m:?}");
        assert!(m.contains(&"webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]".to_string()), "{m:?}");
        assert!(m.contains(&"webhooks[0].failurePolicy: Unsupported value: \"Sometimes\": supported values: \"Fail\", \"Ignore\"".to_string()), "{m:?}");
        let m = messages(json!([valid_hook(), valid_hook()]));
        assert_eq!(
            m,
            vec!["webhooks[1].name: Duplicate value: \"v.example.com\"".to_string()]
        );
        let mut h = valid_hook();
        h.as_object_mut().unwrap().remove("sideEffects");
        h.as_object_mut().unwrap().remove("clientConfig");
        let m = messages(json!([h]));
        assert!(
            m.contains(
                &"webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun"
                    .to_string()
            )
        );
        assert!(m.contains(&"webhooks[0].clientConfig: Required value: exactly one of url or service is required".to_string()));
    }
}
