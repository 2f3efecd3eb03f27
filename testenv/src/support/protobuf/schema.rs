//! How a message is described: its fields, each with a number, a JSON name, a value type and a
//! shape that says how Go writes it and how its JSON form is built.

use serde_json::{Map, Value};

/// The type of a field's value (of each item for lists, of each value for maps).
#[derive(Clone, Copy)]
pub(super) enum Ty {
    /// `string`: a JSON string.
    Str,
    /// `bytes`: a base64 JSON string.
    Bytes,
    /// `bool`.
    Bool,
    /// `int32` or `int64` (varints; a list of them may come packed or not).
    Int,
    /// `intstr.IntOrString`: a JSON number or string, after its `type`.
    IntOrString,
    /// `resource.Quantity`: its canonical string.
    Quantity,
    /// `metav1.Time`: RFC 3339 in UTC to the second; an empty message is the zero time (`null`).
    Time,
    /// `metav1.MicroTime`: RFC 3339 in UTC to the microsecond; an empty message is the zero
    /// time (`null`).
    MicroTime,
    /// `runtime.RawExtension`: a message whose field 1 holds JSON bytes, the value itself
    /// (`null` when empty).
    Raw,
    /// `metav1.FieldsV1`: a message whose field 1 holds JSON bytes, the value itself.
    FieldsV1,
    /// A message whose field 1 is a repeated string (`ExtraValue`): a JSON array.
    Strings,
    /// A described message: a JSON object.
    Msg(&'static Message),
    /// `double`: a JSON number, written without a fraction when it has none (as Go writes it).
    Double,
    /// A described message whose JSON form is not an object of its fields but what the
    /// function makes of them (the custom JSON of apiextensions' `JSONSchemaPropsOrBool`,
    /// `JSONSchemaPropsOrArray` and `JSONSchemaPropsOrStringArray`).
    Shaped(&'static Message, fn(Map<String, Value>) -> Value),
}

/// How a field is written by Go's generated marshaller, and so how it is read back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// A non-pointer Go field: always written, so its zero value (`""`, `0`, `false`, an empty
    /// message) means unset and is left out of the JSON object.
    Value,
    /// A pointer Go field: written only when set, so even a zero value is kept.
    Pointer,
    /// A repeated field: one JSON array item per occurrence.
    List,
    /// A `map<string, T>`: one entry message (key 1, value 2) per occurrence.
    Map,
    /// An embedded Go struct whose fields are inlined into the enclosing JSON object.
    Inline,
}

/// One field of a message.
pub(super) struct Field {
    /// The protobuf field number.
    pub(super) number: u64,
    /// The JSON name (empty for inlined fields).
    pub(super) name: &'static str,
    /// The value type.
    pub(super) ty: Ty,
    /// How it is written.
    pub(super) shape: Shape,
}

/// A described message: every field a body may carry; any other field is refused.
pub(super) struct Message {
    /// The Go type's name, for error messages.
    pub(super) name: &'static str,
    /// The described fields.
    pub(super) fields: &'static [Field],
}

impl Message {
    /// A message named `name` with `fields`.
    pub(super) const fn new(name: &'static str, fields: &'static [Field]) -> Self {
        Message { name, fields }
    }

    /// The field numbered `number`, if described.
    pub(super) fn field(&self, number: u64) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.number == number)
    }
}

const fn field(number: u64, name: &'static str, ty: Ty, shape: Shape) -> Field {
    Field {
        number,
        name,
        ty,
        shape,
    }
}

/// A non-pointer field.
pub(super) const fn val(number: u64, name: &'static str, ty: Ty) -> Field {
    field(number, name, ty, Shape::Value)
}

/// A pointer field.
pub(super) const fn ptr(number: u64, name: &'static str, ty: Ty) -> Field {
    field(number, name, ty, Shape::Pointer)
}

/// A repeated field.
pub(super) const fn list(number: u64, name: &'static str, ty: Ty) -> Field {
    field(number, name, ty, Shape::List)
}

/// A map with string keys and `ty` values.
pub(super) const fn map(number: u64, name: &'static str, ty: Ty) -> Field {
    field(number, name, ty, Shape::Map)
}

/// An embedded struct whose fields are inlined.
pub(super) const fn inline(number: u64, message: &'static Message) -> Field {
    field(number, "", Ty::Msg(message), Shape::Inline)
}
