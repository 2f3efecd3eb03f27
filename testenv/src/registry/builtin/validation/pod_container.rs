//! The container rules of `pkg/apis/core/validation` past names, images and ports: probes
//! and lifecycle handlers (`validateProbe`, `validateHandler`), environment sources
//! (`validateEnvVarValueFrom`, `ValidateEnvFrom`), volume mounts (`ValidateVolumeMounts`) and
//! resize policies, with the real server's messages and paths (some without the list index,
//! as Go writes them).

use std::collections::HashSet;

use serde_json::Value;

use super::errors::{
    Errors, check_nonnegative, check_port_num_or_name, child, config_key, dns1123_subdomain,
    duplicate, forbidden, index, invalid, invalid_str, not_supported, required, required_because,
};
use crate::support::meta::qualified_name_errors;
use crate::support::status::Cause;

const HANDLERS: &[&str] = &["exec", "httpGet", "tcpSocket", "grpc", "sleep"];
const SCHEMES: &[&str] = &["HTTP", "HTTPS"];
const ENV_FIELD_PATHS: &[&str] = &[
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];
/// The labels `ConvertDownwardAPIFieldLabel` knows for pods.
const POD_FIELD_LABELS: &[&str] = &[
    "metadata.annotations",
    "metadata.labels",
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.serviceAccountName",
    "spec.schedulerName",
    "status.phase",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
];
const RESOURCE_FIELDS: &[&str] = &[
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
];
const DIVISORS: &[&str] = &[
    "1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei",
];
const PROPAGATIONS: &[&str] = &["Bidirectional", "HostToContainer", "None"];
const RECURSIVE_READ_ONLY: &[&str] = &["Disabled", "Enabled", "IfPossible"];

/// `field.Invalid` with the value `""` (Go passes an empty string where it has no value).
fn invalid_empty(path: &str, why: &str) -> Cause {
    invalid_str(path, "", why)
}

/// `validateHandler`: exactly one handler, and that handler's own rules; `kinds` are those
/// the holder may have (a probe's, or a lifecycle hook's).
fn handler(h: &Value, path: &str, grace: i64, kinds: &[&str]) -> Errors {
    let mut out = Vec::new();
    let mut count = 0;
    for kind in HANDLERS.iter().filter(|k| kinds.contains(k)) {
        let action = &h[*kind];
        if action.is_null() {
            continue;
        }
        let at = child(path, kind);
        if count > 0 {
            out.push(forbidden(&at, "may not specify more than 1 handler type"));
            continue;
        }
        count += 1;
        match *kind {
            "exec" => {
                if action["command"].as_array().is_none_or(Vec::is_empty) {
                    out.push(required(&child(&at, "command")));
                }
            }
            "httpGet" => {
                if action["path"].as_str().unwrap_or_default().is_empty() {
                    out.push(required(&child(&at, "path")));
                }
                out.extend(check_port_num_or_name(&child(&at, "port"), &action["port"]));
                let scheme = action["scheme"].as_str().unwrap_or_default();
                if !SCHEMES.contains(&scheme) {
                    out.push(not_supported(&child(&at, "scheme"), scheme, SCHEMES));
                }
                for header in action["httpHeaders"].as_array().into_iter().flatten() {
                    let name = header["name"].as_str().unwrap_or_default();
                    if name.is_empty()
                        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    {
                        out.push(invalid_str(
                            &child(&at, "httpHeaders"),
                            name,
                            "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
                        ));
                    }
                }
            }
            "tcpSocket" => out.extend(check_port_num_or_name(&child(&at, "port"), &action["port"])),
            "grpc" => {
                let port = Value::from(action["port"].as_i64().unwrap_or(0));
                out.extend(check_port_num_or_name(&child(&at, "port"), &port));
            }
            _ => {
                let seconds = action["seconds"].as_i64().unwrap_or(0);
                if !(0..=grace).contains(&seconds) {
                    out.push(invalid(
                        &at,
                        &seconds.into(),
                        &format!(
                            "must be non-negative and less than terminationGracePeriodSeconds ({grace})"
                        ),
                    ));
                }
            }
        }
    }
    if count == 0 {
        out.push(required_because(path, "must specify a handler type"));
    }
    out
}

/// `validateLifecycle`: the post-start and pre-stop hooks.
pub(super) fn lifecycle(lifecycle: &Value, path: &str, grace: i64) -> Errors {
    let mut out = Vec::new();
    for hook in ["postStart", "preStop"] {
        if lifecycle[hook].is_object() {
            let kinds = &["exec", "httpGet", "tcpSocket", "sleep"];
            out.extend(handler(&lifecycle[hook], &child(path, hook), grace, kinds));
        }
    }
    out
}

/// Which probe: liveness and startup probes need a success threshold of 1, a readiness
/// probe may not have its own termination grace period.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Probe {
    Liveness,
    Readiness,
    Startup,
}

/// `validateLivenessProbe`, `validateReadinessProbe` or `validateStartupProbe`.
pub(super) fn probe(probe: &Value, path: &str, grace: i64, which: Probe) -> Errors {
    if !probe.is_object() {
        return Vec::new();
    }
    let mut out = handler(probe, path, grace, HANDLERS);
    for f in [
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
    ] {
        out.extend(check_nonnegative(&child(path, f), probe.get(f)));
    }
    let own_grace = probe["terminationGracePeriodSeconds"].as_i64();
    if let Some(g) = own_grace.filter(|g| *g <= 0) {
        out.push(invalid(
            &child(path, "terminationGracePeriodSeconds"),
            &g.into(),
            "must be greater than 0",
        ));
    }
    match which {
        Probe::Readiness => {
            if let Some(g) = own_grace {
                out.push(invalid(
                    &child(path, "terminationGracePeriodSeconds"),
                    &g.into(),
                    "must not be set for readinessProbes",
                ));
            }
        }
        _ => {
            let threshold = probe["successThreshold"].as_i64().unwrap_or(0);
            if threshold != 1 {
                out.push(invalid(
                    &child(path, "successThreshold"),
                    &threshold.into(),
                    "must be 1",
                ));
            }
        }
    }
    out
}

/// `fieldpath.SplitMaybeSubscriptedPath`: `metadata.labels['key']` → its path and key.
fn subscripted(path: &str) -> Option<(&str, &str)> {
    let inner = path.strip_suffix("']")?;
    let (head, key) = inner.split_once("['")?;
    (!head.is_empty()).then_some((head, key))
}

/// `validateObjectFieldSelector` of a `fieldRef` whose allowed paths are `allowed`.
pub(super) fn field_ref(fs: &Value, path: &str, allowed: &[&str]) -> Errors {
    let version = fs["apiVersion"].as_str().unwrap_or_default();
    if version.is_empty() {
        return vec![required(&child(path, "apiVersion"))];
    }
    let field_path = fs["fieldPath"].as_str().unwrap_or_default();
    let at = child(path, "fieldPath");
    if field_path.is_empty() {
        return vec![required(&at)];
    }
    let converted = if version != "v1" {
        Err(format!("unsupported pod version: {version}"))
    } else if let Some((head, _)) = subscripted(field_path) {
        if matches!(head, "metadata.annotations" | "metadata.labels") {
            Ok(())
        } else {
            Err(format!(
                "field label does not support subscript: {field_path}"
            ))
        }
    } else if POD_FIELD_LABELS.contains(&field_path) || field_path == "spec.host" {
        Ok(())
    } else {
        Err(format!("field label not supported: {field_path}"))
    };
    if let Err(why) = converted {
        return vec![invalid_str(
            &at,
            field_path,
            &format!("error converting fieldPath: {why}"),
        )];
    }
    let internal = if field_path == "spec.host" {
        "spec.nodeName"
    } else {
        field_path
    };
    match subscripted(internal) {
        Some(("metadata.annotations", key)) => name_errors(path, &key.to_lowercase()),
        Some(("metadata.labels", key)) => name_errors(path, key),
        Some((head, _)) => vec![invalid_str(path, head, "does not support subscript")],
        None if !allowed.contains(&internal) => vec![not_supported(&at, internal, allowed)],
        None => Vec::new(),
    }
}

fn name_errors(path: &str, key: &str) -> Errors {
    qualified_name_errors(key)
        .iter()
        .map(|why| invalid_str(path, key, why))
        .collect()
}

/// `validateContainerResourceFieldSelector` of an environment variable's `resourceFieldRef`,
/// or a downward API volume file's (`volume`), which must name its container.
pub(super) fn resource_field_ref(fs: &Value, path: &str, volume: bool) -> Errors {
    let mut out = Vec::new();
    let resource = fs["resource"].as_str().unwrap_or_default();
    if volume && fs["containerName"].as_str().is_none_or(str::is_empty) {
        out.push(required(&child(path, "containerName")));
    } else if resource.is_empty() {
        out.push(required(&child(path, "resource")));
    } else if !RESOURCE_FIELDS.contains(&resource)
        && !resource.starts_with("requests.hugepages-")
        && !resource.starts_with("limits.hugepages-")
    {
        out.push(not_supported(
            &child(path, "resource"),
            resource,
            RESOURCE_FIELDS,
        ));
    }
    let divisor = fs["divisor"].as_str().map(|d| {
        crate::support::quantity::Quantity::parse(d).map_or(d.to_string(), |q| q.to_string())
    });
    let Some(divisor) = divisor.filter(|d| d != "0") else {
        return out;
    };
    let why = match resource {
        "limits.cpu" | "requests.cpu" if !["1m", "1"].contains(&divisor.as_str()) => {
            Some("only divisor's values 1m and 1 are supported with the cpu resource")
        }
        "limits.memory" | "requests.memory" if !DIVISORS.contains(&divisor.as_str()) => Some(
            "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource",
        ),
        "limits.ephemeral-storage" | "requests.ephemeral-storage"
            if !DIVISORS.contains(&divisor.as_str()) =>
        {
            Some(
                "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource",
            )
        }
        _ => None,
    };
    if let Some(why) = why {
        out.push(invalid_str(&child(path, "divisor"), resource, why));
    }
    out
}

/// `validateConfigMapKeySelector` / `validateSecretKeySelector`.
fn key_selector(sel: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let name = sel["name"].as_str().unwrap_or_default();
    for why in dns1123_subdomain(name) {
        out.push(invalid_str(&child(path, "name"), name, &why));
    }
    let key = sel["key"].as_str().unwrap_or_default();
    if key.is_empty() {
        out.push(required(&child(path, "key")));
    } else {
        for why in config_key(key) {
            out.push(invalid_str(&child(path, "key"), key, &why));
        }
    }
    out
}

/// `validateEnvVarValueFrom` of the variable `var` (its `valueFrom` at `path`).
pub(super) fn value_from(var: &Value, path: &str) -> Errors {
    let from = &var["valueFrom"];
    if !from.is_object() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut sources = 0;
    if from["fieldRef"].is_object() {
        sources += 1;
        out.extend(field_ref(
            &from["fieldRef"],
            &child(path, "fieldRef"),
            ENV_FIELD_PATHS,
        ));
    }
    if from["resourceFieldRef"].is_object() {
        sources += 1;
        out.extend(resource_field_ref(
            &from["resourceFieldRef"],
            &child(path, "resourceFieldRef"),
            false,
        ));
    }
    for kind in ["configMapKeyRef", "secretKeyRef"] {
        if from[kind].is_object() {
            sources += 1;
            out.extend(key_selector(&from[kind], &child(path, kind)));
        }
    }
    let value = var["value"].as_str().unwrap_or_default();
    if sources == 0 {
        out.push(invalid_empty(
            path,
            "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`",
        ));
    } else if !value.is_empty() {
        out.push(invalid_empty(
            path,
            "may not be specified when `value` is not empty",
        ));
    } else if sources > 1 {
        out.push(invalid_empty(
            path,
            "may not have more than one field specified at a time",
        ));
    }
    out
}

/// A relaxed environment variable name's errors (`IsRelaxedEnvVarName`, non-empty names).
pub(super) fn env_name_error(name: &str) -> Option<&'static str> {
    (!name.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'=')).then_some(
        "a valid environment variable name must consist only of printable ASCII characters other than '='",
    )
}

/// `ValidateEnvFrom`.
pub(super) fn env_from(container: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    for (i, source) in container["envFrom"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index(path, i);
        let prefix = source["prefix"].as_str().unwrap_or_default();
        if let Some(why) = (!prefix.is_empty())
            .then(|| env_name_error(prefix))
            .flatten()
        {
            out.push(invalid_str(&child(&at, "prefix"), prefix, why));
        }
        let mut sources = 0;
        for kind in ["configMapRef", "secretRef"] {
            let r = &source[kind];
            if !r.is_object() {
                continue;
            }
            sources += 1;
            let name = r["name"].as_str().unwrap_or_default();
            let name_path = child(&child(&at, kind), "name");
            if name.is_empty() {
                out.push(required(&name_path));
            } else {
                // A name checked as a prefix: a trailing `-` is allowed.
                let masked = match name.strip_suffix('-') {
                    Some(head) => format!("{head}a"),
                    None => name.to_string(),
                };
                for why in dns1123_subdomain(&masked) {
                    out.push(invalid_str(&name_path, name, &why));
                }
            }
        }
        match sources {
            0 => out.push(invalid_empty(
                path,
                "must specify one of: `configMapRef` or `secretRef`",
            )),
            1 => {}
            _ => out.push(invalid_empty(
                path,
                "may not have more than one field specified at a time",
            )),
        }
    }
    out
}

/// `validateLocalDescendingPath` (relative, no `..`) of a mount's sub path at `path`.
fn descending(value: &str, path: &str) -> Errors {
    let mut out = Vec::new();
    if value.starts_with('/') {
        out.push(invalid_str(path, value, "must be a relative path"));
    }
    if value.split('/').any(|p| p == "..") {
        out.push(invalid_str(path, value, "must not contain '..'"));
    }
    out
}

/// `ValidateVolumeMounts` of `container`'s mounts, given the pod's volume names.
pub(super) fn volume_mounts(container: &Value, volumes: &HashSet<String>, path: &str) -> Errors {
    let mut out = Vec::new();
    let mut points = HashSet::new();
    let privileged = container["securityContext"]["privileged"] == true;
    for (i, mount) in container["volumeMounts"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = index(path, i);
        let name = mount["name"].as_str().unwrap_or_default();
        if name.is_empty() {
            out.push(required(&child(&at, "name")));
        }
        if !volumes.contains(name) {
            out.push(Cause {
                reason: "FieldValueNotFound".into(),
                message: format!("Not found: {name:?}"),
                field: child(&at, "name"),
            });
        }
        let mount_path = mount["mountPath"].as_str().unwrap_or_default();
        if mount_path.is_empty() {
            out.push(required(&child(&at, "mountPath")));
        }
        if !points.insert(mount_path.to_string()) {
            out.push(invalid_str(
                &child(&at, "mountPath"),
                mount_path,
                "must be unique",
            ));
        }
        let sub_path = mount["subPath"].as_str().unwrap_or_default();
        if !sub_path.is_empty() {
            out.extend(descending(sub_path, &child(path, "subPath")));
        }
        let expr = mount["subPathExpr"].as_str().unwrap_or_default();
        if !expr.is_empty() {
            if !sub_path.is_empty() {
                out.push(invalid_str(
                    &child(&at, "subPathExpr"),
                    expr,
                    "subPathExpr and subPath are mutually exclusive",
                ));
            }
            out.extend(descending(expr, &child(path, "subPathExpr")));
        }
        let propagation = mount["mountPropagation"].as_str();
        if let Some(p) = propagation {
            let at = child(path, "mountPropagation");
            if !PROPAGATIONS.contains(&p) {
                out.push(not_supported(&at, p, PROPAGATIONS));
            }
            if p == "Bidirectional" && !privileged {
                out.push(forbidden(
                    &at,
                    "Bidirectional mount propagation is available only to privileged containers",
                ));
            }
        }
        if let Some(rro) = mount["recursiveReadOnly"].as_str() {
            let at = child(path, "recursiveReadOnly");
            match rro {
                "Disabled" => {}
                "IfPossible" | "Enabled" => {
                    if mount["readOnly"] != true {
                        out.push(forbidden(
                            &at,
                            "may only be specified when readOnly is true",
                        ));
                    }
                    if propagation.is_some_and(|p| p != "None") {
                        out.push(forbidden(
                            &at,
                            "may only be specified when mountPropagation is None or not specified",
                        ));
                    }
                }
                other => out.push(not_supported(&at, other, RECURSIVE_READ_ONLY)),
            }
        }
    }
    out
}

/// `validateResizePolicy` of a container in a pod whose restart policy is `restart`.
pub(super) fn resize_policy(container: &Value, path: &str, restart: &str) -> Errors {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, p) in container["resizePolicy"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = p["resourceName"].as_str().unwrap_or_default();
        if !seen.insert(name.to_string()) {
            out.push(duplicate(&index(path, i), &Value::from(name)));
        }
        match name {
            "cpu" | "memory" => {}
            "" => out.push(required(path)),
            other => out.push(not_supported(path, other, &["cpu", "memory"])),
        }
        let policy = p["restartPolicy"].as_str().unwrap_or_default();
        match policy {
            "NotRequired" | "RestartContainer" => {}
            "" => out.push(required(path)),
            other => out.push(not_supported(
                path,
                other,
                &["NotRequired", "RestartContainer"],
            )),
        }
        if restart == "Never" && policy != "NotRequired" {
            out.push(invalid_str(
                path,
                policy,
                "must be 'NotRequired' when `restartPolicy` is 'Never'",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::builtin::validation::errors::field_messages;
    use serde_json::json;

    #[test]
    fn probes_need_one_handler_and_a_success_threshold_of_one() {
        let p = json!({"grpc": {"port": 70000}, "successThreshold": 3, "periodSeconds": 10});
        assert_eq!(
            field_messages(&probe(&p, "livenessProbe", 30, Probe::Liveness)),
            [
                "livenessProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive",
                "livenessProbe.successThreshold: Invalid value: 3: must be 1",
            ]
        );
        let two =
            json!({"exec": {"command": ["x"]}, "httpGet": {"port": 80}, "successThreshold": 1});
        assert_eq!(
            field_messages(&probe(&two, "readinessProbe", 30, Probe::Readiness)),
            ["readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type"]
        );
    }

    #[test]
    fn field_refs_are_converted_as_the_downward_api_does() {
        let bogus = json!({"apiVersion": "v1", "fieldPath": "spec.bogus"});
        assert_eq!(
            field_messages(&field_ref(&bogus, "fieldRef", ENV_FIELD_PATHS)),
            [
                "fieldRef.fieldPath: Invalid value: \"spec.bogus\": error converting fieldPath: field label not supported: spec.bogus"
            ]
        );
        let label = json!({"apiVersion": "v1", "fieldPath": "metadata.labels['a/b/c']"});
        assert_eq!(
            field_ref(&label, "fieldRef", ENV_FIELD_PATHS)[0].field,
            "fieldRef"
        );
    }
}
