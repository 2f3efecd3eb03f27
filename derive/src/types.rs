//! A syntactic classification of field types, enough to reject attributes that cannot apply to a
//! field (a `pattern` on an integer, `min_items` on a string) at compile time.

use syn::{GenericArgument, PathArguments, Type};

/// The JSON shape a Rust type is known to serialize to.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Integer,
    Number,
    String,
    Boolean,
    /// `IntOrString`, `Quantity` (both render as int-or-string or string).
    IntOrString,
    /// A list; the item type.
    List(Box<Type>),
    /// A string-keyed map; the value type.
    Map(Box<Type>),
    /// `serde_json::Value` and friends: anything.
    Any,
    /// A user type (struct or enum) or something we cannot see through.
    Other,
}

impl Shape {
    /// A short noun for error messages.
    pub fn describe(&self) -> &'static str {
        match self {
            Shape::Integer => "an integer",
            Shape::Number => "a number",
            Shape::String => "a string",
            Shape::Boolean => "a boolean",
            Shape::IntOrString => "an int-or-string",
            Shape::List(_) => "a list",
            Shape::Map(_) => "a map",
            Shape::Any => "an arbitrary JSON value",
            Shape::Other => "a user type",
        }
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

fn generic_args(seg: &syn::PathSegment) -> Vec<&Type> {
    match &seg.arguments {
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Strips `Option<..>` and `Box<..>` wrappers (they do not change the JSON shape, only presence).
pub fn unwrap_option(ty: &Type) -> (&Type, bool) {
    let mut ty = ty;
    let mut optional = false;
    loop {
        match ty {
            Type::Group(g) => ty = &g.elem,
            Type::Paren(p) => ty = &p.elem,
            _ => match last_segment(ty) {
                Some(seg) if seg.ident == "Option" || seg.ident == "Box" || seg.ident == "Arc" => {
                    if seg.ident == "Option" {
                        optional = true;
                    }
                    match generic_args(seg).first() {
                        Some(inner) => ty = inner,
                        None => return (ty, optional),
                    }
                }
                _ => return (ty, optional),
            },
        }
    }
}

/// Classifies a type (after stripping `Option`/`Box`).
pub fn shape_of(ty: &Type) -> Shape {
    let (ty, _) = unwrap_option(ty);
    if let Type::Reference(r) = ty {
        return shape_of(&r.elem);
    }
    if let Type::Slice(s) = ty {
        return Shape::List(Box::new((*s.elem).clone()));
    }
    if let Type::Array(a) = ty {
        return Shape::List(Box::new((*a.elem).clone()));
    }
    let Some(seg) = last_segment(ty) else {
        return Shape::Other;
    };
    let args = generic_args(seg);
    match seg.ident.to_string().as_str() {
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" | "NonZeroU32" | "NonZeroU64" | "NonZeroI32" | "NonZeroI64" => Shape::Integer,
        "f32" | "f64" => Shape::Number,
        "String" | "str" | "char" | "Cow" | "PathBuf" | "Time" | "MicroTime" | "Duration" => {
            Shape::String
        }
        "bool" => Shape::Boolean,
        "IntOrString" | "Quantity" => Shape::IntOrString,
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "LinkedList" => match args.first() {
            Some(item) => Shape::List(Box::new((*item).clone())),
            None => Shape::Other,
        },
        "BTreeMap" | "HashMap" | "IndexMap" => match args.get(1) {
            Some(value) => Shape::Map(Box::new((*value).clone())),
            None => Shape::Other,
        },
        "Value" | "RawExtension" => Shape::Any,
        _ => Shape::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(t: &str) -> Shape {
        shape_of(&syn::parse_str::<Type>(t).unwrap())
    }

    #[test]
    fn classifies_common_types() {
        assert_eq!(shape("i32"), Shape::Integer);
        assert_eq!(shape("Option<u64>"), Shape::Integer);
        assert_eq!(shape("Option<Box<String>>"), Shape::String);
        assert_eq!(shape("f64"), Shape::Number);
        assert_eq!(
            shape("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString"),
            Shape::IntOrString
        );
        assert_eq!(shape("serde_json::Value"), Shape::Any);
        assert_eq!(shape("MySpec"), Shape::Other);
        assert!(matches!(shape("Option<Vec<Port>>"), Shape::List(_)));
        assert!(
            matches!(shape("BTreeMap<String, i32>"), Shape::Map(v) if shape_of(&v) == Shape::Integer)
        );
    }

    #[test]
    fn unwraps_options() {
        let ty: Type = syn::parse_quote!(Option<Vec<u8>>);
        let (inner, optional) = unwrap_option(&ty);
        assert!(optional);
        assert_eq!(quote::quote!(#inner).to_string(), "Vec < u8 >");
    }
}
