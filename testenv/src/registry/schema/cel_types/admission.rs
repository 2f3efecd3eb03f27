//! The type check of an admission expression (a ValidatingAdmissionPolicy's validations,
//! message expressions, audit annotations, variables and match conditions, and a webhook's
//! match conditions), as kube-apiserver's admission compiler declares its variables:
//! `object`, `oldObject` and `params` dynamic, `request` an `AdmissionRequest`,
//! `namespaceObject` a `Namespace`, `authorizer` and `authorizer.requestResource` the authz
//! library's types, and `variables` an object whose fields are the policy's variables, each
//! with its expression's type. Every error cel-go's checker reports is reported, then the
//! result type is checked against what the field wants.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::check::check;
use super::decl::{Decl, Shape};
use super::types::{Type, opaque};
use super::{checking_env, issue};

/// What an admission expression may refer to besides `object`, `oldObject`, `request` and
/// `namespaceObject`.
#[derive(Debug, Clone, Default)]
pub struct AdmissionDecls {
    /// `params` is declared (a policy with a `paramKind`).
    pub params: bool,
    /// `authorizer` and `authorizer.requestResource` are declared (everywhere but a
    /// policy's message expressions).
    pub authorizer: bool,
    /// `variables` is declared with these fields (name and type, the types as
    /// [`variable_type`] gives them), or not at all (`None`: a policy without variables, a
    /// match condition).
    pub variables: Option<Vec<(String, Type)>>,
}

/// The result type a field wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// A validation or a match condition.
    Bool,
    /// A message expression.
    String,
    /// An audit annotation's value.
    StringOrNull,
    /// A variable: anything.
    Any,
}

impl Want {
    /// Whether `t` is what is wanted (cel-go's `IsExactType`: `dyn` is not `bool`).
    fn accepts(self, t: &Type) -> bool {
        match self {
            Want::Bool => *t == Type::Bool,
            Want::String => *t == Type::String,
            Want::StringOrNull => matches!(t, Type::String | Type::Null),
            Want::Any => true,
        }
    }

    /// The real compiler's refusal of a result of type `t`.
    pub fn refusal(self, t: &Type) -> String {
        let got = t.go_name();
        match self {
            Want::Bool => format!("must evaluate to bool but got {got}"),
            Want::String => format!("must evaluate to string but got {got}"),
            Want::StringOrNull => {
                format!("must evaluate to one of [string null_type] but got {got}")
            }
            Want::Any => String::new(),
        }
    }
}

/// Why an admission expression was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdmissionRefusal {
    /// It does not check: cel-go's issues (`ERROR: <input>:1:8: ...` lines with the source
    /// line and a caret).
    Compile(String),
    /// It checks, but to another type than the field wants (`must evaluate to bool but got
    /// int`).
    ResultType(String),
}

fn decl(shape: Shape, name: &str) -> Arc<Decl> {
    Arc::new(Decl {
        shape,
        max_elements: 0,
        min_size: 0,
        name: name.to_string(),
    })
}

fn scalar(t: Type) -> Arc<Decl> {
    decl(Shape::Scalar(t), "")
}

fn object(name: &str, fields: &[(&str, Arc<Decl>)]) -> Arc<Decl> {
    let fields: BTreeMap<String, Arc<Decl>> = fields
        .iter()
        .map(|(n, d)| (n.to_string(), d.clone()))
        .collect();
    decl(Shape::Object(fields), name)
}

/// `kubernetes.AdmissionRequest`: the `request` variable (without `uid`, `object` and
/// `oldObject`, as the real compiler declares it).
pub fn request_decl() -> &'static Arc<Decl> {
    static REQUEST: OnceLock<Arc<Decl>> = OnceLock::new();
    REQUEST.get_or_init(|| {
        let string = || scalar(Type::String);
        let gvk = object(
            "kubernetes.GroupVersionKind",
            &[
                ("group", string()),
                ("version", string()),
                ("kind", string()),
            ],
        );
        let gvr = object(
            "kubernetes.GroupVersionResource",
            &[
                ("group", string()),
                ("version", string()),
                ("resource", string()),
            ],
        );
        let user = object(
            "kubernetes.UserInfo",
            &[
                ("username", string()),
                ("uid", string()),
                ("groups", scalar(Type::list(Type::String))),
                (
                    "extra",
                    scalar(Type::map(Type::String, Type::list(Type::String))),
                ),
            ],
        );
        object(
            "kubernetes.AdmissionRequest",
            &[
                ("kind", gvk.clone()),
                ("resource", gvr.clone()),
                ("subResource", string()),
                ("requestKind", gvk),
                ("requestResource", gvr),
                ("requestSubResource", string()),
                ("name", string()),
                ("namespace", string()),
                ("operation", string()),
                ("userInfo", user),
                ("dryRun", scalar(Type::Bool)),
                ("options", scalar(Type::Dyn)),
            ],
        )
    })
}

/// `kubernetes.Namespace`: the `namespaceObject` variable (the fields the real compiler
/// declares).
pub fn namespace_decl() -> &'static Arc<Decl> {
    static NAMESPACE: OnceLock<Arc<Decl>> = OnceLock::new();
    NAMESPACE.get_or_init(|| {
        let string = || scalar(Type::String);
        let strings = || scalar(Type::list(Type::String));
        let labels = || scalar(Type::map(Type::String, Type::String));
        let condition = object(
            "kubernetes.NamespaceCondition",
            &[
                ("status", string()),
                ("type", string()),
                ("lastTransitionTime", scalar(Type::Timestamp)),
                ("message", string()),
                ("reason", string()),
            ],
        );
        let metadata = object(
            "kubernetes.NamespaceMetadata",
            &[
                ("name", string()),
                ("generateName", string()),
                ("namespace", string()),
                ("labels", labels()),
                ("annotations", labels()),
                ("UID", string()),
                ("creationTimestamp", scalar(Type::Timestamp)),
                ("deletionGracePeriodSeconds", scalar(Type::Int)),
                ("deletionTimestamp", scalar(Type::Timestamp)),
                ("generation", scalar(Type::Int)),
                ("resourceVersion", string()),
                ("finalizers", strings()),
            ],
        );
        object(
            "kubernetes.Namespace",
            &[
                ("metadata", metadata),
                (
                    "spec",
                    object("kubernetes.NamespaceSpec", &[("finalizers", strings())]),
                ),
                (
                    "status",
                    object(
                        "kubernetes.NamespaceStatus",
                        &[
                            ("conditions", decl(Shape::List(condition), "")),
                            ("phase", string()),
                        ],
                    ),
                ),
            ],
        )
    })
}

/// The type a variable's field of `variables` gets from its expression's type `t`: the
/// scalar types and lists and maps of them as they are, anything else (objects, optionals,
/// the libraries' types, an expression that did not compile) `dyn`.
pub fn variable_type(t: &Type) -> Type {
    match t {
        Type::Bool
        | Type::Bytes
        | Type::Double
        | Type::Duration
        | Type::Int
        | Type::Null
        | Type::String
        | Type::Timestamp
        | Type::Uint => t.clone(),
        Type::List(e) => Type::list(variable_type(e)),
        Type::Map(k, v) => Type::map(variable_type(k), variable_type(v)),
        _ => Type::Dyn,
    }
}

/// The root variables `decls` declares, with their types.
fn roots(decls: &AdmissionDecls) -> Vec<(String, Type)> {
    let mut vars = vec![
        ("object".to_string(), Type::Dyn),
        ("oldObject".to_string(), Type::Dyn),
        ("namespaceObject".to_string(), namespace_decl().ty()),
        ("request".to_string(), request_decl().ty()),
    ];
    if decls.params {
        vars.push(("params".into(), Type::Dyn));
    }
    if decls.authorizer {
        vars.push((
            "authorizer".into(),
            Type::Opaque(opaque::AUTHORIZER, vec![]),
        ));
        vars.push((
            "authorizer.requestResource".into(),
            Type::Opaque(opaque::RESOURCE_CHECK, vec![]),
        ));
    }
    if let Some(fields) = &decls.variables {
        let fields: Vec<(&str, Arc<Decl>)> = fields
            .iter()
            .map(|(n, t)| (n.as_str(), scalar(t.clone())))
            .collect();
        vars.push((
            "variables".into(),
            object("kubernetes.variables", &fields).ty(),
        ));
    }
    vars
}

/// The type of `source` with the variables `vars`, or cel-go's issues (sorted by place). A
/// source that does not parse is left to the compiler (`dyn`).
fn checked_type(source: &str, vars: &[(String, Type)]) -> Result<Type, String> {
    let Ok(program) = checking_env().compile(source) else {
        return Ok(Type::Dyn);
    };
    let vars: Vec<(&str, Type)> = vars.iter().map(|(n, t)| (n.as_str(), t.clone())).collect();
    let expr = program.expression();
    let (checked, errors) = check(expr, &vars);
    if errors.is_empty() {
        return Ok(checked.type_of(expr.id));
    }
    let info = program.source_info();
    let mut found: Vec<(u32, String)> = errors
        .iter()
        .map(|e| {
            let offset = info.offset_for(e.id).map(|(s, _)| s);
            (
                offset.unwrap_or(u32::MAX),
                issue(source, offset, &e.message),
            )
        })
        .collect();
    found.sort_by_key(|(offset, _)| *offset);
    let text: Vec<String> = found.into_iter().map(|(_, t)| t).collect();
    Err(text.join("\n"))
}

/// Checks `source` in the admission environment `decls`, wanting a result `want`; returns
/// the result type.
pub fn check_admission(
    source: &str,
    decls: &AdmissionDecls,
    want: Want,
) -> Result<Type, AdmissionRefusal> {
    let result = checked_type(source, &roots(decls)).map_err(AdmissionRefusal::Compile)?;
    if !want.accepts(&result) {
        return Err(AdmissionRefusal::ResultType(want.refusal(&result)));
    }
    Ok(result)
}

/// The check of an admission expression known only by its root variables' names (`params`,
/// `authorizer` and `variables` declared when named; `variables` then has unknown fields, so
/// it is dynamic): every error cel-go's checker reports, no result type wanted.
pub fn check_dynamic(source: &str, names: &[&str]) -> Result<(), String> {
    let decls = AdmissionDecls {
        params: names.contains(&"params"),
        authorizer: names.contains(&"authorizer"),
        variables: None,
    };
    let mut vars = roots(&decls);
    if names.contains(&"variables") {
        vars.push(("variables".into(), Type::Dyn));
    }
    checked_type(source, &vars).map(|_| ())
}
