//! CustomResourceDefinition-level checks (apiextensions' `ValidateCustomResourceDefinition`):
//! name, group, names, scope, versions, subresources, printer columns, conversion; and the
//! CRD defaults the server applies before them.

use super::errors::FieldError;
use super::names::{dns1035_label, dns1123_subdomain};
use super::structural::check_version_schema;
use super::values::index;
use serde_json::{Map, Value, json};

/// Applies the CRD defaults the apiextensions server sets before validating
/// (`SetDefaults_CustomResourceDefinitionSpec` and friends): `names.singular` = lower-case
/// kind, `names.listKind` = kind + `List`, `conversion.strategy: None`, and `port: 443` on a
/// conversion webhook's service reference.
pub fn apply_crd_defaults(crd: &mut Value) {
    let Some(spec) = crd.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    if let Some(names) = spec.get_mut("names").and_then(Value::as_object_mut) {
        let kind = names
            .get("kind")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if !kind.is_empty() {
            if names
                .get("singular")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                names.insert("singular".into(), Value::from(kind.to_lowercase()));
            }
            if names
                .get("listKind")
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                names.insert("listKind".into(), Value::from(format!("{kind}List")));
            }
        }
    }
    if spec.get("conversion").is_none_or(Value::is_null) {
        spec.insert("conversion".into(), json!({"strategy": "None"}));
    }
    if let Some(service) = spec
        .get_mut("conversion")
        .and_then(|c| c.get_mut("webhook"))
        .and_then(|w| w.get_mut("clientConfig"))
        .and_then(|c| c.get_mut("service"))
        .and_then(Value::as_object_mut)
        && service.get("port").is_none_or(Value::is_null)
    {
        service.insert("port".into(), json!(443));
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    let mut cur = v;
    for p in path {
        match cur.get(p) {
            Some(n) => cur = n,
            None => return "",
        }
    }
    cur.as_str().unwrap_or("")
}

/// Checks a whole CRD (as JSON), after [`apply_crd_defaults`], the way the apiextensions
/// server does on create and update. See [`super::check_structural`].
pub fn check_crd(crd: &Value) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let group = str_at(crd, &["spec", "group"]);
    let plural = str_at(crd, &["spec", "names", "plural"]);
    let name = str_at(crd, &["metadata", "name"]);

    if name.is_empty() {
        errs.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else if name != format!("{plural}.{group}") {
        errs.push(FieldError::invalid(
            "metadata.name",
            &Value::from(name),
            "must be spec.names.plural+\".\"+spec.group",
        ));
    }
    if (group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io"))
        && str_at(
            crd,
            &["metadata", "annotations", "api-approved.kubernetes.io"],
        )
        .is_empty()
    {
        errs.push(FieldError::required(
            "metadata.annotations[api-approved.kubernetes.io]",
            "protected groups must have approval annotation \"api-approved.kubernetes.io\", see https://github.com/kubernetes/enhancements/pull/1111",
        ));
    }

    // spec.group
    if group.is_empty() {
        errs.push(FieldError::required("spec.group", ""));
    } else {
        let msgs = dns1123_subdomain(group);
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(
                "spec.group",
                &Value::from(group),
                &msgs.join(","),
            ));
        } else if !group.contains('.') {
            errs.push(FieldError::invalid(
                "spec.group",
                &Value::from(group),
                "should be a domain with at least one dot",
            ));
        }
    }

    // spec.names
    let names = crd.get("spec").and_then(|s| s.get("names"));
    check_names(names, &mut errs);

    // spec.scope
    let scope = str_at(crd, &["spec", "scope"]);
    if scope.is_empty() {
        errs.push(FieldError::required("spec.scope", ""));
    } else if scope != "Cluster" && scope != "Namespaced" {
        errs.push(FieldError::not_supported(
            "spec.scope",
            &Value::from(scope),
            &["Cluster".into(), "Namespaced".into()],
        ));
    }

    // spec.versions
    let versions = crd
        .get("spec")
        .and_then(|s| s.get("versions"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    check_versions(&versions, &mut errs);

    // spec.conversion
    if let Some(conv) = crd
        .get("spec")
        .and_then(|s| s.get("conversion"))
        .and_then(Value::as_object)
    {
        check_conversion(conv, &mut errs);
    }
    errs
}

fn check_names(names: Option<&Value>, errs: &mut Vec<FieldError>) {
    let get = |k: &str| {
        names
            .and_then(|n| n.get(k))
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    let (plural, singular, kind, list_kind) =
        (get("plural"), get("singular"), get("kind"), get("listKind"));
    for (field, value, lower) in [
        ("plural", plural, false),
        ("singular", singular, false),
        ("kind", kind, true),
        ("listKind", list_kind, true),
    ] {
        let path = format!("spec.names.{field}");
        if value.is_empty() {
            errs.push(FieldError::required(path, ""));
            continue;
        }
        let checked = if lower {
            value.to_lowercase()
        } else {
            value.to_string()
        };
        let msgs = dns1035_label(&checked);
        if !msgs.is_empty() {
            let detail = if lower {
                format!(
                    "may have mixed case, but should otherwise match: {}",
                    msgs.join(",")
                )
            } else {
                msgs.join(",")
            };
            errs.push(FieldError::invalid(path, &Value::from(value), &detail));
        }
    }
    for key in ["shortNames", "categories"] {
        let list = names
            .and_then(|n| n.get(key))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, v) in list.iter().enumerate() {
            let s = v.as_str().unwrap_or("");
            let msgs = dns1035_label(s);
            if !msgs.is_empty() {
                errs.push(FieldError::invalid(
                    index(&format!("spec.names.{key}"), i),
                    v,
                    &msgs.join(","),
                ));
            }
        }
    }
    if !kind.is_empty() && kind == list_kind {
        errs.push(FieldError::invalid(
            "spec.names.listKind",
            &Value::from(list_kind),
            "kind and listKind may not be the same",
        ));
    }
}

fn check_versions(versions: &[Value], errs: &mut Vec<FieldError>) {
    let list = Value::Array(versions.to_vec());
    if versions.is_empty() {
        errs.push(FieldError::required(
            "spec.versions",
            "must have at least one version",
        ));
        return;
    }
    // Identical schemas in every version are one schema to the real server (hoisted to
    // `spec.validation` by its internal version), checked once and reported there.
    let schema_of = |v: &Value| {
        v.get("schema")
            .filter(|s| s.get("openAPIV3Schema").is_some_and(Value::is_object))
            .cloned()
    };
    let shared = schema_of(&versions[0]).filter(|first| {
        versions
            .iter()
            .all(|v| schema_of(v).as_ref() == Some(first))
    });
    if let Some(schema) = &shared {
        errs.extend(check_version_schema(
            &schema["openAPIV3Schema"],
            "spec.validation.openAPIV3Schema",
        ));
    }
    let mut storage = 0;
    let mut seen = std::collections::HashSet::new();
    let mut unique = true;
    for (i, v) in versions.iter().enumerate() {
        let path = index("spec.versions", i);
        if v.get("storage").and_then(Value::as_bool) == Some(true) {
            storage += 1;
        }
        let name = v.get("name").and_then(Value::as_str).unwrap_or("");
        if !seen.insert(name.to_string()) {
            unique = false;
        }
        let msgs = dns1035_label(name);
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(
                format!("{path}.name"),
                &Value::from(name),
                &msgs.join(","),
            ));
        }
        match v
            .get("schema")
            .and_then(|s| s.get("openAPIV3Schema"))
            .filter(|s| s.is_object())
        {
            Some(_) if shared.is_some() => {}
            Some(schema) => errs.extend(check_version_schema(
                schema,
                &format!("{path}.schema.openAPIV3Schema"),
            )),
            None => errs.push(FieldError::required(
                format!("{path}.schema.openAPIV3Schema"),
                "schemas are required",
            )),
        }
        if let Some(sub) = v.get("subresources").and_then(Value::as_object) {
            check_subresources(sub, &format!("{path}.subresources"), errs);
        }
        if let Some(cols) = v.get("additionalPrinterColumns").and_then(Value::as_array) {
            check_printer_columns(cols, &format!("{path}.additionalPrinterColumns"), errs);
        }
    }
    if !unique {
        errs.push(FieldError::invalid(
            "spec.versions",
            &list,
            "must contain unique version names",
        ));
    }
    if storage != 1 {
        errs.push(FieldError::invalid(
            "spec.versions",
            &list,
            "must have exactly one version marked as storage version",
        ));
    }
}

fn check_subresources(sub: &Map<String, Value>, path: &str, errs: &mut Vec<FieldError>) {
    let Some(scale) = sub.get("scale").and_then(Value::as_object) else {
        return;
    };
    let p = format!("{path}.scale");
    let get = |k: &str| scale.get(k).and_then(Value::as_str).unwrap_or("");
    for (key, prefixes, what) in [
        ("specReplicasPath", &[".spec."][..], ".spec"),
        ("statusReplicasPath", &[".status."][..], ".status"),
    ] {
        let v = get(key);
        if v.is_empty() {
            errs.push(FieldError::required(format!("{p}.{key}"), ""));
        } else if !prefixes.iter().any(|pre| v.starts_with(pre)) {
            errs.push(FieldError::invalid(
                format!("{p}.{key}"),
                &Value::from(v),
                &format!("should be a json path under {what}"),
            ));
        }
    }
    let sel = get("labelSelectorPath");
    if !sel.is_empty() && !sel.starts_with(".spec.") && !sel.starts_with(".status.") {
        errs.push(FieldError::invalid(
            format!("{p}.labelSelectorPath"),
            &Value::from(sel),
            "should be a json path under either .spec or .status",
        ));
    }
}

fn check_printer_columns(cols: &[Value], path: &str, errs: &mut Vec<FieldError>) {
    const TYPES: &str = "boolean,date,integer,number,string";
    const FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";
    for (i, col) in cols.iter().enumerate() {
        let p = index(path, i);
        let get = |k: &str| col.get(k).and_then(Value::as_str).unwrap_or("");
        if get("name").is_empty() {
            errs.push(FieldError::required(format!("{p}.name"), ""));
        }
        let ty = get("type");
        let type_detail = format!("must be one of {TYPES}");
        if ty.is_empty() {
            errs.push(FieldError::required(format!("{p}.type"), &type_detail));
        } else if !TYPES.split(',').any(|t| t == ty) {
            errs.push(FieldError::invalid(
                format!("{p}.type"),
                &Value::from(ty),
                &type_detail,
            ));
        }
        let format = get("format");
        if !format.is_empty() && !FORMATS.split(',').any(|f| f == format) {
            errs.push(FieldError::invalid(
                format!("{p}.format"),
                &Value::from(format),
                &format!("must be one of {FORMATS}"),
            ));
        }
        // The real server names this field after its internal Go field.
        let jp = get("jsonPath");
        if jp.is_empty() {
            errs.push(FieldError::required(format!("{p}.JSONPath"), ""));
        } else if !jp.starts_with('.') {
            errs.push(FieldError::invalid(
                format!("{p}.JSONPath"),
                &Value::from(jp),
                "must be a simple json path starting with .",
            ));
        }
    }
}

fn check_conversion(conv: &Map<String, Value>, errs: &mut Vec<FieldError>) {
    // Paths follow the internal type the real server validates:
    // `spec.conversion.webhookClientConfig`, `spec.conversion.conversionReviewVersions`.
    let strategy = conv.get("strategy").and_then(Value::as_str).unwrap_or("");
    let webhook = conv.get("webhook").filter(|w| !w.is_null());
    let client_config = webhook
        .and_then(|w| w.get("clientConfig"))
        .filter(|c| !c.is_null());
    match strategy {
        "" => errs.push(FieldError::required("spec.conversion.strategy", "")),
        "None" | "Webhook" => {}
        other => errs.push(FieldError::not_supported(
            "spec.conversion.strategy",
            &Value::from(other),
            &["None".into(), "Webhook".into()],
        )),
    }
    if strategy == "Webhook" {
        match client_config {
            None => errs.push(FieldError::required(
                "spec.conversion.webhookClientConfig",
                "required when strategy is set to Webhook",
            )),
            Some(cc) => {
                let url = cc.get("url").is_some_and(|u| !u.is_null());
                let service = cc.get("service").is_some_and(|s| !s.is_null());
                if url == service {
                    errs.push(FieldError::required(
                        "spec.conversion.webhookClientConfig",
                        "exactly one of url or service is required",
                    ));
                }
            }
        }
        let versions = webhook
            .and_then(|w| w.get("conversionReviewVersions"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let path = "spec.conversion.conversionReviewVersions";
        if versions.is_empty() {
            errs.push(FieldError::required(
                path,
                "must specify one of v1, v1beta1",
            ));
        } else if !versions
            .iter()
            .any(|v| matches!(v.as_str(), Some("v1" | "v1beta1")))
        {
            errs.push(FieldError::invalid(
                path,
                &Value::Array(versions),
                "must include at least one of v1, v1beta1",
            ));
        }
    } else if client_config.is_some() {
        errs.push(FieldError::forbidden(
            "spec.conversion.webhookClientConfig",
            "should not be set when strategy is not set to Webhook",
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crd_defaults() {
        let mut crd = json!({"spec": {"names": {"kind": "Memcached", "plural": "memcacheds"}}});
        apply_crd_defaults(&mut crd);
        assert_eq!(crd["spec"]["names"]["singular"], "memcached");
        assert_eq!(crd["spec"]["names"]["listKind"], "MemcachedList");
        assert_eq!(crd["spec"]["conversion"], json!({"strategy": "None"}));
        let mut crd = json!({"spec": {"names": {"kind": "M", "singular": "m", "listKind": "Ms"},
            "conversion": {"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"],
                "clientConfig": {"service": {"name": "s", "namespace": "n", "path": "/convert"}}}}}});
        apply_crd_defaults(&mut crd);
        assert_eq!(crd["spec"]["names"]["listKind"], "Ms");
        assert_eq!(
            crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"],
            443
        );
    }
}
