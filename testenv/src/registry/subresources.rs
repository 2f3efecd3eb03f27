//! The update strategies of the subresources that change one part of an object: a Pod's
//! `ephemeralcontainers` and `resize`, a CertificateSigningRequest's `approval` and
//! `status`. Each takes the stored object and the one sent, and returns what is written:
//! the stored object with only its part taken from what was sent, or the field errors the
//! real server answers with.

use serde_json::{Value, json};

use crate::support::status::Cause;

fn cause(reason: &str, field: &str, message: String) -> Cause {
    Cause {
        reason: reason.into(),
        message,
        field: field.into(),
    }
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str())
        .collect()
}

/// `pods/<name>/ephemeralcontainers`: only `spec.ephemeralContainers` is taken from what
/// was sent ([`check_ephemeral_containers`] checks the result once it is defaulted).
pub fn take_ephemeral_containers(old: &Value, sent: &Value) -> Value {
    let mut new = old.clone();
    match sent["spec"]["ephemeralContainers"].as_array() {
        Some(list) if !list.is_empty() => {
            new["spec"]["ephemeralContainers"] = Value::Array(list.clone());
        }
        _ => {
            new["spec"]
                .as_object_mut()
                .map(|s| s.remove("ephemeralContainers"));
        }
    }
    new
}

/// The checks of a (defaulted) ephemeral containers update: existing ephemeral containers
/// may not change or go; new ones need a unique name and an image, may target an existing
/// container, and may not have ports, probes or resources.
pub fn check_ephemeral_containers(old: &Value, new: &Value) -> Vec<Cause> {
    let before = old["spec"]["ephemeralContainers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let after = new["spec"]["ephemeralContainers"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut causes = Vec::new();
    let field = "spec.ephemeralContainers";
    for existing in &before {
        let name = existing["name"].as_str().unwrap_or_default();
        match after.iter().find(|c| c["name"] == name) {
            None => causes.push(cause(
                "FieldValueForbidden",
                field,
                format!("Forbidden: existing ephemeral containers \"{name}\" may not be removed\n"),
            )),
            Some(now) if now != existing => causes.push(cause(
                "FieldValueForbidden",
                field,
                format!("Forbidden: existing ephemeral containers \"{name}\" may not be changed"),
            )),
            Some(_) => {}
        }
    }
    let regular: Vec<&str> = names(&old["spec"]["containers"])
        .into_iter()
        .chain(names(&old["spec"]["initContainers"]))
        .collect();
    for (i, c) in after.iter().enumerate() {
        let at = |f: &str| format!("{field}[{i}].{f}");
        let name = c["name"].as_str().unwrap_or_default();
        if before.iter().any(|b| b["name"] == name) {
            continue;
        }
        if name.is_empty() {
            causes.push(cause(
                "FieldValueRequired",
                &at("name"),
                "Required value".into(),
            ));
        } else if regular.contains(&name) || after.iter().take(i).any(|o| o["name"] == name) {
            causes.push(cause(
                "FieldValueDuplicate",
                &at("name"),
                format!("Duplicate value: \"{name}\""),
            ));
        }
        if c["image"].as_str().is_none_or(str::is_empty) {
            causes.push(cause(
                "FieldValueRequired",
                &at("image"),
                "Required value".into(),
            ));
        }
        if let Some(target) = c["targetContainerName"].as_str().filter(|t| !t.is_empty())
            && !regular.contains(&target)
        {
            causes.push(cause(
                "FieldValueNotFound",
                &at("targetContainerName"),
                format!("Not found: \"{target}\""),
            ));
        }
        for forbidden in [
            "ports",
            "livenessProbe",
            "readinessProbe",
            "startupProbe",
            "lifecycle",
        ] {
            if c.get(forbidden).is_some_and(|v| !v.is_null()) {
                causes.push(cause(
                    "FieldValueForbidden",
                    &at(forbidden),
                    "Forbidden: cannot be set for an Ephemeral Container".into(),
                ));
            }
        }
        if c["resources"].as_object().is_some_and(|r| {
            r.values()
                .any(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        }) {
            causes.push(cause(
                "FieldValueForbidden",
                &at("resources"),
                "Forbidden: cannot be set for an Ephemeral Container".into(),
            ));
        }
    }
    causes
}

/// `pods/<name>/resize`: only the containers' `resources` and `resizePolicy` are taken, and
/// the Pod's QoS class (as `qos` computes it) may not change.
pub fn resize(
    old: &Value,
    sent: &Value,
    qos: fn(&Value) -> &'static str,
) -> Result<Value, Vec<Cause>> {
    let mut new = old.clone();
    for key in ["containers", "initContainers"] {
        let Some(containers) = new["spec"][key].as_array_mut() else {
            continue;
        };
        for c in containers {
            let name = c["name"].clone();
            let Some(from) = sent["spec"][key]
                .as_array()
                .and_then(|a| a.iter().find(|s| s["name"] == name))
            else {
                continue;
            };
            for field in ["resources", "resizePolicy"] {
                match from.get(field) {
                    Some(v) if !v.is_null() => c[field] = v.clone(),
                    _ => {}
                }
            }
        }
    }
    let before = qos(old);
    if qos(&new) != before {
        return Err(vec![cause(
            "FieldValueInvalid",
            "spec",
            format!(
                "Invalid value: \"{before}\": Pod QOS Class may not change as a result of resizing"
            ),
        )]);
    }
    Ok(new)
}

/// `certificatesigningrequests/<name>/approval`: only `status.conditions` is taken; Approved
/// and Denied exclude each other, and new conditions get their update and transition times.
pub fn approval(old: &Value, sent: &Value, now: &str) -> Result<Value, Vec<Cause>> {
    let mut conditions = sent["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let has = |t: &str| {
        conditions
            .iter()
            .any(|c| c["type"] == t && c["status"] == "True")
    };
    if has("Approved") && has("Denied") {
        return Err(vec![cause(
            "FieldValueInvalid",
            "status.conditions",
            "Invalid value: \"Denied\": Approved and Denied conditions are mutually exclusive"
                .into(),
        )]);
    }
    let previous = old["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for c in &mut conditions {
        let before = previous.iter().find(|p| p["type"] == c["type"]);
        for field in ["lastUpdateTime", "lastTransitionTime"] {
            if c.get(field).is_none_or(Value::is_null) {
                let kept = before
                    .filter(|p| p["status"] == c["status"])
                    .and_then(|p| p.get(field).cloned());
                c[field] = kept.unwrap_or_else(|| json!(now));
            }
        }
    }
    let mut new = old.clone();
    new["status"]["conditions"] = Value::Array(conditions);
    Ok(new)
}

/// `certificatesigningrequests/<name>/status`: the status is taken, but the Approved and
/// Denied conditions stay as they were (they change through `approval` only: adding or
/// removing one is refused), the certificate must hold a certificate, and new conditions
/// get their update and transition times.
pub fn csr_status(old: &Value, sent: &Value, now: &str) -> Result<Value, Vec<Cause>> {
    use base64::Engine;
    let previous = old["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut conditions = sent["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let decided = |t: &Value| t == "Approved" || t == "Denied";
    for c in &mut conditions {
        if decided(&c["type"])
            && let Some(p) = previous.iter().find(|p| p["type"] == c["type"])
        {
            *c = p.clone();
        }
    }
    let mut causes = Vec::new();
    let certificate = sent["status"]["certificate"].as_str().unwrap_or_default();
    if !certificate.is_empty() {
        let pem = base64::engine::general_purpose::STANDARD
            .decode(certificate)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .unwrap_or_default();
        if !pem.contains("-----BEGIN CERTIFICATE-----") {
            causes.push(cause(
                "FieldValueInvalid",
                "status.certificate",
                "Invalid value: \"<certificate data>\": must contain at least one CERTIFICATE PEM block".into(),
            ));
        }
    }
    for t in ["Approved", "Denied"] {
        let count = |list: &[Value]| list.iter().filter(|c| c["type"] == t).count();
        let (before, after) = (count(&previous), count(&conditions));
        let verb = match after.cmp(&before) {
            std::cmp::Ordering::Greater => "add",
            std::cmp::Ordering::Less => "remove",
            std::cmp::Ordering::Equal => continue,
        };
        causes.push(cause(
            "FieldValueForbidden",
            "status.conditions",
            format!("Forbidden: updates may not {verb} a condition of type \"{t}\""),
        ));
    }
    if !causes.is_empty() {
        return Err(causes);
    }
    for c in &mut conditions {
        let before = previous.iter().find(|p| p["type"] == c["type"]);
        for field in ["lastUpdateTime", "lastTransitionTime"] {
            if c.get(field).is_none_or(Value::is_null) {
                let kept = before
                    .filter(|p| p["status"] == c["status"])
                    .and_then(|p| p.get(field).cloned());
                c[field] = kept.unwrap_or_else(|| json!(now));
            }
        }
    }
    let mut new = old.clone();
    new["status"] = sent["status"].clone();
    if conditions.is_empty() {
        if let Some(status) = new["status"].as_object_mut() {
            status.remove("conditions");
        }
    } else {
        new["status"]["conditions"] = Value::Array(conditions);
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ephemeral_containers_are_only_added() {
        let pod = json!({"spec": {"containers": [{"name": "c", "image": "x"}]}});
        let add = json!({"spec": {"ephemeralContainers": [{"name": "dbg", "image": "busybox", "targetContainerName": "c"}], "containers": []}});
        let added = take_ephemeral_containers(&pod, &add);
        assert_eq!(added["spec"]["containers"], pod["spec"]["containers"]);
        assert_eq!(added["spec"]["ephemeralContainers"][0]["name"], "dbg");
        assert!(check_ephemeral_containers(&pod, &added).is_empty());
        let removed = check_ephemeral_containers(&added, &take_ephemeral_containers(&added, &pod));
        assert!(
            removed[0].message.contains("may not be removed"),
            "{removed:?}"
        );
        let dup = json!({"spec": {"ephemeralContainers": [{"name": "c", "image": "x"}]}});
        let dup = check_ephemeral_containers(&pod, &take_ephemeral_containers(&pod, &dup));
        assert_eq!(dup[0].reason, "FieldValueDuplicate");
    }

    #[test]
    fn approval_excludes_denial() {
        let csr = json!({"spec": {}, "status": {}});
        let both = json!({"status": {"conditions": [
            {"type": "Approved", "status": "True"}, {"type": "Denied", "status": "True"}]}});
        assert!(approval(&csr, &both, "now").is_err());
        let ok = json!({"spec": {"x": 1}, "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "R"}]}});
        let approved = approval(&csr, &ok, "now").unwrap();
        assert_eq!(approved["spec"], json!({}));
        assert_eq!(approved["status"]["conditions"][0]["lastUpdateTime"], "now");
    }
}
