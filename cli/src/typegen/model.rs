//! The Rust types of one CRD version, before they are written out: what the analysis of the
//! schema produces and the emitter prints.

use serde_json::Value;

/// The type of a field.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// `String` (also `format: date-time`, `byte`, ...: kept as written, so nothing is lost).
    String,
    /// `bool`.
    Bool,
    /// `i32` (`format: int32`).
    I32,
    /// `i64`.
    I64,
    /// `f64` (every `number`: `f32` would round values it reads).
    F64,
    /// `IntOrString` (`x-kubernetes-int-or-string`).
    IntOrString,
    /// `serde_json::Value`: anything (`x-kubernetes-preserve-unknown-fields` without a type).
    Any,
    /// `BTreeMap<String, serde_json::Value>`: an object of anything.
    AnyObject,
    /// A generated struct.
    Struct(String),
    /// A generated string enum.
    Enum(String),
    /// `Vec<T>`.
    List(Box<Ty>),
    /// `BTreeMap<String, T>`.
    Map(Box<Ty>),
    /// `Option<T>` inside a list or map whose items are `nullable`.
    Nullable(Box<Ty>),
}

impl Ty {
    /// Whether the type is, or holds, a value whose schema serde's derive cannot describe
    /// ([`Ty::Any`], [`Ty::AnyObject`]): such a field states its schema verbatim.
    pub fn needs_schema(&self) -> bool {
        match self {
            Ty::Any | Ty::AnyObject => true,
            Ty::List(inner) | Ty::Map(inner) | Ty::Nullable(inner) => inner.needs_schema(),
            _ => false,
        }
    }
}

/// A field of a struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The Rust identifier (`issuer_ref`, `r#type`).
    pub ident: String,
    /// The JSON name (`issuerRef`).
    pub json: String,
    /// Its type, without the `Option` of an optional or nullable field.
    pub ty: Ty,
    /// Listed in the schema's `required`.
    pub required: bool,
    /// `nullable: true`: `null` is a value of its own, kept apart from an absent field.
    pub nullable: bool,
    /// The schema's description.
    pub doc: Option<String>,
    /// The helper function stating the field's schema (see [`Ty::needs_schema`]).
    pub schema_fn: Option<String>,
    /// Schema keywords carried into the generated schema (`default`, list and map types).
    pub extensions: Vec<(String, Value)>,
    /// A key of the `x-kubernetes-list-type: map` list its struct is an item of: the API server
    /// forbids it to be nullable, so the generated schema marks it required (the CRD defaults
    /// it when it is optional).
    pub map_key: bool,
}

/// A generated struct.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDef {
    /// Its name.
    pub name: String,
    /// The schema's description.
    pub doc: Option<String>,
    /// Its fields, in JSON-name order.
    pub fields: Vec<Field>,
    /// The field that keeps the properties the schema does not name
    /// (`x-kubernetes-preserve-unknown-fields` with properties), `#[serde(flatten)]`ed.
    pub unknown_fields: Option<String>,
    /// Schema keywords of the object itself (`x-kubernetes-embedded-resource`, map type).
    pub extensions: Vec<(String, Value)>,
}

/// A generated string enum: a variant per value the schema lists, and a catch-all that keeps
/// any other value, so a server newer than the CRD the types came from does not break reading.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumDef {
    /// Its name.
    pub name: String,
    /// The schema's description.
    pub doc: Option<String>,
    /// `(variant, value)` per listed value.
    pub variants: Vec<(String, String)>,
    /// The catch-all variant, `Other(String)`.
    pub other: String,
}

/// A helper function returning a schema verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFn {
    /// Its name.
    pub name: String,
    /// The schema it returns.
    pub schema: Value,
}

/// How the root type is derived.
#[derive(Debug, Clone, PartialEq)]
pub enum RootShape {
    /// `spec` (and `status`) on the root, as kube-derive's default: the spec struct is the
    /// derive's input.
    Spec {
        /// The status struct, when the CRD has a status subresource.
        status: Option<String>,
        /// The CRD does not require `spec`: the spec struct reads a missing or `null` spec as
        /// its `Default`.
        optional_spec: bool,
    },
    /// Properties other than `spec` and `status` on the root (or no spec): the derive's input is
    /// a struct of every root property, flattened onto the root (`#[kube(no_spec)]`).
    Flat {
        /// The status struct, when the CRD has a status subresource.
        status: Option<String>,
    },
}

/// Everything generated for one CRD version.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    /// The struct `#[derive(CustomResource)]` is on.
    pub input: String,
    /// How the root is derived.
    pub shape: RootShape,
    /// The structs, the derive's input first, then in the order the schema reaches them.
    pub structs: Vec<StructDef>,
    /// The string enums.
    pub enums: Vec<EnumDef>,
    /// The schema helpers.
    pub schema_fns: Vec<SchemaFn>,
    /// What a reader of the generated code should know (lossy spots, choices made).
    pub notes: Vec<String>,
    /// The `recursion_limit` crates using the types need, when rustc's default is too low.
    pub recursion_limit: Option<usize>,
}

impl Module {
    /// Whether any field anywhere has the type `pred` accepts (to import only what is used).
    pub fn uses(&self, pred: impl Fn(&Ty) -> bool) -> bool {
        fn walk(ty: &Ty, pred: &dyn Fn(&Ty) -> bool) -> bool {
            pred(ty)
                || match ty {
                    Ty::List(inner) | Ty::Map(inner) | Ty::Nullable(inner) => walk(inner, pred),
                    _ => false,
                }
        }
        self.structs
            .iter()
            .flat_map(|s| &s.fields)
            .any(|f| walk(&f.ty, &pred))
    }

    /// Whether any struct keeps unknown fields.
    pub fn keeps_unknown_fields(&self) -> bool {
        self.structs.iter().any(|s| s.unknown_fields.is_some())
    }

    /// Whether any field is optional and nullable (the `nullable` helper is needed).
    pub fn has_optional_nullable(&self) -> bool {
        self.structs
            .iter()
            .flat_map(|s| &s.fields)
            .any(|f| f.nullable && !f.required)
    }
}
