//! CEL's types as the real server's checker sees them, with type parameters for the generic
//! overloads (`size(list(A))`, `_[_](map(K, V), K)`) and their unification.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use std::collections::BTreeMap;

/// A CEL type.
#[derive(Clone, Debug)]
pub enum Type {
    /// `int`
    Int,
    /// `uint`
    Uint,
    /// `double`
    Double,
    /// `bool`
    Bool,
    /// `string`
    String,
    /// `bytes`
    Bytes,
    /// `null_type`
    Null,
    /// `google.protobuf.Duration`
    Duration,
    /// `google.protobuf.Timestamp`
    Timestamp,
    /// `dyn`: anything, checked when evaluated.
    Dyn,
    /// The type of an expression that already failed to check (matches anything, so one
    /// mistake is reported once).
    Error,
    /// `list(T)`
    List(Box<Type>),
    /// `map(K, V)`
    Map(Box<Type>, Box<Type>),
    /// An object of the schema (its fields are the schema's properties).
    Object(Arc<Decl>),
    /// `type(T)`: a type as a value (`int`, `type(x)`).
    Meta(Box<Type>),
    /// An opaque type of a library: `optional_type(T)`, `kubernetes.Quantity`, ...
    Opaque(&'static str, Vec<Type>),
    /// A type parameter of a generic overload, or a fresh variable of the checker.
    Param(u32),
}

/// The opaque type names of the Kubernetes libraries.
pub mod opaque {
    /// `optional_type(T)`
    pub const OPTIONAL: &str = "optional_type";
    /// `kubernetes.Quantity`
    pub const QUANTITY: &str = "kubernetes.Quantity";
    /// `kubernetes.URL`
    pub const URL: &str = "kubernetes.URL";
    /// `net.IP`
    pub const IP: &str = "net.IP";
    /// `net.CIDR`
    pub const CIDR: &str = "net.CIDR";
    /// `kubernetes.Semver`
    pub const SEMVER: &str = "kubernetes.Semver";
    /// `kubernetes.NamedFormat`
    pub const FORMAT: &str = "kubernetes.NamedFormat";
    /// `kubernetes.authorization.Authorizer` (the authz library's object types are not
    /// registered with the type provider: selecting a field of one fails to resolve).
    pub const AUTHORIZER: &str = "kubernetes.authorization.Authorizer";
    /// `kubernetes.authorization.PathCheck`
    pub const PATH_CHECK: &str = "kubernetes.authorization.PathCheck";
    /// `kubernetes.authorization.GroupCheck`
    pub const GROUP_CHECK: &str = "kubernetes.authorization.GroupCheck";
    /// `kubernetes.authorization.ResourceCheck`
    pub const RESOURCE_CHECK: &str = "kubernetes.authorization.ResourceCheck";
    /// `kubernetes.authorization.Decision`
    pub const DECISION: &str = "kubernetes.authorization.Decision";

    /// Whether `name` is one of the authz library's object types.
    pub fn is_authz(name: &str) -> bool {
        name.starts_with("kubernetes.authorization.")
    }
}

impl Type {
    /// `list(t)`.
    pub fn list(t: Type) -> Type {
        Type::List(Box::new(t))
    }

    /// `map(k, v)`.
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Box::new(k), Box::new(v))
    }

    /// `optional_type(t)`.
    pub fn optional(t: Type) -> Type {
        Type::Opaque(opaque::OPTIONAL, vec![t])
    }

    /// Whether the size of a value of this type is known without looking at it (cel-go's
    /// `isScalar`).
    pub fn is_scalar(&self) -> bool {
        match self {
            Type::Bool
            | Type::Double
            | Type::Duration
            | Type::Int
            | Type::Timestamp
            | Type::Uint => true,
            Type::Opaque(opaque::OPTIONAL, p) => p.first().is_some_and(Type::is_scalar),
            _ => false,
        }
    }

    /// The kind used to pick an iteration variable's path (`@items` for lists, `@keys` for
    /// maps and objects).
    pub fn is_list(&self) -> bool {
        matches!(self, Type::List(_))
    }
}

impl PartialEq for Type {
    fn eq(&self, other: &Self) -> bool {
        use Type::*;
        match (self, other) {
            (Int, Int)
            | (Uint, Uint)
            | (Double, Double)
            | (Bool, Bool)
            | (String, String)
            | (Bytes, Bytes)
            | (Null, Null)
            | (Duration, Duration)
            | (Timestamp, Timestamp)
            | (Dyn, Dyn)
            | (Error, Error) => true,
            (List(a), List(b)) | (Meta(a), Meta(b)) => a == b,
            (Map(a, b), Map(c, d)) => a == c && b == d,
            (Object(a), Object(b)) => Arc::ptr_eq(a, b),
            (Opaque(n, p), Opaque(m, q)) => n == m && p == q,
            (Param(a), Param(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::Bool => f.write_str("bool"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Null => f.write_str("null"),
            Type::Duration => f.write_str("duration"),
            Type::Timestamp => f.write_str("timestamp"),
            Type::Dyn => f.write_str("dyn"),
            Type::Error => f.write_str("!error!"),
            Type::List(t) => write!(f, "list({t})"),
            Type::Map(k, v) => write!(f, "map({k}, {v})"),
            Type::Object(d) => f.write_str(&d.name),
            Type::Meta(t) => write!(f, "type({t})"),
            Type::Opaque(n, p) if p.is_empty() => f.write_str(n),
            Type::Opaque(n, p) => {
                let params: Vec<String> = p.iter().map(ToString::to_string).collect();
                write!(f, "{n}({})", params.join(", "))
            }
            Type::Param(i) => write!(f, "_var{i}"),
        }
    }
}

impl Type {
    /// The name cel-go's `Type.String()` gives this type (`null_type`,
    /// `google.protobuf.Timestamp` where the checker's messages say `null`, `timestamp`):
    /// what the admission compiler's result-type errors print.
    pub fn go_name(&self) -> String {
        match self {
            Type::Null => "null_type".into(),
            Type::Duration => "google.protobuf.Duration".into(),
            Type::Timestamp => "google.protobuf.Timestamp".into(),
            Type::List(t) => format!("list({})", t.go_name()),
            Type::Map(k, v) => format!("map({}, {})", k.go_name(), v.go_name()),
            Type::Meta(t) => format!("type({})", t.go_name()),
            Type::Opaque(n, p) if !p.is_empty() => {
                let params: Vec<String> = p.iter().map(Type::go_name).collect();
                format!("{n}({})", params.join(", "))
            }
            other => other.to_string(),
        }
    }
}

/// What a schema node is in CEL.
#[derive(Debug)]
pub enum Shape {
    /// A scalar (or `dyn` for int-or-string).
    Scalar(Type),
    /// A list of `items`.
    List(Arc<Decl>),
    /// A map (`additionalProperties`) with string keys.
    Map(Arc<Decl>),
    /// An object with these fields (CEL-escaped property names).
    Object(BTreeMap<String, Arc<Decl>>),
}

/// One schema node as CEL sees it.
#[derive(Debug)]
pub struct Decl {
    /// What it is.
    pub shape: Shape,
    /// The most elements (characters, items, properties) a value can have.
    pub max_elements: u64,
    /// The shortest serialized form of a value, to bound the items of lists and maps.
    pub min_size: i64,
    /// The name of an object type (for messages).
    pub name: String,
}

impl Decl {
    /// The CEL type of a value of this node.
    pub fn ty(self: &Arc<Self>) -> Type {
        match &self.shape {
            Shape::Scalar(t) => t.clone(),
            Shape::List(items) => Type::list(items.ty()),
            Shape::Map(values) => Type::map(Type::String, values.ty()),
            Shape::Object(_) => Type::Object(self.clone()),
        }
    }

    /// The declaration of field `name` (escaped), if the object has it.
    pub fn field(&self, name: &str) -> Option<&Arc<Decl>> {
        match &self.shape {
            Shape::Object(fields) => fields.get(name),
            _ => None,
        }
    }

    /// The items of a list, or the values of a map.
    pub fn elem(&self) -> Option<&Arc<Decl>> {
        match &self.shape {
            Shape::List(d) | Shape::Map(d) => Some(d),
            _ => None,
        }
    }
}

/// Bindings of type parameters made while matching overloads.
#[derive(Clone, Debug, Default)]
pub struct Subst(HashMap<u32, Type>);

impl Subst {
    /// `t` with every bound parameter replaced (parameters still free stay).
    pub fn apply(&self, t: &Type) -> Type {
        match t {
            Type::Param(i) => match self.0.get(i) {
                Some(b) if b != t => self.apply(b),
                _ => t.clone(),
            },
            Type::List(e) => Type::list(self.apply(e)),
            Type::Map(k, v) => Type::map(self.apply(k), self.apply(v)),
            Type::Meta(e) => Type::Meta(Box::new(self.apply(e))),
            Type::Opaque(n, p) => Type::Opaque(n, p.iter().map(|t| self.apply(t)).collect()),
            other => other.clone(),
        }
    }

    /// Whether a value of type `actual` may stand where `expected` is wanted, binding
    /// parameters as needed (cel-go's `isAssignable`): `dyn` and errors match anything,
    /// `null` matches objects, and there are no implicit numeric conversions.
    pub fn assignable(&mut self, expected: &Type, actual: &Type) -> bool {
        let (e, a) = (self.apply(expected), self.apply(actual));
        match (&e, &a) {
            (Type::Param(i), Type::Param(j)) if i == j => true,
            (Type::Param(i), other) | (other, Type::Param(i)) => {
                if occurs(*i, other) {
                    return false;
                }
                self.0.insert(*i, other.clone());
                true
            }
            (Type::Dyn | Type::Error, _) | (_, Type::Dyn | Type::Error) => true,
            (Type::Object(_), Type::Null) | (Type::Null, Type::Object(_)) => true,
            (Type::Opaque(n, _), Type::Null) | (Type::Null, Type::Opaque(n, _))
                if opaque::is_authz(n) =>
            {
                true
            }
            (Type::List(x), Type::List(y)) => self.assignable(x, y),
            // Type values are all of one type (`type(1) != type('a')` checks); parameters
            // are still bound where they fit.
            (Type::Meta(x), Type::Meta(y)) => {
                let mut trial = self.clone();
                if trial.assignable(x, y) {
                    *self = trial;
                }
                true
            }
            (Type::Map(k1, v1), Type::Map(k2, v2)) => {
                self.assignable(k1, k2) && self.assignable(v1, v2)
            }
            (Type::Opaque(n, p), Type::Opaque(m, q)) => {
                n == m && p.len() == q.len() && p.iter().zip(q).all(|(x, y)| self.assignable(x, y))
            }
            _ => e == a,
        }
    }
}

fn occurs(i: u32, t: &Type) -> bool {
    match t {
        Type::Param(j) => i == *j,
        Type::List(e) | Type::Meta(e) => occurs(i, e),
        Type::Map(k, v) => occurs(i, k) || occurs(i, v),
        Type::Opaque(_, p) => p.iter().any(|t| occurs(i, t)),
        _ => false,
    }
}

/// Replaces the parameters of a signature (numbered from 0) by fresh ones from `next`.
pub fn instantiate(t: &Type, base: u32) -> Type {
    match t {
        Type::Param(i) => Type::Param(base + i),
        Type::List(e) => Type::list(instantiate(e, base)),
        Type::Map(k, v) => Type::map(instantiate(k, base), instantiate(v, base)),
        Type::Meta(e) => Type::Meta(Box::new(instantiate(e, base))),
        Type::Opaque(n, p) => Type::Opaque(n, p.iter().map(|t| instantiate(t, base)).collect()),
        other => other.clone(),
    }
}

/// `t` with parameters nobody bound turned into `dyn` (what the checker reports at the end).
pub fn finalize(t: &Type) -> Type {
    match t {
        Type::Param(_) => Type::Dyn,
        Type::List(e) => Type::list(finalize(e)),
        Type::Map(k, v) => Type::map(finalize(k), finalize(v)),
        Type::Meta(e) => Type::Meta(Box::new(finalize(e))),
        Type::Opaque(n, p) => Type::Opaque(n, p.iter().map(finalize).collect()),
        other => other.clone(),
    }
}
