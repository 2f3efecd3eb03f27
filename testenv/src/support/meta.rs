//! Object metadata helpers: timestamps, uids, generated names and name validation.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use crate::support::resource::ResourceDef;
use crate::support::status::Cause;

/// The current time as the API server writes it (RFC 3339, seconds, UTC).
pub fn now() -> String {
    let ts = jiff::Timestamp::now();
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// 64 random bits (std's randomly seeded hasher over a counter; not for cryptography).
fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.finish()
}

/// A random RFC 4122 version 4 UUID string, as used for `metadata.uid`.
pub fn new_uid() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let a = random_u64();
    let b = random_u64();
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&a.to_be_bytes());
    bytes[8..].copy_from_slice(&b.to_be_bytes());
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let mut uid = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            uid.push('-');
        }
        uid.push(char::from(HEX[usize::from(byte >> 4)]));
        uid.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    uid
}

/// The name a create with only a `generateName` gets: the prefix itself for an IPAddress
/// (its strategy's generator returns the prefix), else [`generate_name`]'s.
pub fn name_from_prefix(def: &ResourceDef, prefix: &str) -> String {
    if name_rule(&def.group, &def.kind) == NameRule::IpAddress {
        prefix.to_string()
    } else {
        generate_name(prefix)
    }
}

/// `generateName` plus five random characters from the apiserver's alphabet.
pub fn generate_name(prefix: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let prefix: String = prefix.chars().take(253 - 5).collect();
    let mut r = random_u64();
    let mut suffix = String::new();
    for _ in 0..5 {
        suffix.push(ALPHABET[(r % ALPHABET.len() as u64) as usize] as char);
        r /= ALPHABET.len() as u64;
    }
    format!("{prefix}{suffix}")
}

const DNS1123_SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1123_LABEL: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/// Whether `s` has the characters and ends of a DNS-1123 label, whatever its length.
fn has_label_form(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// `IsDNS1123Subdomain`'s rule: at most 253 characters, dot-separated parts of a label's
/// form (no part is held to a label's 63 characters).
fn is_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(has_label_form)
}

/// `IsDNS1123Label`: every message for a value that is not an RFC 1123 label (its length
/// and its form are reported apart, as apimachinery does; a value of a subdomain's form is
/// told it `must not contain dots`).
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 63 {
        out.push("must be no more than 63 characters".to_string());
    }
    if !has_label_form(value) {
        let dotted = value.split('.').all(has_label_form);
        out.push(
            if dotted {
                "must not contain dots"
            } else {
                DNS1123_LABEL
            }
            .to_string(),
        );
    }
    out
}

/// `IsDNS1123Subdomain`: every message for a value that is not an RFC 1123 subdomain.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    if value.len() > 253 {
        out.push("must be no more than 253 characters".to_string());
    }
    if !value.split('.').all(has_label_form) {
        out.push(DNS1123_SUBDOMAIN.to_string());
    }
    out
}

/// The rule a kind's names follow (the name function its `ValidateObjectMeta` is given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameRule {
    /// RBAC objects and APIServices (named `<version>.<group>`): path segments.
    PathSegment,
    /// Namespaces and Services: DNS labels.
    Label,
    /// IPAddresses: an address in canonical form.
    IpAddress,
    /// Everything else: DNS subdomains.
    Subdomain,
    /// CertificateSigningRequests: the kind's strategy checks no name, so only the generic
    /// registry's rule applies (path segments, each forbidden part reported), after the
    /// kind's validation of a create, and never in the kind's checks of the object meta.
    Unchecked,
}

fn name_rule(group: &str, kind: &str) -> NameRule {
    match (group, kind) {
        ("rbac.authorization.k8s.io" | "apiregistration.k8s.io", _) => NameRule::PathSegment,
        // A core Event's strategy checks no name: only the generic registry's rule applies.
        ("", "Event") => NameRule::PathSegment,
        ("", "Namespace" | "Service") => NameRule::Label,
        ("networking.k8s.io", "IPAddress") => NameRule::IpAddress,
        ("certificates.k8s.io", "CertificateSigningRequest") => NameRule::Unchecked,
        _ => NameRule::Subdomain,
    }
}

/// apimachinery's `maskTrailingDash`: a prefix may end in `-` (its last two characters
/// stand in for one letter when it is checked).
fn mask_trailing_dash(prefix: &str) -> String {
    match prefix.strip_suffix('-') {
        Some(head) if prefix.len() > 1 => {
            let mut cut = head.len() - 1;
            while !head.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}a", &head[..cut])
        }
        _ => prefix.to_string(),
    }
}

/// `IsValidPathSegmentName`: not `.` or `..`, then neither `/` nor `%` (each reported).
fn path_segment_errors(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && (name == "." || name == "..") {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|c| name.contains(*c))
        .map(|c| format!("may not contain '{c}'"))
        .collect()
}

/// The messages of `value` under a kind's name rule: as a name, or as a `generateName`
/// prefix (`prefix`), which may end in `-`.
fn rule_errors(rule: NameRule, value: &str, prefix: bool) -> Vec<String> {
    let masked = if prefix {
        mask_trailing_dash(value)
    } else {
        value.to_string()
    };
    match rule {
        // `ValidateRBACName` checks a prefix as a whole name.
        NameRule::PathSegment => path_segment_errors(value, false),
        NameRule::Label => dns1123_label(&masked),
        // An IPAddress's generator uses the prefix as the name.
        NameRule::IpAddress => crate::support::go_ip::ip_address_name_errors(value),
        NameRule::Subdomain => dns1123_subdomain(&masked),
        NameRule::Unchecked => Vec::new(),
    }
}

fn invalid_cause(field: &str, value: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!(
            "Invalid value: {}: {why}",
            crate::support::go_quote::go_quote(value)
        ),
        field: field.into(),
    }
}

/// The errors of an object's `generateName` under the rule of `kind` of `group`, as the
/// kind's validation of a new object's meta reports them (before the name's).
pub fn generate_name_errors(group: &str, kind: &str, object: &Value) -> Vec<Cause> {
    let prefix = meta_str(object, "generateName").unwrap_or_default();
    if prefix.is_empty() {
        return Vec::new();
    }
    rule_errors(name_rule(group, kind), prefix, true)
        .iter()
        .map(|why| invalid_cause("metadata.generateName", prefix, why))
        .collect()
}

/// The errors of an updated object's `generateName` (the main resource's or a status
/// update's): the generic registry checks it as a path segment's prefix, whatever the kind.
pub fn generate_name_update_errors(object: &Value) -> Vec<Cause> {
    let prefix = meta_str(object, "generateName").unwrap_or_default();
    path_segment_errors(prefix, true)
        .iter()
        .map(|why| invalid_cause("metadata.generateName", prefix, why))
        .collect()
}

/// The errors of a created object's `generateName` and name (none given, or one its kind
/// does not accept); on an update (`update`), the generic registry's check of the
/// `generateName`, a path segment's prefix (the name cannot change).
pub fn name_causes(def: &ResourceDef, object: &Value, update: bool) -> Vec<Cause> {
    if update {
        return generate_name_update_errors(object);
    }
    let mut out = generate_name_errors(&def.group, &def.kind, object);
    let name = meta_str(object, "name").unwrap_or_default();
    if name.is_empty() {
        out.push(Cause {
            reason: "FieldValueRequired".into(),
            message: "Required value: name or generateName is required".into(),
            field: "metadata.name".into(),
        });
        return out;
    }
    out.extend(validate_name(def, name));
    out
}

/// The generic registry's check of a created object's `generateName` and name
/// (`ValidateObjectMetaAccessor` with `ValidatePathSegmentName`) for a kind whose own
/// validation checks no name ([`NameRule::Unchecked`]); it runs only once that validation
/// found nothing, so its errors are then the only ones.
pub fn unchecked_name_causes(group: &str, kind: &str, object: &Value) -> Vec<Cause> {
    if name_rule(group, kind) != NameRule::Unchecked {
        return Vec::new();
    }
    let mut out = generate_name_update_errors(object);
    let name = meta_str(object, "name").unwrap_or_default();
    out.extend(
        path_segment_errors(name, false)
            .iter()
            .map(|why| invalid_cause("metadata.name", name, why)),
    );
    out
}

/// The error of a name under its kind's rule (see [`NameRule`]): the first message for a
/// path segment, a label or a subdomain, every message for an IPAddress.
pub fn validate_name(def: &ResourceDef, name: &str) -> Vec<Cause> {
    let rule = name_rule(&def.group, &def.kind);
    if rule == NameRule::PathSegment && !def.group.is_empty() {
        // RBAC objects and APIServices are refused in one sentence (a core Event, by the
        // generic rule, once per forbidden part).
        if name == "." || name == ".." {
            return vec![invalid_cause(
                "metadata.name",
                name,
                &format!("may not be '{name}'"),
            )];
        }
        if name.contains('/') || name.contains('%') {
            return vec![invalid_cause(
                "metadata.name",
                name,
                "may not contain '/' or '%'",
            )];
        }
        return Vec::new();
    }
    let errors = rule_errors(rule, name, false);
    let shown = if matches!(rule, NameRule::IpAddress | NameRule::PathSegment) {
        errors.len()
    } else {
        1
    };
    errors
        .iter()
        .take(shown)
        .map(|why| invalid_cause("metadata.name", name, why))
        .collect()
}

/// Reads `metadata.<field>` as a string.
pub fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get("metadata")?.get(field)?.as_str()
}

/// The object's finalizers.
pub fn finalizers(object: &Value) -> Vec<String> {
    object["metadata"]["finalizers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether the object carries a deletionTimestamp.
pub fn is_deleting(object: &Value) -> bool {
    meta_str(object, "deletionTimestamp").is_some()
}

/// Sets `metadata` to an empty object if it is missing or not an object.
pub fn ensure_metadata(object: &mut Value) {
    if !object.get("metadata").is_some_and(Value::is_object) {
        object["metadata"] = Value::Object(Default::default());
    }
}

/// Whether a write's body asks for a resourceVersion precondition: a JSON patch (an array
/// of operations) touching `/metadata/resourceVersion`, or an object (a patch or a whole
/// object) setting `metadata.resourceVersion`. A conflict is then the client's answer, not
/// a reason for the server to start its write over.
pub fn sets_resource_version(doc: &Value) -> bool {
    match doc.as_array() {
        Some(ops) => ops
            .iter()
            .any(|op| op["path"].as_str() == Some("/metadata/resourceVersion")),
        None => doc["metadata"]["resourceVersion"]
            .as_str()
            .is_some_and(|s| !s.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn uids_and_names() {
        let a = new_uid();
        assert_eq!(a.len(), 36);
        assert_ne!(a, new_uid());
        assert_eq!(&a[14..15], "4");
        let dashes: Vec<usize> = a.match_indices('-').map(|(i, _)| i).collect();
        assert_eq!(dashes, [8, 13, 18, 23]);
        assert!(
            a.chars()
                .all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        let n = generate_name("web-");
        assert!(n.starts_with("web-") && n.len() == 9);
        let cm = ResourceDef::named("", "v1", "ConfigMap", "configmaps");
        assert!(validate_name(&cm, "a.b-c").is_empty());
        assert!(!validate_name(&cm, "Upper").is_empty());
        let ns = ResourceDef::named("", "v1", "Namespace", "namespaces");
        assert!(!validate_name(&ns, "a.b").is_empty());
        // A subdomain's parts are not held to a label's 63 characters; a label is.
        let long = "a".repeat(64);
        let pod = ResourceDef::named("", "v1", "Pod", "pods");
        assert!(validate_name(&pod, &long).is_empty());
        assert!(validate_name(&pod, &format!("x.{long}")).is_empty());
        assert!(!validate_name(&ns, &long).is_empty());
        let role = ResourceDef::named(
            "rbac.authorization.k8s.io",
            "v1",
            "ClusterRole",
            "clusterroles",
        );
        assert!(validate_name(&role, "system:controller:x").is_empty());
        assert!(now().ends_with('Z'));
    }

    #[test]
    fn generate_names_are_checked_as_prefixes_of_the_kinds_names() {
        let cm = ResourceDef::named("", "v1", "ConfigMap", "configmaps");
        let object = |prefix: &str| json!({"metadata": {"generateName": prefix}});
        assert!(generate_name_errors("", "ConfigMap", &object("web-")).is_empty());
        let bad = name_causes(
            &cm,
            &json!({"metadata": {"generateName": "Bad_", "name": "Bad_x"}}),
            false,
        );
        let fields: Vec<&str> = bad.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(fields, ["metadata.generateName", "metadata.name"]);
        // An update checks only that the prefix could be a path segment.
        assert!(name_causes(&cm, &object("Bad_"), true).is_empty());
        assert_eq!(name_causes(&cm, &object("a/b%"), true).len(), 2);
        let ip = ResourceDef::named("networking.k8s.io", "v1", "IPAddress", "ipaddresses");
        assert_eq!(name_from_prefix(&ip, "10.0.0.1"), "10.0.0.1");
        assert_eq!(
            validate_name(&ip, "2001:DB8::1")[0].message,
            r#"Invalid value: "2001:DB8::1": must be in canonical form ("2001:db8::1")"#
        );
        assert_eq!(mask_trailing_dash("ab-"), "aa");
        assert_eq!(mask_trailing_dash("-"), "-");
    }

    #[test]
    fn client_preconditions() {
        assert!(sets_resource_version(
            &json!({"metadata": {"resourceVersion": "5"}})
        ));
        assert!(!sets_resource_version(&json!({"spec": {"a": 1}})));
        assert!(sets_resource_version(
            &json!([{"op": "test", "path": "/metadata/resourceVersion", "value": "5"}])
        ));
        assert!(!sets_resource_version(
            &json!([{"op": "replace", "path": "/spec/a", "value": 1}])
        ));
    }
}

const LABEL_VALUE_RULE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const NAME_PART_RULE: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/// Why `value` cannot be a label value (`IsValidLabelValue`), or `None` when it can.
pub fn label_value_error(value: &str) -> Option<&'static str> {
    if value.len() > 63 {
        Some("must be no more than 63 characters")
    } else if !value.is_empty() && !is_name_part(value) {
        Some(LABEL_VALUE_RULE)
    } else {
        None
    }
}

fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
}

/// Problems with a label key (a qualified name), as apimachinery words them; empty when
/// the key is valid.
pub fn label_key_errors(key: &str) -> Vec<String> {
    qualified_name_errors(key)
}

/// Problems with a qualified name (`[prefix/]name`: label keys, an Event's reporting
/// controller), as apimachinery words them; empty when the name is valid.
pub fn qualified_name_errors(key: &str) -> Vec<String> {
    if key.matches('/').count() > 1 {
        return vec![format!(
            "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
            NAME_PART_RULE.trim_start_matches("name part ")
        )];
    }
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let mut errs = Vec::new();
    if let Some(p) = prefix {
        if p.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else if !is_subdomain(p) {
            errs.push(format!("prefix part {DNS1123_SUBDOMAIN}"));
        }
    }
    // As apimachinery: the length and the pattern are checked apart, so an empty name part
    // breaks both rules.
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    }
    if !is_name_part(name) {
        errs.push(NAME_PART_RULE.to_string());
    }
    errs
}

/// The finalizers every kind knows without a domain.
const STANDARD_FINALIZERS: &[&str] = &["kubernetes", "orphan", "foregroundDeletion"];

/// Validates a list of finalizer names at `field` (a namespace's `spec.finalizers`): each a
/// qualified name, and either a standard one or qualified with a domain.
pub fn validate_finalizer_names(field: &str, names: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    for (i, name) in names.as_array().into_iter().flatten().enumerate() {
        let name = name.as_str().unwrap_or_default();
        let mut whys = qualified_name_errors(name);
        if !STANDARD_FINALIZERS.contains(&name) && !name.contains('/') {
            whys.push("name is neither a standard finalizer name nor is it fully qualified".into());
        }
        causes.extend(whys.into_iter().map(|why| Cause {
            reason: "FieldValueInvalid".into(),
            message: format!("Invalid value: {name:?}: {why}"),
            field: format!("{field}[{i}]"),
        }));
    }
    causes
}

/// `ValidateFinalizers`' conflict: `orphan` and `foregroundDeletion` among an object's
/// finalizers (`metadata.finalizers`) together, which no deletion policy allows; the cause
/// prints the whole list.
pub fn finalizer_conflict(object: &Value) -> Option<Cause> {
    let finalizers = &object["metadata"]["finalizers"];
    let list = finalizers.as_array()?;
    let has = |f: &str| list.iter().any(|x| x == f);
    if !(has("orphan") && has("foregroundDeletion")) {
        return None;
    }
    Some(Cause {
        reason: "FieldValueInvalid".into(),
        message: format!(
            "Invalid value: {finalizers}: finalizer orphan and foregroundDeletion cannot be both set"
        ),
        field: "metadata.finalizers".into(),
    })
}

/// The names in an object's `metadata.finalizers`, in order.
fn finalizer_names(object: &Value) -> impl Iterator<Item = &str> {
    object["metadata"]["finalizers"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f.as_str().unwrap_or_default())
}

/// `ValidateFinalizers`' check of each name in `metadata.finalizers`: a qualified name,
/// reported on the list (`metadata.finalizers`, not indexed), as apimachinery does.
pub fn finalizer_name_errors(object: &Value) -> Vec<Cause> {
    finalizer_names(object)
        .flat_map(|name| {
            qualified_name_errors(name)
                .into_iter()
                .map(move |why| Cause {
                    reason: "FieldValueInvalid".into(),
                    message: format!("Invalid value: {name:?}: {why}"),
                    field: "metadata.finalizers".into(),
                })
        })
        .collect()
}

/// The rule the core API's object meta validation adds for finalizers: a name without a
/// domain (no `/`) must be a standard one, reported at its index.
pub fn kube_finalizer_name_errors(object: &Value) -> Vec<Cause> {
    finalizer_names(object)
        .enumerate()
        .filter(|(_, name)| !name.contains('/') && !STANDARD_FINALIZERS.contains(name))
        .map(|(i, name)| Cause {
            reason: "FieldValueInvalid".into(),
            message: format!(
                "Invalid value: {name:?}: name is neither a standard finalizer name nor is it fully qualified"
            ),
            field: format!("metadata.finalizers[{i}]"),
        })
        .collect()
}

/// The most bytes an object's annotations may hold, keys and values together.
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

/// Validates `metadata.labels` (keys are qualified names, values at most 63 characters
/// of the label alphabet) and `metadata.annotations` (keys, then their total size), like
/// kube-apiserver.
pub fn validate_labels_and_annotations(object: &Value) -> Vec<Cause> {
    let mut causes = Vec::new();
    let invalid = |field: &str, value: &str, why: &str| Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {value:?}: {why}"),
        field: field.into(),
    };
    if let Some(labels) = object["metadata"]["labels"].as_object() {
        for (k, v) in labels {
            for why in qualified_name_errors(k) {
                causes.push(invalid("metadata.labels", k, &why));
            }
            let value = v.as_str().unwrap_or_default();
            if let Some(why) = label_value_error(value) {
                causes.push(invalid("metadata.labels", value, why));
            }
        }
    }
    if let Some(annotations) = object["metadata"]["annotations"].as_object() {
        causes.extend(annotation_errors(annotations, "metadata.annotations"));
    }
    causes
}

/// `ValidateAnnotations` of the annotations at `field`: each key a qualified name (checked
/// lower-cased), then their total size.
pub fn annotation_errors(annotations: &serde_json::Map<String, Value>, field: &str) -> Vec<Cause> {
    let mut causes = Vec::new();
    for k in annotations.keys() {
        for why in qualified_name_errors(&k.to_ascii_lowercase()) {
            causes.push(Cause {
                reason: "FieldValueInvalid".into(),
                message: format!("Invalid value: {k:?}: {why}"),
                field: field.into(),
            });
        }
    }
    let size: usize = annotations
        .iter()
        .map(|(k, v)| k.len() + v.as_str().map_or(0, str::len))
        .sum();
    if size > ANNOTATIONS_SIZE_LIMIT {
        causes.push(Cause {
            reason: "FieldValueTooLong".into(),
            message: format!("Too long: may not be more than {ANNOTATIONS_SIZE_LIMIT} bytes"),
            field: field.into(),
        });
    }
    causes
}

#[cfg(test)]
mod label_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn labels() {
        let ok = json!({"metadata": {"labels": {"app.kubernetes.io/name": "web", "empty": ""}, "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}}});
        assert!(validate_labels_and_annotations(&ok).is_empty());
        let long = "x".repeat(64);
        let bad = json!({"metadata": {"labels": {"bad key!": "v", "k": long, "v": "-x"}}});
        let causes = validate_labels_and_annotations(&bad);
        assert_eq!(causes.len(), 3, "{causes:?}");
        assert!(causes.iter().all(|c| c.field == "metadata.labels"));
    }

    #[test]
    fn orphan_and_foreground_finalizers_conflict() {
        let both = json!({"metadata": {"finalizers": ["x.io/f", "foregroundDeletion", "orphan"]}});
        let cause = finalizer_conflict(&both).expect("a conflict");
        assert_eq!(cause.field, "metadata.finalizers");
        assert_eq!(
            cause.message,
            "Invalid value: [\"x.io/f\",\"foregroundDeletion\",\"orphan\"]: finalizer orphan and foregroundDeletion cannot be both set"
        );
        let one = json!({"metadata": {"finalizers": ["orphan", "kubernetes"]}});
        assert!(finalizer_name_errors(&one).is_empty());
        assert!(kube_finalizer_name_errors(&one).is_empty());
        assert!(finalizer_conflict(&one).is_none());
        assert!(finalizer_conflict(&json!({"metadata": {}})).is_none());
    }

    #[test]
    fn finalizer_names_as_apimachinery_then_the_core_api_check_them() {
        let o = json!({"metadata": {"finalizers": ["x", "a/b!", "a/b/c", "kubernetes", "-x"]}});
        let causes = finalizer_name_errors(&o);
        assert!(causes.iter().all(|c| c.field == "metadata.finalizers"));
        let values: Vec<&str> = causes
            .iter()
            .map(|c| c.message.split('"').nth(1).unwrap_or_default())
            .collect();
        assert_eq!(values, ["a/b!", "a/b/c", "-x"]);
        let kube: Vec<String> = kube_finalizer_name_errors(&o)
            .into_iter()
            .map(|c| c.field)
            .collect();
        assert_eq!(kube, ["metadata.finalizers[0]", "metadata.finalizers[4]"]);
    }

    #[test]
    fn annotations_too_large_together() {
        let big = "x".repeat(ANNOTATIONS_SIZE_LIMIT);
        let o = json!({"metadata": {"annotations": {"k": big}}});
        let causes = validate_labels_and_annotations(&o);
        assert_eq!(causes.len(), 1);
        assert_eq!(causes[0].reason, "FieldValueTooLong");
        let fits =
            json!({"metadata": {"annotations": {"k": "x".repeat(ANNOTATIONS_SIZE_LIMIT - 1)}}});
        assert!(validate_labels_and_annotations(&fits).is_empty());
    }
}
