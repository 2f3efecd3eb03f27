//! CustomResourceDefinition-level checks (apiextensions' `ValidateCustomResourceDefinition`):
//! name, group, names, scope, versions, subresources, printer columns, conversion; and the
//! CRD defaults the server applies before them.

use super::errors::{FieldError, FieldErrorKind};
use super::go_internal::internal_versions;
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
/// server does on create (`old` is `None`) and update (`old` is the stored CRD), in its
/// order: metadata, spec (group, scope, missing schemas, each version, version names and
/// storage, names, the shared schema, subresources and columns, conversion), the update's
/// immutable fields, `status.storedVersions`, the API approval annotation. See
/// [`super::check_structural`].
pub fn check_crd(crd: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let group = str_at(crd, &["spec", "group"]);
    let plural = str_at(crd, &["spec", "names", "plural"]);
    let name = str_at(crd, &["metadata", "name"]);

    if name.is_empty() {
        errs.push(FieldError::required(
            "metadata.name",
            "name or generateName is required",
        ));
    } else {
        for msg in dns1123_subdomain(name) {
            errs.push(FieldError::invalid(
                "metadata.name",
                &Value::from(name),
                &msg,
            ));
        }
        if name != format!("{plural}.{group}") {
            errs.push(FieldError::invalid(
                "metadata.name",
                &Value::from(name),
                "must be spec.names.plural+\".\"+spec.group",
            ));
        }
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

    // A missing `versions` is a nil slice to the server, an empty one is not.
    let listed = crd.pointer("/spec/versions").and_then(Value::as_array);
    let versions = listed.cloned().unwrap_or_default();
    let names = crd.get("spec").and_then(|s| s.get("names"));
    check_versions(&versions, listed.is_some(), names, &mut errs);

    // spec.conversion
    if let Some(conv) = crd
        .get("spec")
        .and_then(|s| s.get("conversion"))
        .and_then(Value::as_object)
    {
        check_conversion(conv, &mut errs);
    }

    if let Some(old) = old {
        check_immutable(crd, old, &mut errs);
    }
    check_stored_versions(&versions, old, &mut errs);

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
    errs
}

/// Whether the stored CRD is established (its `Established` condition is true).
fn established(crd: &Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|c| {
            c.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some("Established")
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

/// The update rules: `spec.scope` and `spec.names.kind` never change once the CRD is
/// established, `spec.group` and `spec.names.plural` never (`field is immutable`).
fn check_immutable(new: &Value, old: &Value, errs: &mut Vec<FieldError>) {
    let mut immutable = Vec::new();
    if established(old) {
        immutable.push(("spec.scope", "/spec/scope"));
        immutable.push(("spec.names.kind", "/spec/names/kind"));
    }
    immutable.push(("spec.group", "/spec/group"));
    immutable.push(("spec.names.plural", "/spec/names/plural"));
    for (field, pointer) in immutable {
        let n = new.pointer(pointer).cloned().unwrap_or(Value::Null);
        let o = old.pointer(pointer).cloned().unwrap_or(Value::Null);
        if n != o {
            let shown = if n.is_null() { Value::from("") } else { n };
            errs.push(FieldError::invalid(field, &shown, "field is immutable"));
        }
    }
}

/// `status.storedVersions` as the server validates it: on create the storage version
/// alone, on update the stored CRD's list plus the new storage version; it must not be
/// empty, must hold every version marked as storage and only versions still listed.
fn check_stored_versions(versions: &[Value], old: Option<&Value>, errs: &mut Vec<FieldError>) {
    let mut stored: Vec<String> = old
        .and_then(|o| o.pointer("/status/storedVersions"))
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let name = |v: &Value| {
        v.get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let storage = |v: &&Value| v.get("storage").and_then(Value::as_bool) == Some(true);
    if let Some(first) = versions.iter().find(storage).map(name)
        && !stored.contains(&first)
    {
        stored.push(first);
    }
    let path = "status.storedVersions";
    if stored.is_empty() {
        errs.push(FieldError::invalid(
            path,
            &Value::Null,
            "must have at least one stored version",
        ));
        return;
    }
    let listed: Value = stored.iter().map(|s| Value::from(s.as_str())).collect();
    // The server keeps the stored versions in a map (name to its last index) and deletes
    // each version it meets, so a second version of the same name is not found any more.
    let mut remaining: std::collections::BTreeMap<&str, usize> = stored
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    for v in versions {
        let found = remaining.remove(name(v).as_str()).is_some();
        if storage(&v) && !found {
            errs.push(FieldError::invalid(
                path,
                &listed,
                &format!("must have the storage version {}", name(v)),
            ));
        }
    }
    let mut missing: Vec<(usize, &str)> = remaining.into_iter().map(|(s, i)| (i, s)).collect();
    missing.sort_unstable();
    for (i, s) in missing {
        errs.push(FieldError::invalid(
            index(path, i),
            &Value::from(s),
            &format!(
                "missing from spec.versions; {s} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {s} and removes {s} from status.storedVersions"
            ),
        ));
    }
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
    let fields = [
        ("plural", plural, false),
        ("singular", singular, false),
        ("kind", kind, true),
        ("listKind", list_kind, true),
    ];
    // Every missing name first, then the rules of each name that is set.
    for (field, value, _) in fields {
        if value.is_empty() {
            errs.push(FieldError::required(format!("spec.names.{field}"), ""));
        }
    }
    for (field, value, lower) in fields {
        if value.is_empty() {
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
            errs.push(FieldError::invalid(
                format!("spec.names.{field}"),
                &Value::from(value),
                &detail,
            ));
        }
    }
    let list_of = |key: &str| {
        names
            .and_then(|n| n.get(key))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let check_labels = |key: &str, errs: &mut Vec<FieldError>| {
        for (i, v) in list_of(key).iter().enumerate() {
            let msgs = dns1035_label(v.as_str().unwrap_or(""));
            if !msgs.is_empty() {
                errs.push(FieldError::invalid(
                    index(&format!("spec.names.{key}"), i),
                    v,
                    &msgs.join(","),
                ));
            }
        }
    };
    check_labels("shortNames", errs);
    if !kind.is_empty() && kind == list_kind {
        errs.push(FieldError::invalid(
            "spec.names.listKind",
            &Value::from(list_kind),
            "kind and listKind may not be the same",
        ));
    }
    check_labels("categories", errs);
}

/// Whether every version carries the same (present) value at `key`: the real server then
/// validates it once, as the top-level `spec.validation`, `spec.subresources` or
/// `spec.additionalPrinterColumns` of its internal CRD, and names its errors so.
fn identical_per_version<'a>(versions: &'a [Value], key: &str) -> Option<&'a Value> {
    let first = versions.first()?.get(key).filter(|v| !v.is_null())?;
    versions
        .iter()
        .all(|v| v.get(key) == Some(first))
        .then_some(first)
}

/// The `openAPIV3Schema` object of a version's (or the shared) `schema`, if it has one.
fn open_api_schema(schema: Option<&Value>) -> Option<&Value> {
    schema
        .and_then(|s| s.get("openAPIV3Schema"))
        .filter(|s| s.is_object())
}

/// The checks of `spec.versions` and what depends on them, in the real server's order (see
/// [`check_crd`]); the names are checked between the versions and the shared fields.
fn check_versions(
    versions: &[Value],
    listed: bool,
    names: Option<&Value>,
    errs: &mut Vec<FieldError>,
) {
    let shared_schema = identical_per_version(versions, "schema");
    let shared_subresources = identical_per_version(versions, "subresources");
    let shared_columns = identical_per_version(versions, "additionalPrinterColumns");
    // Without a schema shared by every version, each version needs its own.
    if open_api_schema(shared_schema).is_none() {
        for (i, v) in versions.iter().enumerate() {
            if open_api_schema(v.get("schema")).is_none() {
                errs.push(FieldError::required(
                    format!("{}.schema.openAPIV3Schema", index("spec.versions", i)),
                    "",
                ));
            }
        }
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
        if shared_schema.is_none() {
            check_schema_at(v.get("schema"), &format!("{path}.schema"), errs);
        }
        if shared_subresources.is_none()
            && let Some(sub) = v.get("subresources").and_then(Value::as_object)
        {
            check_subresources(sub, &format!("{path}.subresources"), errs);
        }
        if shared_columns.is_none()
            && let Some(cols) = v.get("additionalPrinterColumns").and_then(Value::as_array)
        {
            check_printer_columns(cols, &format!("{path}.additionalPrinterColumns"), errs);
        }
    }
    if !unique {
        errs.push(internal_versions_invalid(
            versions,
            listed,
            "must contain unique version names",
        ));
    }
    if storage != 1 {
        errs.push(internal_versions_invalid(
            versions,
            listed,
            "must have exactly one version marked as storage version",
        ));
    }
    // The internal CRD's `spec.version` is the first version's name.
    let first = versions
        .first()
        .and_then(|v| v.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if !first.is_empty() {
        let msgs = dns1035_label(first);
        if !msgs.is_empty() {
            errs.push(FieldError::invalid(
                "spec.version",
                &Value::from(first),
                &msgs.join(","),
            ));
        }
    }
    check_names(names, errs);
    if shared_schema.is_some() {
        check_schema_at(shared_schema, "spec.validation", errs);
    }
    if let Some(sub) = shared_subresources.and_then(Value::as_object) {
        check_subresources(sub, "spec.subresources", errs);
    }
    if let Some(cols) = shared_columns.and_then(Value::as_array) {
        check_printer_columns(cols, "spec.additionalPrinterColumns", errs);
    }
}

/// `spec.versions: Invalid value: <the internal versions>: <detail>`.
fn internal_versions_invalid(versions: &[Value], listed: bool, detail: &str) -> FieldError {
    let printed = internal_versions(listed.then_some(versions));
    FieldError {
        field: "spec.versions".into(),
        kind: FieldErrorKind::Invalid,
        message: format!("Invalid value: {printed}: {detail}"),
    }
}

/// Checks the `openAPIV3Schema` of `schema` (a version's `schema`, or the shared one),
/// reporting under `path` (`spec.versions[i].schema` or `spec.validation`); a missing one is
/// reported by [`check_versions`].
fn check_schema_at(schema: Option<&Value>, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(schema) = open_api_schema(schema) {
        errs.extend(check_version_schema(
            schema,
            &format!("{path}.openAPIV3Schema"),
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
