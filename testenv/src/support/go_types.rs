//! How Go writes the built-in API types as JSON: per struct, its fields in declaration order
//! with their `omitempty`/`omitzero` flags, Go shape and named scalar type (`src/support/go_types.json`,
//! recorded from the Go types of k8s.io/api and friends by `scripts/record-go-types.sh`),
//! joined once with the recorded OpenAPI schemas ([`openapi_schemas`]) so each field knows
//! the struct its values are.
//!
//! kube-apiserver decodes every built-in object into its Go type and encodes it again, so
//! these facts decide what the real server writes: the key order, which zero values are
//! left out, which absent fields come back as `null`. The OpenAPI schemas cannot tell them
//! apart (a `*string` and an `omitempty` string look alike there).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::support::openapi_schemas;

/// The Go shape of a struct field: what its zero value is and how it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A pointer: absent is `nil`; a value, even a zero one, is written.
    Pointer,
    /// A slice (absent is `nil`, written `null`).
    Slice,
    /// A `[]byte`, written as base64 (absent is `nil`, written `null`).
    Bytes,
    /// A map (absent is `nil`, written `null`).
    Map,
    /// A struct value: never left out by `omitempty`, written from its own fields.
    Struct,
    /// A string (zero `""`).
    String,
    /// An integer (zero `0`).
    Int,
    /// A float (zero `0`).
    Float,
    /// A bool (zero `false`).
    Bool,
    /// A `metav1.Time` or `MicroTime` value: zero is written `null`.
    Time,
    /// A `resource.Quantity` value: zero is written `"0"`.
    Quantity,
    /// An `intstr.IntOrString` value: zero is written `0`.
    IntOrString,
    /// A `metav1.Duration` value: zero is written `"0s"`.
    Duration,
    /// A raw value (`runtime.RawExtension`, apiextensions `JSON`, `FieldsV1`): zero is `null`.
    Raw,
}

impl Shape {
    fn parse(letter: u8) -> Option<Shape> {
        Some(match letter {
            b'p' => Shape::Pointer,
            b'l' => Shape::Slice,
            b'y' => Shape::Bytes,
            b'm' => Shape::Map,
            b'o' => Shape::Struct,
            b's' => Shape::String,
            b'i' => Shape::Int,
            b'f' => Shape::Float,
            b'b' => Shape::Bool,
            b't' => Shape::Time,
            b'q' => Shape::Quantity,
            b'x' => Shape::IntOrString,
            b'd' => Shape::Duration,
            b'r' => Shape::Raw,
            _ => return None,
        })
    }
}

/// What the values of a field (or of a list's entries, a map's values) are.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A struct of the table, by index ([`structure`]).
    Struct(usize),
    /// A list whose entries are the inner target.
    List(Box<Target>),
    /// A map whose values are the inner target.
    Map(Box<Target>),
    /// A CRD schema's `items`, `additionalProperties`...: a JSONSchemaProps (the struct), a
    /// list of them, or a bool or strings.
    Schemas(usize),
    /// Anything else: scalars, raw values.
    Other,
}

/// One JSON field of a Go struct.
#[derive(Debug)]
pub struct GoField {
    /// The JSON name.
    pub name: String,
    /// The Go shape.
    pub shape: Shape,
    /// Tagged `omitempty`.
    pub omit_empty: bool,
    /// Tagged `omitzero`.
    pub omit_zero: bool,
    /// What its values are.
    pub target: Target,
    /// The named scalar type its values (or its list's or map's values) have, as `reflect`
    /// prints it (`v1.Protocol`, `types.UID`): what the decoder's type errors name.
    pub named: Option<String>,
    /// A list kind's `items`, which the server builds itself rather than reading it from
    /// storage: empty, it is written `[]`.
    pub items_of_list: bool,
}

/// A Go struct of the built-in API.
#[derive(Debug)]
pub struct GoStruct {
    /// Its OpenAPI component name (`io.k8s.api.apps.v1.DeploymentSpec`).
    pub component: String,
    /// Its JSON fields in declaration order, embedded structs flattened in place.
    pub fields: Vec<GoField>,
}

impl GoField {
    /// Whether Go leaves out `value` of this field: an `omitempty` (or `omitzero`) field at
    /// its zero value, or an empty `omitempty` slice or map.
    pub fn leaves_out(&self, value: &Value) -> bool {
        if !(self.omit_empty || self.omit_zero) {
            return false;
        }
        match (self.shape, value) {
            (Shape::String | Shape::Bytes, Value::String(s)) => s.is_empty(),
            (Shape::Int | Shape::Float, Value::Number(n)) => n.as_f64() == Some(0.0),
            (Shape::Bool, Value::Bool(b)) => !b,
            (Shape::Slice | Shape::Bytes, Value::Array(items)) => items.is_empty(),
            (Shape::Map, Value::Object(map)) => map.is_empty(),
            _ => false,
        }
    }

    /// Whether `value` of this field comes back from storage as `nil`: an empty slice or map
    /// without `omitempty` (kube-apiserver stores built-in objects as protobuf, which keeps
    /// no empty list apart from an absent one), written `null`.
    pub fn comes_back_nil(&self, value: &Value) -> bool {
        match (self.shape, value) {
            (Shape::Slice, Value::Array(items)) => items.is_empty() && !self.items_of_list,
            (Shape::Map, Value::Object(map)) => map.is_empty(),
            _ => false,
        }
    }
}

impl GoStruct {
    /// The field called `name`.
    pub fn field(&self, name: &str) -> Option<&GoField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

struct Table {
    structs: Vec<GoStruct>,
    by_component: HashMap<String, usize>,
    /// Struct index by the address of its component schema in [`openapi_schemas::schemas`].
    by_schema: HashMap<usize, usize>,
}

const SCHEMA_PROPS: &str =
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps";

fn address(schema: &Value) -> usize {
    schema as *const Value as usize
}

/// What values of `schema` (a property, items or additionalProperties schema) are.
fn target_of(schema: &'static Value, table: &Table, either: &[usize]) -> Target {
    let resolved = openapi_schemas::resolve(schema);
    let at = address(resolved);
    if let Some(&i) = table.by_schema.get(&at) {
        return Target::Struct(i);
    }
    if either.contains(&at) {
        return table
            .by_component
            .get(SCHEMA_PROPS)
            .map_or(Target::Other, |&i| Target::Schemas(i));
    }
    if let Some(items) = resolved.get("items") {
        return Target::List(Box::new(target_of(items, table, either)));
    }
    match resolved.get("additionalProperties") {
        Some(values) if values.is_object() => {
            Target::Map(Box::new(target_of(values, table, either)))
        }
        _ => Target::Other,
    }
}

fn parse_field(text: &str) -> GoField {
    let mut parts = text.split(' ');
    let name = parts.next().unwrap_or(text);
    let letters = parts.next().unwrap_or("r");
    let bytes = letters.as_bytes();
    GoField {
        name: name.to_string(),
        named: parts.next().map(str::to_string),
        shape: bytes
            .first()
            .and_then(|b| Shape::parse(*b))
            .unwrap_or(Shape::Raw),
        omit_empty: bytes.contains(&b'e'),
        omit_zero: bytes.contains(&b'z'),
        target: Target::Other,
        items_of_list: false,
    }
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let recorded: Map<String, Value> =
            serde_json::from_str(include_str!("go_types.json")).expect("the Go types are JSON");
        let schemas = openapi_schemas::schemas();
        let mut table = Table {
            structs: Vec::with_capacity(recorded.len()),
            by_component: HashMap::with_capacity(recorded.len()),
            by_schema: HashMap::with_capacity(recorded.len()),
        };
        for (component, fields) in &recorded {
            let fields = fields.as_array().into_iter().flatten();
            let mut fields: Vec<GoField> =
                fields.filter_map(Value::as_str).map(parse_field).collect();
            if component.ends_with("List") {
                for field in fields.iter_mut().filter(|f| f.name == "items") {
                    field.items_of_list = true;
                }
            }
            let i = table.structs.len();
            table.structs.push(GoStruct {
                component: component.clone(),
                fields,
            });
            table.by_component.insert(component.clone(), i);
            if let Some(schema) = schemas.get(component) {
                table.by_schema.insert(address(schema), i);
            }
        }
        let either: Vec<usize> = ["OrArray", "OrBool", "OrStringArray"]
            .iter()
            .filter_map(|tail| schemas.get(&format!("{SCHEMA_PROPS}{tail}")))
            .map(address)
            .collect();
        for i in 0..table.structs.len() {
            let Some(schema) = schemas.get(&table.structs[i].component) else {
                continue;
            };
            let targets: Vec<Target> = table.structs[i]
                .fields
                .iter()
                .map(|f| match schema["properties"].get(&f.name) {
                    Some(property) => target_of(property, &table, &either),
                    None => Target::Other,
                })
                .collect();
            for (field, target) in table.structs[i].fields.iter_mut().zip(targets) {
                field.target = target;
            }
        }
        table
    })
}

/// The struct at `index` (from a [`Target`]).
pub fn structure(index: usize) -> &'static GoStruct {
    &table().structs[index]
}

/// The index of the struct behind OpenAPI `component`.
pub fn index_of(component: &str) -> Option<usize> {
    table().by_component.get(component).copied()
}

/// The struct behind OpenAPI `component`.
pub fn named(component: &str) -> Option<&'static GoStruct> {
    index_of(component).map(structure)
}

/// The struct behind `schema`, a component of the recorded schemas (as
/// [`openapi_schemas::resolve`] gives it).
pub fn of_schema(schema: &Value) -> Option<&'static GoStruct> {
    table()
        .by_schema
        .get(&address(schema))
        .copied()
        .map(structure)
}

/// The index of the struct of the built-in kind `group`/`version`/`kind`.
pub fn index_of_kind(group: &str, version: &str, kind: &str) -> Option<usize> {
    let schema = openapi_schemas::of_kind(group, version, kind)?;
    table().by_schema.get(&address(schema)).copied()
}

/// Drops from `object` (a value of the struct behind OpenAPI `component`) what decoding it
/// into its Go type and encoding it again leaves out: `omitempty` (or `omitzero`) fields at
/// their zero value (`""`, `0`, `false`), empty `omitempty` slices and maps. Empty slices and
/// maps without `omitempty` stay. False when the struct is not recorded (nothing changed).
pub fn drop_left_out(component: &str, object: &mut Map<String, Value>) -> bool {
    let Some(go) = named(component) else {
        return false;
    };
    for field in &go.fields {
        if object.get(&field.name).is_some_and(|v| field.leaves_out(v)) {
            object.remove(&field.name);
        }
    }
    true
}

/// Writes `null` for the time fields of `component` that `object` (a value of that struct)
/// lacks and Go writes as `null` when zero: `metav1.Time` and `MicroTime` values (not
/// pointers), unless tagged `omitzero` (`ObjectMeta.creationTimestamp`).
pub fn write_null_times(component: &str, object: &mut Map<String, Value>) {
    let Some(go) = named(component) else {
        return;
    };
    for field in &go.fields {
        if field.shape == Shape::Time && !field.omit_zero && !object.contains_key(&field.name) {
            object.insert(field.name.clone(), Value::Null);
        }
    }
}

/// Writes `null` for the pointer, slice and map fields of `component` that `object` (a value
/// of that struct) lacks and Go writes as `null` (no `omitempty`): a claim's
/// `dataSourceRef.apiGroup`, a CSINode driver's `topologyKeys`. The field manager sees them
/// so, and credits them to the writer of the struct.
pub fn write_null_pointers(component: &str, object: &mut Map<String, Value>) {
    let Some(go) = named(component) else {
        return;
    };
    for field in &go.fields {
        let nil_written = matches!(
            field.shape,
            Shape::Pointer | Shape::Slice | Shape::Map | Shape::Bytes
        ) && !field.omit_empty
            && !field.omit_zero;
        if nil_written && !object.contains_key(&field.name) {
            object.insert(field.name.clone(), Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(component: &str) -> Vec<&'static str> {
        let go = named(component).unwrap_or_else(|| panic!("{component} is recorded"));
        go.fields.iter().map(|f| f.name.as_str()).collect()
    }

    fn field(component: &str, name: &str) -> &'static GoField {
        named(component)
            .and_then(|s| s.field(name))
            .unwrap_or_else(|| panic!("{component}.{name} is recorded"))
    }

    #[test]
    fn structs_keep_their_go_declaration_order() {
        assert_eq!(
            names("io.k8s.api.apps.v1.DeploymentSpec")[..6],
            [
                "replicas",
                "selector",
                "template",
                "strategy",
                "minReadySeconds",
                "revisionHistoryLimit"
            ]
        );
        // TypeMeta is embedded inline: its fields come first, in its order.
        assert_eq!(
            names("io.k8s.api.apps.v1.Deployment"),
            ["kind", "apiVersion", "metadata", "spec", "status"]
        );
        // An embedded struct of the same package is flattened in place (Volume's source).
        let volume = names("io.k8s.api.core.v1.Volume");
        assert_eq!(volume[..3], ["name", "hostPath", "emptyDir"]);
    }

    #[test]
    fn fields_carry_their_tags_and_shapes() {
        let external = field("io.k8s.api.core.v1.ServiceSpec", "externalName");
        assert_eq!((external.shape, external.omit_empty), (Shape::String, true));
        let rules = field("io.k8s.api.rbac.v1.Role", "rules");
        assert_eq!((rules.shape, rules.omit_empty), (Shape::Slice, false));
        let replicas = field("io.k8s.api.apps.v1.DeploymentSpec", "replicas");
        assert_eq!(replicas.shape, Shape::Pointer);
        let strategy = field("io.k8s.api.apps.v1.DeploymentSpec", "strategy");
        assert_eq!((strategy.shape, strategy.omit_empty), (Shape::Struct, true));
        let created = field(openapi_schemas::OBJECT_META, "creationTimestamp");
        assert_eq!((created.shape, created.omit_zero), (Shape::Time, true));
        let port = field("io.k8s.api.core.v1.ServicePort", "targetPort");
        assert_eq!(port.shape, Shape::IntOrString);
        let ca = field(
            "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec",
            "caBundle",
        );
        assert_eq!(ca.shape, Shape::Bytes);
    }

    #[test]
    fn fields_know_the_structs_of_their_values() {
        let spec = index_of("io.k8s.api.apps.v1.DeploymentSpec").unwrap();
        let deployment = index_of_kind("apps", "v1", "Deployment").unwrap();
        assert_eq!(
            structure(deployment).field("spec").unwrap().target,
            Target::Struct(spec)
        );
        let container = index_of("io.k8s.api.core.v1.Container").unwrap();
        let pod_spec = named("io.k8s.api.core.v1.PodSpec").unwrap();
        assert_eq!(
            pod_spec.field("containers").unwrap().target,
            Target::List(Box::new(Target::Struct(container)))
        );
        let props = named(SCHEMA_PROPS).unwrap();
        let own = index_of(SCHEMA_PROPS).unwrap();
        assert_eq!(
            props.field("properties").unwrap().target,
            Target::Map(Box::new(Target::Struct(own)))
        );
        assert_eq!(props.field("items").unwrap().target, Target::Schemas(own));
        assert_eq!(index_of_kind("apps", "v1", "Nothing"), None);
    }

    #[test]
    fn omitempty_zero_values_are_dropped_and_other_zeros_kept() {
        let mut spec = serde_json::json!({"type": "ClusterIP", "externalName": "", "ports": [],
            "externalIPs": [], "publishNotReadyAddresses": false, "healthCheckNodePort": 0,
            "allocateLoadBalancerNodePorts": false, "selector": {}});
        assert!(drop_left_out(
            "io.k8s.api.core.v1.ServiceSpec",
            spec.as_object_mut().unwrap()
        ));
        // allocateLoadBalancerNodePorts is a *bool: its false stays.
        assert_eq!(
            spec,
            serde_json::json!({"type": "ClusterIP", "allocateLoadBalancerNodePorts": false})
        );
        let mut slice = serde_json::json!({"addressType": "", "endpoints": [], "ports": []});
        drop_left_out(
            "io.k8s.api.discovery.v1.EndpointSlice",
            slice.as_object_mut().unwrap(),
        );
        assert_eq!(
            slice,
            serde_json::json!({"addressType": "", "endpoints": [], "ports": []})
        );
        let endpoints = field("io.k8s.api.discovery.v1.EndpointSlice", "endpoints");
        assert!(endpoints.comes_back_nil(&serde_json::json!([])));
        assert!(!endpoints.comes_back_nil(&serde_json::json!([{}])));
        let items = field("io.k8s.api.core.v1.PodList", "items");
        assert!(!items.comes_back_nil(&serde_json::json!([])));
        assert!(!drop_left_out("io.example.Nothing", &mut Map::new()));
    }

    #[test]
    fn zero_times_that_are_not_pointers_are_null() {
        let mut event = serde_json::json!({"eventTime": "2026-01-01T00:00:00.000000Z"});
        let map = event.as_object_mut().expect("an object");
        write_null_times("io.k8s.api.core.v1.Event", map);
        assert_eq!(
            event,
            serde_json::json!({"eventTime": "2026-01-01T00:00:00.000000Z",
                "firstTimestamp": null, "lastTimestamp": null})
        );
        // A Job's startTime is a pointer; a pod condition's probe time is not.
        let mut status = serde_json::json!({});
        write_null_times(
            "io.k8s.api.batch.v1.JobStatus",
            status.as_object_mut().unwrap(),
        );
        assert_eq!(status, serde_json::json!({}));
        let mut condition = serde_json::json!({"type": "Ready"});
        write_null_times(
            "io.k8s.api.core.v1.PodCondition",
            condition.as_object_mut().unwrap(),
        );
        assert_eq!(
            condition,
            serde_json::json!({"type": "Ready", "lastProbeTime": null, "lastTransitionTime": null})
        );
        // creationTimestamp is `omitzero`.
        let mut meta = serde_json::json!({});
        write_null_times(openapi_schemas::OBJECT_META, meta.as_object_mut().unwrap());
        assert_eq!(meta, serde_json::json!({}));
    }
}
