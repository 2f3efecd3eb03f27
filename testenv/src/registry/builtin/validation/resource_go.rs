//! A ResourceClaim's spec as kube-apiserver prints it in the message of an immutable spec
//! that changed: `encoding/json` of the internal Go struct, whose fields have no JSON tags
//! (so they are named as in Go, in declaration order, all present: `null` for unset
//! pointers and lists, `""` and `0` for unset strings and numbers).

use serde_json::Value;

use crate::support::status::Cause;

/// How one field of a Go struct is written.
enum Kind {
    /// A string (`""` when unset).
    Str,
    /// An int64 (`0` when unset).
    Int,
    /// A pointer to a scalar, a `[]string` or a map: as JSON, `null` when unset.
    Raw,
    /// A pointer to a struct.
    Struct(&'static [Field]),
    /// A struct held by value: its zero value (every field unset) when absent.
    ByValue(&'static [Field]),
    /// A list of structs.
    List(&'static [Field]),
    /// An embedded struct: its fields written inline, read from the same object.
    Inline(&'static [Field]),
}

/// One Go field: its name and the JSON (v1) field it comes from.
struct Field(&'static str, &'static str, Kind);

const CEL: &[Field] = &[Field("Expression", "expression", Kind::Str)];
const SELECTOR: &[Field] = &[Field("CEL", "cel", Kind::Struct(CEL))];
const TOLERATION: &[Field] = &[
    Field("Key", "key", Kind::Str),
    Field("Operator", "operator", Kind::Str),
    Field("Value", "value", Kind::Str),
    Field("Effect", "effect", Kind::Str),
    Field("TolerationSeconds", "tolerationSeconds", Kind::Raw),
];
const CAPACITY: &[Field] = &[Field("Requests", "requests", Kind::Raw)];
const EXACT: &[Field] = &[
    Field("DeviceClassName", "deviceClassName", Kind::Str),
    Field("Selectors", "selectors", Kind::List(SELECTOR)),
    Field("AllocationMode", "allocationMode", Kind::Str),
    Field("Count", "count", Kind::Int),
    Field("AdminAccess", "adminAccess", Kind::Raw),
    Field("Tolerations", "tolerations", Kind::List(TOLERATION)),
    Field("Capacity", "capacity", Kind::Struct(CAPACITY)),
];
const SUB_REQUEST: &[Field] = &[
    Field("Name", "name", Kind::Str),
    Field("DeviceClassName", "deviceClassName", Kind::Str),
    Field("Selectors", "selectors", Kind::List(SELECTOR)),
    Field("AllocationMode", "allocationMode", Kind::Str),
    Field("Count", "count", Kind::Int),
    Field("Tolerations", "tolerations", Kind::List(TOLERATION)),
    Field("Capacity", "capacity", Kind::Struct(CAPACITY)),
];
const REQUEST: &[Field] = &[
    Field("Name", "name", Kind::Str),
    Field("Exactly", "exactly", Kind::Struct(EXACT)),
    Field("FirstAvailable", "firstAvailable", Kind::List(SUB_REQUEST)),
];
const CONSTRAINT: &[Field] = &[
    Field("Requests", "requests", Kind::Raw),
    Field("MatchAttribute", "matchAttribute", Kind::Raw),
    Field("DistinctAttribute", "distinctAttribute", Kind::Raw),
];
const OPAQUE: &[Field] = &[
    Field("Driver", "driver", Kind::Str),
    Field("Parameters", "parameters", Kind::Raw),
];
const CONFIGURATION: &[Field] = &[Field("Opaque", "opaque", Kind::Struct(OPAQUE))];
const CLAIM_CONFIGURATION: &[Field] = &[
    Field("Requests", "requests", Kind::Raw),
    Field("DeviceConfiguration", "", Kind::Inline(CONFIGURATION)),
];
const DEVICES: &[Field] = &[
    Field("Requests", "requests", Kind::List(REQUEST)),
    Field("Constraints", "constraints", Kind::List(CONSTRAINT)),
    Field("Config", "config", Kind::List(CLAIM_CONFIGURATION)),
];
const SPEC: &[Field] = &[Field("Devices", "devices", Kind::Struct(DEVICES))];
const RESULT: &[Field] = &[
    Field("Request", "request", Kind::Str),
    Field("Driver", "driver", Kind::Str),
    Field("Pool", "pool", Kind::Str),
    Field("Device", "device", Kind::Str),
    Field("AdminAccess", "adminAccess", Kind::Raw),
    Field("Tolerations", "tolerations", Kind::List(TOLERATION)),
    Field("BindingConditions", "bindingConditions", Kind::Raw),
    Field(
        "BindingFailureConditions",
        "bindingFailureConditions",
        Kind::Raw,
    ),
    Field("ShareID", "shareID", Kind::Raw),
    Field("ConsumedCapacity", "consumedCapacity", Kind::Raw),
];
const ALLOCATION_CONFIGURATION: &[Field] = &[
    Field("Source", "source", Kind::Str),
    Field("Requests", "requests", Kind::Raw),
    Field("DeviceConfiguration", "", Kind::Inline(CONFIGURATION)),
];
const DEVICE_ALLOCATION: &[Field] = &[
    Field("Results", "results", Kind::List(RESULT)),
    Field("Config", "config", Kind::List(ALLOCATION_CONFIGURATION)),
];
const REQUIREMENT: &[Field] = &[
    Field("Key", "key", Kind::Str),
    Field("Operator", "operator", Kind::Str),
    Field("Values", "values", Kind::Raw),
];
const TERM: &[Field] = &[
    Field(
        "MatchExpressions",
        "matchExpressions",
        Kind::List(REQUIREMENT),
    ),
    Field("MatchFields", "matchFields", Kind::List(REQUIREMENT)),
];
const NODE_SELECTOR: &[Field] = &[Field(
    "NodeSelectorTerms",
    "nodeSelectorTerms",
    Kind::List(TERM),
)];
const ALLOCATION: &[Field] = &[
    Field("Devices", "devices", Kind::ByValue(DEVICE_ALLOCATION)),
    Field("NodeSelector", "nodeSelector", Kind::Struct(NODE_SELECTOR)),
    Field("AllocationTimestamp", "allocationTimestamp", Kind::Raw),
];

/// A JSON string as Go writes it (HTML characters escaped).
fn string(s: &str) -> String {
    Value::String(s.into())
        .to_string()
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

/// Compact JSON as Go writes it: map keys sorted, HTML characters escaped.
fn json(value: &Value) -> String {
    match value {
        Value::String(s) => string(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(json).collect();
            format!("[{}]", items.join(","))
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let entries: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", string(k), json(&map[k])))
                .collect();
            format!("{{{}}}", entries.join(","))
        }
        other => other.to_string(),
    }
}

fn fields(object: &Value, layout: &[Field], out: &mut Vec<String>) {
    for Field(name, key, kind) in layout {
        let value = if key.is_empty() {
            object
        } else {
            &object[*key]
        };
        let text = match kind {
            Kind::Str => string(value.as_str().unwrap_or_default()),
            Kind::Int => value.as_i64().unwrap_or(0).to_string(),
            Kind::Raw if value.is_null() => "null".into(),
            Kind::Raw => json(value),
            Kind::Struct(inner) if value.is_object() => write(value, inner),
            Kind::Struct(_) => "null".into(),
            Kind::ByValue(inner) => write(value, inner),
            Kind::List(inner) => match value.as_array() {
                Some(items) => {
                    let items: Vec<String> = items.iter().map(|i| write(i, inner)).collect();
                    format!("[{}]", items.join(","))
                }
                None => "null".into(),
            },
            Kind::Inline(inner) => {
                fields(value, inner, out);
                continue;
            }
        };
        out.push(format!("\"{name}\":{text}"));
    }
}

fn write(object: &Value, layout: &[Field]) -> String {
    let mut out = Vec::new();
    fields(object, layout, &mut out);
    format!("{{{}}}", out.join(","))
}

/// `json.Marshal` of the internal `ResourceClaimSpec` that `spec` (v1 JSON) converts to.
pub fn claim_spec(spec: &Value) -> String {
    write(spec, SPEC)
}

/// `json.Marshal` of the internal `AllocationResult` that `allocation` (v1 JSON) converts to,
/// as a status update that changes a claim's allocation prints it.
pub fn allocation_result(allocation: &Value) -> String {
    write(allocation, ALLOCATION)
}

/// A claim's immutable-spec or -allocation error with each opaque `Parameters` printed as the real server
/// prints the bytes it keeps (`texts`, in document order) rather than as a sorted map.
pub fn with_raw_texts(mut cause: Cause, texts: &[String]) -> Cause {
    const KEY: &str = "\"Parameters\":";
    let mut texts = texts.iter();
    let mut out = String::new();
    let mut rest = cause.message.as_str();
    while let Some(at) = rest.find(KEY) {
        let start = at + KEY.len();
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let Some(end) = crate::support::go_json::value_end(rest.as_bytes(), 0) else {
            break;
        };
        match texts.next().filter(|_| &rest[..end] != "null") {
            Some(text) => out.push_str(text),
            None => out.push_str(&rest[..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    cause.message = out;
    cause
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_claim_spec_as_the_real_server_prints_it() {
        let spec = json!({"devices": {
            "requests": [{"name": "r2", "exactly": {"deviceClassName": "dc", "allocationMode": "ExactCount", "count": 1}}],
            "constraints": [{"requests": ["r"], "matchAttribute": "dra.example.com/model"}],
            "config": [{"requests": ["r"], "opaque": {"driver": "dra.example.com", "parameters": {"a": 1}}}],
        }});
        assert_eq!(
            claim_spec(&spec),
            r#"{"Devices":{"Requests":[{"Name":"r2","Exactly":{"DeviceClassName":"dc","Selectors":null,"AllocationMode":"ExactCount","Count":1,"AdminAccess":null,"Tolerations":null,"Capacity":null},"FirstAvailable":null}],"Constraints":[{"Requests":["r"],"MatchAttribute":"dra.example.com/model","DistinctAttribute":null}],"Config":[{"Requests":["r"],"Opaque":{"Driver":"dra.example.com","Parameters":{"a":1}}}]}}"#
        );
    }

    #[test]
    fn an_allocation_as_the_real_server_prints_it() {
        let allocation = json!({"devices": {"results": [{"request": "gpu", "driver": "d.example.com", "pool": "p", "device": "z"}],
            "config": [{"source": "FromClaim", "requests": ["gpu"], "opaque": {"driver": "d.example.com", "parameters": {"a": 1}}}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}});
        assert_eq!(
            allocation_result(&allocation),
            r#"{"Devices":{"Results":[{"Request":"gpu","Driver":"d.example.com","Pool":"p","Device":"z","AdminAccess":null,"Tolerations":null,"BindingConditions":null,"BindingFailureConditions":null,"ShareID":null,"ConsumedCapacity":null}],"Config":[{"Source":"FromClaim","Requests":["gpu"],"Opaque":{"Driver":"d.example.com","Parameters":{"a":1}}}]},"NodeSelector":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"k","Operator":"In","Values":["v"]}],"MatchFields":null}]},"AllocationTimestamp":null}"#
        );
        assert_eq!(
            allocation_result(&json!({})),
            r#"{"Devices":{"Results":null,"Config":null},"NodeSelector":null,"AllocationTimestamp":null}"#
        );
    }
}
