//! API Priority and Fairness (`pkg/apis/flowcontrol/validation`): a PriorityLevelConfiguration's
//! type and the one configuration it may carry (shares, lendable and borrowing percents, the
//! limit response and its queuing, held to the shuffle-sharding entropy limit), a FlowSchema's
//! precedence, distinguisher, priority level and rules (subjects, resource and non-resource
//! rules); the mandatory objects (`exempt`, `catch-all`) must keep the spec the server gives
//! them, as the internal Go struct prints it when they do not.

use serde_json::{Map, Value};

use super::errors::{
    Errors, child, dns1123_label, dns1123_subdomain, forbidden, index, invalid, invalid_str,
    not_supported, required, required_because,
};
use super::go_diff::marshal;
use super::go_struct::{Field, Kind, field};
use crate::support::status::Cause;

const LEVEL_TYPES: &[&str] = &["Exempt", "Limited"];
const LIMIT_RESPONSES: &[&str] = &["Queue", "Reject"];
const DISTINGUISHERS: &[&str] = &["ByNamespace", "ByUser"];
const SUBJECT_KINDS: &[&str] = &["Group", "ServiceAccount", "User"];
const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "proxy",
    "update",
    "watch",
];
const MAX_PRECEDENCE: i64 = 10_000;
const MAX_QUEUES: i64 = 10_000_000;
const MAX_HASH_BITS: f64 = 60.0;
const NS_INTRO: &str = "each member of this list must be '*' or a DNS-1123 label; ";

/// The specs of the mandatory objects as the server creates them (defaulted).
const MANDATORY_CATCH_ALL_LEVEL: &str = r#"{"type":"Limited","limited":{"nominalConcurrencyShares":5,"limitResponse":{"type":"Reject"},"lendablePercent":0}}"#;
const MANDATORY_EXEMPT_LEVEL: &str = r#"{"type":"Exempt"}"#;
const MANDATORY_EXEMPT_SCHEMA: &str = r#"{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":1,"rules":[{"subjects":[{"kind":"Group","group":{"name":"system:masters"}}],"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}"#;
const MANDATORY_CATCH_ALL_SCHEMA: &str = r#"{"priorityLevelConfiguration":{"name":"catch-all"},"matchingPrecedence":10000,"distinguisherMethod":{"type":"ByUser"},"rules":[{"subjects":[{"kind":"Group","group":{"name":"system:unauthenticated"}},{"kind":"Group","group":{"name":"system:authenticated"}}],"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}"#;

use Kind::{Bool, Int, Json, Ptr, Slice, Str, Struct};

const QUEUING: &[Field] = &[
    ("Queues", "queues", Int),
    ("HandSize", "handSize", Int),
    ("QueueLengthLimit", "queueLengthLimit", Int),
];
const LIMIT_RESPONSE: &[Field] = &[("Type", "type", Str), ("Queuing", "queuing", Ptr(QUEUING))];
const LIMITED: &[Field] = &[
    ("NominalConcurrencyShares", "nominalConcurrencyShares", Int),
    ("LimitResponse", "limitResponse", Struct(LIMIT_RESPONSE)),
    ("LendablePercent", "lendablePercent", Json),
    ("BorrowingLimitPercent", "borrowingLimitPercent", Json),
];
const EXEMPT: &[Field] = &[
    ("NominalConcurrencyShares", "nominalConcurrencyShares", Json),
    ("LendablePercent", "lendablePercent", Json),
];
const LEVEL_SPEC: &[Field] = &[
    ("Type", "type", Str),
    ("Limited", "limited", Ptr(LIMITED)),
    ("Exempt", "exempt", Ptr(EXEMPT)),
];
const NAME: &[Field] = &[("Name", "name", Str)];
const SERVICE_ACCOUNT: &[Field] = &[("Namespace", "namespace", Str), ("Name", "name", Str)];
const SUBJECT: &[Field] = &[
    ("Kind", "kind", Str),
    ("User", "user", Ptr(NAME)),
    ("Group", "group", Ptr(NAME)),
    ("ServiceAccount", "serviceAccount", Ptr(SERVICE_ACCOUNT)),
];
const RESOURCE_RULE: &[Field] = &[
    ("Verbs", "verbs", Json),
    ("APIGroups", "apiGroups", Json),
    ("Resources", "resources", Json),
    ("ClusterScope", "clusterScope", Bool),
    ("Namespaces", "namespaces", Json),
];
const NON_RESOURCE_RULE: &[Field] = &[
    ("Verbs", "verbs", Json),
    ("NonResourceURLs", "nonResourceURLs", Json),
];
const RULE: &[Field] = &[
    ("Subjects", "subjects", Slice(SUBJECT)),
    ("ResourceRules", "resourceRules", Slice(RESOURCE_RULE)),
    (
        "NonResourceRules",
        "nonResourceRules",
        Slice(NON_RESOURCE_RULE),
    ),
];
const SCHEMA_SPEC: &[Field] = &[
    (
        "PriorityLevelConfiguration",
        "priorityLevelConfiguration",
        Struct(NAME),
    ),
    ("MatchingPrecedence", "matchingPrecedence", Int),
    (
        "DistinguisherMethod",
        "distinguisherMethod",
        Ptr(&[("Type", "type", Str)]),
    ),
    ("Rules", "rules", Slice(RULE)),
];

fn items(value: &Value) -> &[Value] {
    value.as_array().map_or(&[], Vec::as_slice)
}

fn strings(value: &Value) -> Vec<&str> {
    items(value).iter().filter_map(Value::as_str).collect()
}

/// A spec as the internal Go struct `table` describes prints it.
fn go_text(table: &'static [Field], spec: &Value) -> String {
    marshal(&field(Kind::Struct(table), Some(spec)))
}

/// A value with what `equality.Semantic.DeepEqual` does not tell apart from absence
/// (`null`, empty lists) left out, so two specs compare as the real server compares them.
fn semantic(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, v)| !v.is_null() && v.as_array().is_none_or(|a| !a.is_empty()))
                .map(|(k, v)| (k.clone(), semantic(v)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(list) => Value::Array(list.iter().map(semantic).collect()),
        other => other.clone(),
    }
}

/// Whether two specs are equal as the Go structs `table` describes.
fn same_spec(table: &'static [Field], spec: &Value, fixed: &str) -> bool {
    let fixed: Value = serde_json::from_str(fixed).unwrap_or_default();
    go_text(table, &semantic(spec)) == go_text(table, &semantic(&fixed))
}

/// A `field.NotSupported` whose value Go prints as JSON (a struct, a list).
fn not_supported_json(field: &str, value: &str, supported: &[&str]) -> Cause {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    Cause {
        reason: "FieldValueNotSupported".into(),
        message: format!(
            "Unsupported value: {value}: supported values: {}",
            list.join(", ")
        ),
        field: field.into(),
    }
}

/// `ValidateLimitedPriorityLevelConfiguration`.
fn limited(limited: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let shares = limited["nominalConcurrencyShares"].as_i64().unwrap_or(0);
    if shares < 0 {
        out.push(invalid(
            &child(path, "nominalConcurrencyShares"),
            &shares.into(),
            "must be a non-negative integer",
        ));
    }
    out.extend(limit_response(
        &limited["limitResponse"],
        &child(path, "limitResponse"),
    ));
    if let Some(p) = limited["lendablePercent"]
        .as_i64()
        .filter(|p| !(0..=100).contains(p))
    {
        out.push(invalid(
            &child(path, "lendablePercent"),
            &p.into(),
            "must be between 0 and 100, inclusive",
        ));
    }
    if let Some(p) = limited["borrowingLimitPercent"].as_i64().filter(|p| *p < 0) {
        out.push(invalid(
            &child(path, "borrowingLimitPercent"),
            &p.into(),
            "if specified, must be a non-negative integer",
        ));
    }
    out
}

/// `ValidateLimitResponse`.
fn limit_response(response: &Value, path: &str) -> Errors {
    let queuing = &response["queuing"];
    let queuing_path = child(path, "queuing");
    match response["type"].as_str().unwrap_or_default() {
        "Reject" if queuing.is_object() => vec![forbidden(
            &queuing_path,
            "must be nil if limited.limitResponse.type is not Limited",
        )],
        "Reject" => Vec::new(),
        "Queue" if queuing.is_object() => queuing_errors(queuing, &queuing_path),
        "Queue" => vec![required_because(
            &queuing_path,
            "must not be empty if limited.limitResponse.type is Limited",
        )],
        other => vec![not_supported(&child(path, "type"), other, LIMIT_RESPONSES)],
    }
}

/// `ValidatePriorityLevelQueuingConfiguration`: the queue length, the number of queues and
/// the hand size shuffle sharding deals from them.
fn queuing_errors(queuing: &Value, path: &str) -> Errors {
    let number = |f: &str| queuing[f].as_i64().unwrap_or(0);
    let (queues, hand, length) = (
        number("queues"),
        number("handSize"),
        number("queueLengthLimit"),
    );
    let mut out = Vec::new();
    if length <= 0 {
        out.push(invalid(
            &child(path, "queueLengthLimit"),
            &length.into(),
            "must be positive",
        ));
    }
    let queues_path = child(path, "queues");
    if queues <= 0 {
        out.push(invalid(&queues_path, &queues.into(), "must be positive"));
    } else if queues > MAX_QUEUES {
        out.push(invalid(
            &queues_path,
            &queues.into(),
            &format!("must not be greater than {MAX_QUEUES}"),
        ));
    }
    let hand_path = child(path, "handSize");
    if hand <= 0 {
        out.push(invalid(&hand_path, &hand.into(), "must be positive"));
    } else if hand > queues {
        out.push(invalid(
            &hand_path,
            &hand.into(),
            &format!("should not be greater than queues ({queues})"),
        ));
    } else if ((queues as f64).log2() * hand as f64).ceil() > MAX_HASH_BITS {
        out.push(invalid(
            &hand_path,
            &hand.into(),
            &format!(
                "required entropy bits of deckSize {queues} and handSize {hand} should not be greater than {MAX_HASH_BITS}"
            ),
        ));
    }
    out
}

/// `ValidateExemptPriorityLevelConfiguration`.
fn exempt(exempt: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    if let Some(n) = exempt["nominalConcurrencyShares"]
        .as_i64()
        .filter(|n| *n < 0)
    {
        out.push(invalid(
            &child(path, "nominalConcurrencyShares"),
            &n.into(),
            "must be a non-negative integer",
        ));
    }
    if let Some(p) = exempt["lendablePercent"]
        .as_i64()
        .filter(|p| !(0..=100).contains(p))
    {
        out.push(invalid(
            &child(path, "lendablePercent"),
            &p.into(),
            "must be between 0 and 100, inclusive",
        ));
    }
    out
}

/// `ValidatePriorityLevelConfiguration` (without the metadata): the spec, then a
/// mandatory level's fixed spec (`exempt` may change its exempt configuration).
pub fn priority_level(object: &Value) -> Errors {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let spec = &object["spec"];
    let level_type = spec["type"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    if (name == "exempt") != (level_type == "Exempt") {
        out.push(invalid_str(
            "spec.type",
            level_type,
            "must be 'Exempt' if and only if `name` is 'exempt'",
        ));
    }
    match level_type {
        "Exempt" => {
            if spec["limited"].is_object() {
                out.push(forbidden(
                    "spec.limited",
                    "must be nil if the type is not Limited",
                ));
            }
            if spec["exempt"].is_object() {
                out.extend(exempt(&spec["exempt"], "spec.exempt"));
            }
        }
        "Limited" => {
            if spec["exempt"].is_object() {
                out.push(forbidden(
                    "spec.exempt",
                    "must be nil if the type is Limited",
                ));
            }
            if spec["limited"].is_object() {
                out.extend(limited(&spec["limited"], "spec.limited"));
            } else {
                out.push(required_because(
                    "spec.limited",
                    "must not be empty when type is Limited",
                ));
            }
        }
        other => out.push(not_supported("spec.type", other, LEVEL_TYPES)),
    }
    let printed = || go_text(LEVEL_SPEC, spec);
    match name {
        "exempt" => {
            let mut rest = spec.clone();
            if let Some(o) = rest.as_object_mut() {
                o.remove("exempt");
            }
            if !same_spec(LEVEL_SPEC, &rest, MANDATORY_EXEMPT_LEVEL) {
                out.push(fixed_spec(
                    &printed(),
                    "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value",
                ));
            }
        }
        "catch-all" if !same_spec(LEVEL_SPEC, spec, MANDATORY_CATCH_ALL_LEVEL) => {
            out.push(fixed_spec(
                &printed(),
                "spec of 'catch-all' must equal the fixed value",
            ));
        }
        _ => {}
    }
    out
}

fn fixed_spec(printed: &str, why: &str) -> Cause {
    Cause {
        reason: "FieldValueInvalid".into(),
        message: format!("Invalid value: {printed}: {why}"),
        field: "spec".into(),
    }
}

/// `ValidateFlowSchema` (without the metadata).
pub fn flow_schema(object: &Value) -> Errors {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let spec = &object["spec"];
    let mut out = Vec::new();
    let precedence = spec["matchingPrecedence"].as_i64().unwrap_or(0);
    let precedence_path = "spec.matchingPrecedence";
    if precedence <= 0 {
        out.push(invalid(
            precedence_path,
            &precedence.into(),
            "must be a positive value",
        ));
    }
    if precedence > MAX_PRECEDENCE {
        out.push(invalid(
            precedence_path,
            &precedence.into(),
            &format!("must not be greater than {MAX_PRECEDENCE}"),
        ));
    }
    if precedence == 1 && name != "exempt" {
        out.push(invalid(
            precedence_path,
            &precedence.into(),
            "only the schema named 'exempt' may have matchingPrecedence 1",
        ));
    }
    let method = &spec["distinguisherMethod"];
    if method.is_object() && !DISTINGUISHERS.contains(&method["type"].as_str().unwrap_or_default())
    {
        let printed = marshal(&field(Kind::Struct(&[("Type", "type", Str)]), Some(method)));
        out.push(not_supported_json(
            "spec.distinguisherMethod.type",
            &printed,
            DISTINGUISHERS,
        ));
    }
    let level = spec["priorityLevelConfiguration"]["name"]
        .as_str()
        .unwrap_or_default();
    let level_path = "spec.priorityLevelConfiguration.name";
    if level.is_empty() {
        out.push(required_because(
            level_path,
            "must reference a priority level",
        ));
    }
    for why in dns1123_subdomain(level)
        .iter()
        .filter(|_| !level.is_empty())
    {
        out.push(invalid_str(level_path, level, why));
    }
    for (i, rule) in items(&spec["rules"]).iter().enumerate() {
        out.extend(rule_errors(rule, &index("spec.rules", i)));
    }
    let fixed = match name {
        "exempt" => Some(MANDATORY_EXEMPT_SCHEMA),
        "catch-all" => Some(MANDATORY_CATCH_ALL_SCHEMA),
        _ => None,
    };
    if fixed.is_some_and(|fixed| !same_spec(SCHEMA_SPEC, spec, fixed)) {
        out.push(fixed_spec(
            &go_text(SCHEMA_SPEC, spec),
            &format!("spec of '{name}' must equal the fixed value"),
        ));
    }
    out
}

/// `ValidateFlowSchemaPolicyRulesWithSubjects`.
fn rule_errors(rule: &Value, path: &str) -> Errors {
    let mut out = Vec::new();
    let subjects = items(&rule["subjects"]);
    if subjects.is_empty() {
        out.push(required_because(
            &child(path, "subjects"),
            "subjects must contain at least one value",
        ));
    }
    for (i, subject) in subjects.iter().enumerate() {
        out.extend(subject_errors(subject, &index(&child(path, "subjects"), i)));
    }
    let (resource_rules, non_resource_rules) = (
        items(&rule["resourceRules"]),
        items(&rule["nonResourceRules"]),
    );
    if resource_rules.is_empty() && non_resource_rules.is_empty() {
        out.push(required_because(
            path,
            "at least one of resourceRules and nonResourceRules has to be non-empty",
        ));
    }
    for (i, r) in resource_rules.iter().enumerate() {
        out.extend(resource_rule(r, &index(&child(path, "resourceRules"), i)));
    }
    for (i, r) in non_resource_rules.iter().enumerate() {
        out.extend(non_resource_rule(
            r,
            &index(&child(path, "nonResourceRules"), i),
        ));
    }
    out
}

/// `ValidateFlowSchemaSubject`: the member its kind names, and no other.
fn subject_errors(subject: &Value, path: &str) -> Errors {
    let kind = subject["kind"].as_str().unwrap_or_default();
    let own = match kind {
        "ServiceAccount" => "serviceAccount",
        "User" => "user",
        "Group" => "group",
        other => return vec![not_supported(&child(path, "kind"), other, SUBJECT_KINDS)],
    };
    let mut out = Vec::new();
    let member = &subject[own];
    let member_path = child(path, own);
    if !member.is_object() {
        out.push(required_because(
            &member_path,
            &format!("{own} is required when subject kind is '{kind}'"),
        ));
    } else {
        let name = member["name"].as_str().unwrap_or_default();
        let name_path = child(&member_path, "name");
        if name.is_empty() {
            out.push(required(&name_path));
        }
        if own == "serviceAccount" {
            if !name.is_empty() && name != "*" {
                for why in dns1123_subdomain(name) {
                    out.push(invalid_str(&name_path, name, &why));
                }
            }
            let ns = member["namespace"].as_str().unwrap_or_default();
            let ns_path = child(&member_path, "namespace");
            if ns.is_empty() {
                out.push(required_because(
                    &ns_path,
                    "must specify namespace for service account",
                ));
            }
            for why in dns1123_label(ns).iter().filter(|_| !ns.is_empty()) {
                out.push(invalid_str(&ns_path, ns, why));
            }
        }
    }
    // The members a kind does not name, in the real server's order for that kind.
    let others: &[(&str, &str)] = match own {
        "serviceAccount" => &[("user", "User"), ("group", "Group")],
        "user" => &[("serviceAccount", "ServiceAccount"), ("group", "Group")],
        _ => &[("serviceAccount", "ServiceAccount"), ("user", "User")],
    };
    for (other, other_kind) in others {
        if subject[*other].is_object() {
            out.push(forbidden(
                &child(path, other),
                &format!("{other} is forbidden when subject kind is not '{other_kind}'"),
            ));
        }
    }
    out
}

/// The verbs of a rule: required, `*` alone, or only verbs the server knows.
fn verbs(rule: &Value, path: &str) -> Errors {
    let list = strings(&rule["verbs"]);
    let verbs_path = child(path, "verbs");
    if list.is_empty() {
        vec![required_because(
            &verbs_path,
            "verbs must contain at least one value",
        )]
    } else if list.contains(&"*") {
        if list.len() > 1 {
            vec![invalid(
                &verbs_path,
                &rule["verbs"],
                "if '*' is present, must not specify other verbs",
            )]
        } else {
            Vec::new()
        }
    } else if list.iter().any(|v| !VERBS.contains(v)) {
        vec![not_supported_json(
            &verbs_path,
            &rule["verbs"].to_string(),
            VERBS,
        )]
    } else {
        Vec::new()
    }
}

/// `ValidateFlowSchemaResourcePolicyRule`.
fn resource_rule(rule: &Value, path: &str) -> Errors {
    let mut out = verbs(rule, path);
    for (f, what) in [("apiGroups", "api group"), ("resources", "resource")] {
        let list = strings(&rule[f]);
        if list.is_empty() {
            out.push(required_because(
                &child(path, f),
                &format!("resource rules must supply at least one {what}"),
            ));
        } else if list.len() > 1 && list.contains(&"*") {
            out.push(invalid(
                &child(path, f),
                &rule[f],
                &format!("if '*' is present, must not specify other {what}s"),
            ));
        }
    }
    let namespaces = strings(&rule["namespaces"]);
    let ns_path = child(path, "namespaces");
    if namespaces.is_empty() && rule["clusterScope"].as_bool() != Some(true) {
        out.push(required_because(
            &ns_path,
            "resource rules that are not cluster scoped must supply at least one namespace",
        ));
    } else if namespaces.contains(&"*") {
        if namespaces.len() > 1 {
            out.push(invalid(
                &ns_path,
                &rule["namespaces"],
                "if '*' is present, must not specify other namespaces",
            ));
        }
    } else {
        for (i, ns) in namespaces.iter().enumerate() {
            for why in dns1123_label(ns) {
                out.push(invalid_str(
                    &index(&ns_path, i),
                    ns,
                    &format!("{NS_INTRO}{why}"),
                ));
            }
        }
    }
    out
}

/// `ValidateFlowSchemaNonResourcePolicyRule`.
fn non_resource_rule(rule: &Value, path: &str) -> Errors {
    let mut out = verbs(rule, path);
    let urls = strings(&rule["nonResourceURLs"]);
    let urls_path = child(path, "nonResourceURLs");
    if urls.is_empty() {
        out.push(required_because(
            &urls_path,
            "nonResourceURLs must contain at least one value",
        ));
    } else if urls.contains(&"*") {
        if urls.len() > 1 {
            out.push(invalid(
                &urls_path,
                &rule["nonResourceURLs"],
                "if '*' is present, must not specify other non-resource URLs",
            ));
        }
    } else {
        for (i, url) in urls.iter().enumerate() {
            if let Some(why) = url_error(url) {
                out.push(invalid_str(&index(&urls_path, i), url, why));
            }
        }
    }
    out
}

/// `ValidateNonResourceURLPath`: why a non-resource URL is not a clean absolute path with
/// at most a trailing `/*`.
fn url_error(url: &str) -> Option<&'static str> {
    if url.is_empty() {
        return Some("must not be empty");
    }
    if url == "/" {
        return None;
    }
    if !url.starts_with('/') {
        return Some("must start with slash");
    }
    if url.contains(' ') {
        return Some("must not contain white-space");
    }
    if url.contains("//") {
        return Some("must not contain double slash");
    }
    let stars = url.matches('*').count();
    (stars > 1 || stars == 1 && !url.ends_with("/*"))
        .then_some("wildcard can only do suffix matching")
}
