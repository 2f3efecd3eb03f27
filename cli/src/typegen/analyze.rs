//! From a CRD version's schema to the [`Module`] of its Rust types.
//!
//! Objects are visited breadth first through a queue, not by recursion, so a very deep schema
//! costs a longer queue, never a deeper stack. Each object with properties becomes a struct
//! named after its path (`Certificate` + `Spec` + `IssuerRef`), each string enum an enum.

use std::collections::{BTreeMap, VecDeque};

use serde_json::Value;

use super::crd::CrdVersion;
use super::model::{EnumDef, Field, Module, RootShape, SchemaFn, StructDef, Ty};
use super::names::{self, TypeNames};
use super::schema::{Additional, Node, without_descriptions};

/// Root properties every object has, which kube's derive provides itself.
const ROOT_META: &[&str] = &["apiVersion", "kind", "metadata"];

/// Field names kube's `#[kube(no_spec)]` keeps for the root (a flattened field may not use them).
const RESERVED_ROOT_IDENTS: &[&str] = &["api_version", "kind", "metadata", "status"];

/// How deep the types may nest (structs, lists and maps) within rustc's default
/// `recursion_limit` of 128: proving a type `Send`, its layout and its drop check recurse up to
/// twice per level, in every crate that uses it (a 60-level type overflows).
const DEFAULT_LIMIT_DEPTH: usize = 48;

/// The catch-all variant of every generated enum.
pub const OTHER_VARIANT: &str = "Other";

/// What a schema node becomes.
enum Shape<'a> {
    Struct,
    Map(Node<'a>),
    AnyObject,
    Any,
    IntOrString,
    List(Option<Node<'a>>),
    Str(Option<Vec<&'a str>>),
    Bool,
    I32,
    I64,
    F64,
}

fn classify(node: Node<'_>) -> Shape<'_> {
    if node.int_or_string() {
        return Shape::IntOrString;
    }
    match node.ty() {
        Some("object") | None if node.properties().is_some() => Shape::Struct,
        Some("object") => {
            if node.preserves_unknown() || node.embedded_resource() {
                return Shape::AnyObject;
            }
            match node.additional() {
                Additional::Schema(values) => Shape::Map(values),
                Additional::Bool(true) => Shape::AnyObject,
                _ => Shape::Struct,
            }
        }
        Some("array") => Shape::List(node.items()),
        Some("string") => Shape::Str(node.string_enum()),
        Some("integer") if node.format() == Some("int32") => Shape::I32,
        Some("integer") => Shape::I64,
        Some("number") => Shape::F64,
        Some("boolean") => Shape::Bool,
        _ => Shape::Any,
    }
}

/// Whether `node` can be the struct a root field (`spec`, `status`) is derived from.
fn struct_like(node: Option<Node<'_>>) -> bool {
    node.is_some_and(|n| matches!(classify(n), Shape::Struct))
}

struct Analysis<'a> {
    names: TypeNames,
    /// The structs to build: name, schema, and how deep it nests (structs, lists and maps
    /// around it; the root's own are 1).
    queue: VecDeque<(String, Node<'a>, usize)>,
    /// That depth for the struct being built.
    depth: usize,
    /// The deepest struct's.
    max_depth: usize,
    structs: Vec<StructDef>,
    enums: Vec<EnumDef>,
    schema_fns: BTreeMap<String, SchemaFn>,
    notes: Vec<String>,
    /// The list-map keys of the structs that are items of `x-kubernetes-list-type: map` lists.
    map_keys: BTreeMap<String, Vec<String>>,
}

/// The types of `version` of the CRD of kind `kind`.
pub fn analyze(kind: &str, version: &CrdVersion) -> Module {
    let root = Node(&version.schema);
    let spec_name = format!("{kind}Spec");
    let status_name = format!("{kind}Status");
    let fields_name = format!("{kind}Fields");
    let root_structs = [spec_name.clone(), status_name.clone()];
    let props = root.properties();
    let prop = |name: &str| props.and_then(|p| p.get(name)).map(Node);
    let spec = prop("spec");
    let status = prop("status");
    let others: Vec<&String> = props
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|k| !ROOT_META.contains(&k.as_str()) && *k != "spec" && *k != "status")
        .collect();
    let status_struct = version.status_subresource && struct_like(status);
    let plain = struct_like(spec) && others.is_empty() && (status.is_none() || status_struct);

    // The names of the root's own structs are taken before any child is named.
    let reserved: Vec<&str> = if plain {
        vec![kind, &spec_name, &status_name]
    } else if status_struct {
        vec![kind, &fields_name, &status_name]
    } else {
        vec![kind, &fields_name]
    };
    let mut analysis = Analysis {
        names: TypeNames::new(&reserved),
        queue: VecDeque::new(),
        depth: 1,
        max_depth: 1,
        structs: Vec::new(),
        enums: Vec::new(),
        schema_fns: BTreeMap::new(),
        notes: Vec::new(),
        map_keys: BTreeMap::new(),
    };

    let (input, shape) = if plain {
        let optional_spec = !root.required().contains(&"spec");
        if optional_spec {
            analysis.notes.push(format!(
                "spec is optional in the CRD: an object without spec (or with `spec: null`) reads as the default {spec_name}, and writes back `spec` (`{{}}` when every field is optional), as Go's typed clients do"
            ));
        }
        let status = status_struct.then(|| {
            analysis
                .queue
                .push_back((status_name.clone(), status.expect("struct_like"), 1));
            status_name.clone()
        });
        analysis
            .queue
            .push_front((spec_name.clone(), spec.expect("struct_like"), 1));
        analysis.drain();
        (
            spec_name,
            RootShape::Spec {
                status,
                optional_spec,
            },
        )
    } else {
        let status = status_struct.then(|| {
            analysis
                .queue
                .push_back((status_name.clone(), status.expect("struct_like"), 1));
            status_name.clone()
        });
        let mut skip: Vec<&str> = ROOT_META.to_vec();
        if status.is_some() {
            skip.push("status");
        }
        let def = analysis.object(&fields_name, kind, root, &skip, RESERVED_ROOT_IDENTS);
        analysis.structs.push(def);
        analysis.drain();
        if !others.is_empty() {
            analysis.notes.push(format!(
                "the root has properties besides spec and status ({}): they are fields of {fields_name}, flattened onto {kind} (#[kube(no_spec)])",
                others.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
            ));
        }
        if prop("status").is_some() && status.is_none() {
            analysis.notes.push(
                "the CRD has no status subresource: status is an ordinary field (status_), written with the object".into(),
            );
        }
        (fields_name, RootShape::Flat { status })
    };
    let recursion_limit = (analysis.max_depth > DEFAULT_LIMIT_DEPTH).then(|| {
        let limit = (2 * analysis.max_depth + 64).next_power_of_two();
        analysis.notes.push(format!(
            "the types nest {} levels deep, past what rustc's default recursion_limit (128) handles: every crate that uses them (src/lib.rs, and each test or binary that does) needs `#![recursion_limit = \"{limit}\"]` at its top (`create api --external` writes it into src/lib.rs, src/main.rs and the controller's test)",
            analysis.max_depth
        ));
        limit
    });
    // kube's derive writes the root's `spec` and `status` fields itself: a default the CRD
    // gives them goes on their structs' schemas.
    for (name, node) in root_structs.iter().zip([spec, status]) {
        if let (Some(node), Some(def)) =
            (node, analysis.structs.iter_mut().find(|s| s.name == *name))
            && let Some(default) = node.default()
        {
            def.extensions.push(("default".to_owned(), default.clone()));
        }
    }
    Module {
        input,
        shape,
        structs: analysis.structs,
        enums: analysis.enums,
        schema_fns: analysis.schema_fns.into_values().collect(),
        notes: analysis.notes,
        recursion_limit,
    }
}

impl<'a> Analysis<'a> {
    /// Builds every queued struct (and those they queue) in order.
    fn drain(&mut self) {
        while let Some((name, node, depth)) = self.queue.pop_front() {
            self.depth = depth;
            let def = self.object(&name, &name, node, &[], &[]);
            self.structs.push(def);
        }
    }

    /// The struct `name` for the object `node`, without the properties in `skip`; its children
    /// are named `prefix` + field. Field identifiers in `reserved` get a trailing `_`.
    fn object(
        &mut self,
        name: &str,
        prefix: &str,
        node: Node<'a>,
        skip: &[&str],
        reserved: &[&str],
    ) -> StructDef {
        let props: Vec<(&'a String, &'a Value)> = node
            .properties()
            .into_iter()
            .flatten()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .collect();
        let json_names: Vec<&str> = props.iter().map(|(k, _)| k.as_str()).collect();
        let idents: Vec<String> = names::field_idents(&json_names, &[])
            .into_iter()
            .map(|i| {
                if reserved.contains(&i.as_str()) {
                    format!("{i}_")
                } else {
                    i
                }
            })
            .collect();
        let required = node.required();
        let mut fields = Vec::with_capacity(props.len());
        for ((json, schema), ident) in props.into_iter().zip(&idents) {
            let child = Node(schema);
            let base = format!("{prefix}{}", names::camel(ident));
            // An embedded resource's `metadata` is an ObjectMeta the server checks and keeps;
            // the schema states no properties for it, so it is kept as a map, not an empty
            // struct that would drop every field.
            let embedded_meta =
                node.embedded_resource() && json == "metadata" && child.properties().is_none();
            let ty = if embedded_meta {
                Ty::AnyObject
            } else {
                self.resolve(child, &base)
            };
            let mut extensions = Vec::new();
            if let Some(default) = child.default() {
                extensions.push(("default".to_owned(), default.clone()));
            }
            if let Some(keys) = child.list_map_keys()
                && let Ty::List(item) = &ty
                && let Ty::Struct(item) = item.as_ref()
            {
                self.map_keys.insert(item.clone(), keys);
            }
            let schema_fn = ty.needs_schema().then(|| self.schema_fn(ident, schema));
            if schema_fn.is_some() {
                extensions.clear();
            } else if !matches!(ty, Ty::Struct(_)) {
                extensions.extend(
                    child
                        .carried_extensions()
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v.clone())),
                );
            }
            let map_key = self
                .map_keys
                .get(name)
                .is_some_and(|keys| keys.iter().any(|k| k == json));
            fields.push(Field {
                map_key,
                ident: ident.clone(),
                json: json.clone(),
                ty,
                required: required.contains(&json.as_str()),
                nullable: child.nullable(),
                doc: child.description().map(str::to_owned),
                schema_fn,
                extensions,
            });
        }
        let unknown_fields = node.preserves_unknown().then(|| {
            let taken: Vec<&str> = idents.iter().map(String::as_str).collect();
            names::field_idents(&["unknown_fields"], &taken).remove(0)
        });
        let mut extensions: Vec<(String, Value)> = node
            .carried_extensions()
            .into_iter()
            .filter(|(k, _)| *k == "x-kubernetes-map-type")
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        if node.embedded_resource() {
            extensions.push(("x-kubernetes-embedded-resource".into(), Value::Bool(true)));
        }
        if node.preserves_unknown() {
            extensions.push((
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            ));
        }
        StructDef {
            name: name.to_owned(),
            doc: node.description().map(str::to_owned),
            fields,
            unknown_fields,
            extensions,
        }
    }

    /// The type of a value described by `node`; structs and enums it needs are named `base`
    /// (made unique). List and map wrappers are unwound in a loop.
    fn resolve(&mut self, node: Node<'a>, base: &str) -> Ty {
        let mut wrappers: Vec<fn(Box<Ty>) -> Ty> = Vec::new();
        let mut node = node;
        let leaf = loop {
            let inner = match classify(node) {
                Shape::List(Some(items)) => {
                    wrappers.push(Ty::List);
                    items
                }
                Shape::List(None) => {
                    wrappers.push(Ty::List);
                    break Ty::Any;
                }
                Shape::Map(values) => {
                    wrappers.push(Ty::Map);
                    values
                }
                Shape::Struct => {
                    let name = self.names.claim(base);
                    let depth = self.depth + 1 + wrappers.len();
                    self.max_depth = self.max_depth.max(depth);
                    self.queue.push_back((name.clone(), node, depth));
                    break Ty::Struct(name);
                }
                Shape::Str(Some(values)) => break Ty::Enum(self.string_enum(node, base, &values)),
                Shape::Str(None) => break Ty::String,
                Shape::AnyObject => break Ty::AnyObject,
                Shape::Any => break Ty::Any,
                Shape::IntOrString => break Ty::IntOrString,
                Shape::Bool => break Ty::Bool,
                Shape::I32 => break Ty::I32,
                Shape::I64 => break Ty::I64,
                Shape::F64 => break Ty::F64,
            };
            if inner.nullable() {
                wrappers.push(Ty::Nullable);
            }
            node = inner;
        };
        wrappers
            .into_iter()
            .rev()
            .fold(leaf, |ty, wrap| wrap(Box::new(ty)))
    }

    fn string_enum(&mut self, node: Node<'_>, base: &str, values: &[&str]) -> String {
        let name = self.names.claim(base);
        let variants = names::variant_names(values, OTHER_VARIANT)
            .into_iter()
            .zip(values.iter().map(|v| (*v).to_owned()))
            .collect();
        self.enums.push(EnumDef {
            name: name.clone(),
            doc: node.description().map(str::to_owned),
            variants,
            other: OTHER_VARIANT.to_owned(),
        });
        name
    }

    /// The helper stating `schema` (without descriptions), named after the field `ident`; one
    /// helper per distinct schema.
    fn schema_fn(&mut self, ident: &str, schema: &Value) -> String {
        let schema = without_descriptions(schema);
        let key = schema.to_string();
        if let Some(existing) = self.schema_fns.get(&key) {
            return existing.name.clone();
        }
        let name = format!("{}_schema", names::unraw(ident).trim_end_matches('_'));
        let name = self.names.claim(&name);
        self.schema_fns.insert(
            key,
            SchemaFn {
                name: name.clone(),
                schema,
            },
        );
        name
    }
}
