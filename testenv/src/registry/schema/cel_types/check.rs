//! The type checker the real server runs on a rule when its CRD is written (cel-go's
//! `checker`): every identifier declared, every function called with arguments it has an
//! overload for, field selections on objects that declare the field, homogeneous list and
//! map literals. It also records, for the cost estimator, every node's type and every
//! call's matching overload ids.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::overloads::table;
use super::types::{Subst, Type, finalize, instantiate};

/// What checking an expression found.
#[derive(Debug, Default)]
pub struct Checked {
    /// The type of every node, by id.
    pub types: HashMap<u64, Type>,
    /// The overloads a call may use, by the call's id.
    pub overloads: HashMap<u64, Vec<&'static str>>,
}

impl Checked {
    /// The type of node `id` (`dyn` if unknown).
    pub fn type_of(&self, id: u64) -> Type {
        self.types.get(&id).cloned().unwrap_or(Type::Dyn)
    }
}

/// One error, at the node it is about.
#[derive(Debug, Clone)]
pub struct CheckError {
    /// The node the real checker reports it at.
    pub id: u64,
    /// The message (`found no matching overload for ...`).
    pub message: String,
}

/// Checks `expr` with the variables `vars` (name and type). Returns the types found, and
/// the errors if any.
pub fn check(expr: &IdedExpr, vars: &[(&str, Type)]) -> (Checked, Vec<CheckError>) {
    let mut c = Checker {
        scopes: vec![
            vars.iter()
                .map(|(n, t)| (n.to_string(), t.clone()))
                .collect(),
        ],
        subst: Subst::default(),
        next_param: 100,
        out: Checked::default(),
        errors: Vec::new(),
        exempt: 0,
        lists: Vec::new(),
        maps: Vec::new(),
    };
    c.walk(expr);
    let subst = c.subst.clone();
    for t in c.out.types.values_mut() {
        *t = finalize(&subst.apply(t));
    }
    if c.errors.is_empty() {
        c.errors = super::literals::literal_errors(expr)
            .into_iter()
            .map(|(id, message)| CheckError { id, message })
            .collect();
        c.errors.extend(c.heterogeneous_literals());
    }
    (c.out, c.errors)
}

struct Checker {
    scopes: Vec<Vec<(String, Type)>>,
    subst: Subst,
    next_param: u32,
    out: Checked,
    errors: Vec<CheckError>,
    /// How many `format` calls the walk is inside.
    exempt: usize,
    /// The elements (id, optional) of each list literal outside `format`.
    lists: Vec<Vec<(u64, bool)>>,
    /// The entries (key id, value id, optional) of each map literal outside `format`.
    maps: Vec<Vec<(u64, u64, bool)>>,
}

/// `T` of an `optional_type(T)` (an optional element of a literal), else the type itself.
fn unwrap_optional(t: Type) -> Type {
    match t {
        Type::Opaque(super::types::opaque::OPTIONAL, mut p) if p.len() == 1 => p.remove(0),
        other => other,
    }
}

/// The name `a.b.c` an expression spells, if it is only identifiers and selections.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(n) => Some(n.clone()),
        Expr::Select(s) if !s.test => Some(format!("{}.{}", qualified_name(&s.operand)?, s.field)),
        _ => None,
    }
}

fn type_name(name: &str) -> Option<Type> {
    Some(match name {
        "int" => Type::Int,
        "uint" => Type::Uint,
        "double" => Type::Double,
        "bool" => Type::Bool,
        "string" => Type::String,
        "bytes" => Type::Bytes,
        "null_type" => Type::Null,
        "list" => Type::list(Type::Dyn),
        "map" => Type::map(Type::Dyn, Type::Dyn),
        "type" => Type::Meta(Box::new(Type::Dyn)),
        "google.protobuf.Duration" => Type::Duration,
        "google.protobuf.Timestamp" => Type::Timestamp,
        _ => return None,
    })
}

impl Checker {
    /// The element type of a literal so far joined with the next element's: kept when the
    /// next fits it, else `dyn` (the checker does not refuse mixed literals; the validator
    /// below does).
    fn join(&mut self, so_far: Option<Type>, next: Type) -> Type {
        match so_far {
            None => next,
            Some(first) if self.subst.assignable(&first, &next) => first,
            Some(_) => Type::Dyn,
        }
    }

    /// cel-go's homogeneous aggregate literal validator, run on an expression that checked:
    /// a list's first element whose type differs from the first one's (one per list), and
    /// each map key and value whose type differs from the first entry's.
    fn heterogeneous_literals(&self) -> Vec<CheckError> {
        let type_of = |id: u64, optional: bool| {
            let t = self.out.type_of(id);
            if optional { unwrap_optional(t) } else { t }
        };
        let mut errors = Vec::new();
        let mut mismatch = |id: u64, first: &Type, t: &Type| {
            errors.push(CheckError {
                id,
                message: format!("expected type '{first}' but found '{t}'"),
            });
        };
        for items in &self.lists {
            let mut types = items.iter().map(|(id, o)| (*id, type_of(*id, *o)));
            if let Some((_, first)) = types.next()
                && let Some((id, t)) = types.find(|(_, t)| *t != first)
            {
                mismatch(id, &first, &t);
            }
        }
        for entries in &self.maps {
            let Some((k0, v0, o0)) = entries.first() else {
                continue;
            };
            let (first_key, first_value) = (self.out.type_of(*k0), type_of(*v0, *o0));
            for (k, v, o) in &entries[1..] {
                let (kt, vt) = (self.out.type_of(*k), type_of(*v, *o));
                if kt != first_key {
                    mismatch(*k, &first_key, &kt);
                }
                if vt != first_value {
                    mismatch(*v, &first_value, &vt);
                }
            }
        }
        errors
    }

    fn fresh(&mut self) -> Type {
        self.next_param += 1;
        Type::Param(self.next_param)
    }

    fn error(&mut self, id: u64, message: String) -> Type {
        self.errors.push(CheckError { id, message });
        Type::Error
    }

    fn lookup(&self, name: &str) -> Option<Type> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    }

    fn walk(&mut self, e: &IdedExpr) -> Type {
        let t = self.walk_inner(e);
        let t = self.subst.apply(&t);
        self.out.types.insert(e.id, t.clone());
        t
    }

    fn walk_inner(&mut self, e: &IdedExpr) -> Type {
        match &e.expr {
            Expr::Literal(l) => match l {
                LiteralValue::Boolean(_) => Type::Bool,
                LiteralValue::Bytes(_) => Type::Bytes,
                LiteralValue::Double(_) => Type::Double,
                LiteralValue::Int(_) => Type::Int,
                LiteralValue::Null => Type::Null,
                LiteralValue::String(_) => Type::String,
                LiteralValue::UInt(_) => Type::Uint,
            },
            Expr::Ident(name) => match self.lookup(name) {
                Some(t) => t,
                None => match type_name(name) {
                    Some(t) => Type::Meta(Box::new(t)),
                    None => self.error(
                        e.id,
                        format!("undeclared reference to '{name}' (in container '')"),
                    ),
                },
            },
            Expr::Select(s) => {
                // A variable whose name has dots (`authorizer.requestResource`) is resolved
                // before a selection on its first part.
                if !s.test
                    && let Some(name) = qualified_name(e)
                    && let Some(t) = self.lookup(&name)
                {
                    return t;
                }
                if !s.test
                    && let Some(name) = qualified_name(e)
                    && self
                        .lookup(name.split('.').next().unwrap_or_default())
                        .is_none()
                    && let Some(t) = type_name(&name)
                {
                    return Type::Meta(Box::new(t));
                }
                let operand = self.walk(&s.operand);
                let field = self.select(e.id, &operand, &s.field);
                if s.test { Type::Bool } else { field }
            }
            Expr::Call(call) => {
                // Literals inside `format(...)` need not be homogeneous.
                let exempt = usize::from(call.func_name == "format");
                self.exempt += exempt;
                let t = self.call(e, call);
                self.exempt -= exempt;
                t
            }
            Expr::List(list) => {
                let mut elem: Option<Type> = None;
                let mut items = Vec::new();
                for (i, item) in list.elements.iter().enumerate() {
                    let optional = list.optional_indices.contains(&i);
                    let t = self.walk(item);
                    let t = if optional { unwrap_optional(t) } else { t };
                    items.push((item.id, optional));
                    elem = Some(self.join(elem, t));
                }
                if self.exempt == 0 {
                    self.lists.push(items);
                }
                let elem = elem.unwrap_or_else(|| self.fresh());
                Type::list(elem)
            }
            Expr::Map(map) => {
                let (mut key, mut value): (Option<Type>, Option<Type>) = (None, None);
                let mut entries = Vec::new();
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        let k = self.walk(&m.key);
                        let v = self.walk(&m.value);
                        let v = if m.optional { unwrap_optional(v) } else { v };
                        entries.push((m.key.id, m.value.id, m.optional));
                        key = Some(self.join(key, k));
                        value = Some(self.join(value, v));
                    }
                }
                if self.exempt == 0 {
                    self.maps.push(entries);
                }
                let key = key.unwrap_or_else(|| self.fresh());
                let value = value.unwrap_or_else(|| self.fresh());
                Type::map(key, value)
            }
            Expr::Struct(s) => self.error(
                e.id,
                format!(
                    "undeclared reference to '{}' (in container '')",
                    s.type_name
                ),
            ),
            Expr::Comprehension(c) => {
                let range = self.walk(&c.iter_range);
                let (first, second) = match &range {
                    Type::List(t) => (
                        if c.iter_var2.is_some() {
                            Type::Int
                        } else {
                            (**t).clone()
                        },
                        (**t).clone(),
                    ),
                    Type::Map(k, v) => ((**k).clone(), (**v).clone()),
                    Type::Dyn | Type::Error | Type::Param(_) => (Type::Dyn, Type::Dyn),
                    other => {
                        let other = other.clone();
                        (
                            self.error(
                                c.iter_range.id,
                                format!("expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"),
                            ),
                            Type::Error,
                        )
                    }
                };
                let accu = self.walk(&c.accu_init);
                let mut scope = vec![(c.accu_var.clone(), accu.clone())];
                scope.push((c.iter_var.clone(), first));
                if let Some(v2) = &c.iter_var2 {
                    scope.push((v2.clone(), second));
                }
                self.scopes.push(scope);
                self.walk(&c.loop_cond);
                let step = self.walk(&c.loop_step);
                if !self.subst.assignable(&accu, &step) {
                    self.error(
                        c.loop_step.id,
                        format!("expected type '{accu}' but found '{step}'"),
                    );
                }
                // The result sees the accumulator, not the iteration variables.
                if let Some(scope) = self.scopes.last_mut() {
                    scope.retain(|(n, _)| *n == c.accu_var);
                }
                let result = self.walk(&c.result);
                self.scopes.pop();
                result
            }
            Expr::Unspecified => Type::Error,
        }
    }

    fn select(&mut self, id: u64, operand: &Type, field: &str) -> Type {
        match operand {
            Type::Object(decl) => match decl.field(field) {
                Some(d) => d.ty(),
                None => self.error(id, format!("undefined field '{field}'")),
            },
            // A field of an optional value is an optional (`object.?x.y`).
            Type::Opaque(super::types::opaque::OPTIONAL, p) => {
                let inner = p.first().cloned().unwrap_or(Type::Dyn);
                Type::optional(self.select(id, &inner, field))
            }
            // Any map's values, whatever its key type (`{1: 2}.a` checks).
            Type::Map(_, v) => (**v).clone(),
            Type::Dyn | Type::Error | Type::Param(_) => Type::Dyn,
            Type::Opaque(name, _) if super::types::opaque::is_authz(name) => {
                self.error(id, format!("unexpected failed resolution of '{name}'"))
            }
            other => {
                let other = other.clone();
                self.error(
                    id,
                    format!("type '{other}' does not support field selection"),
                )
            }
        }
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> Type {
        let name = call.func_name.as_str();
        // `a.?b`: an optional field selection.
        if name == "_?._"
            && let [operand, field] = call.args.as_slice()
        {
            let t = self.walk(operand);
            self.walk(field);
            let field = match &field.expr {
                Expr::Literal(LiteralValue::String(s)) => s.to_string(),
                _ => String::new(),
            };
            let inner = match &t {
                Type::Opaque(super::types::opaque::OPTIONAL, p) => {
                    p.first().cloned().unwrap_or(Type::Dyn)
                }
                other => other.clone(),
            };
            let selected = self.select(e.id, &inner, &field);
            return Type::optional(selected);
        }
        // `opt.optMap(v, e)` and `opt.optFlatMap(v, e)`: `v` is the optional's value in `e`.
        if matches!(name, "optMap" | "optFlatMap")
            && let (Some(target), [var, body]) = (&call.target, call.args.as_slice())
            && let Expr::Ident(var) = &var.expr
        {
            let t = self.walk(target);
            let inner = match &t {
                Type::Opaque(super::types::opaque::OPTIONAL, p) => {
                    p.first().cloned().unwrap_or(Type::Dyn)
                }
                _ => Type::Dyn,
            };
            self.scopes.push(vec![(var.clone(), inner)]);
            let result = self.walk(body);
            self.scopes.pop();
            return if name == "optMap" {
                Type::optional(result)
            } else {
                result
            };
        }
        // `ns.f(args)` where `ns.f` is a global function (`strings.quote`, `format.named`).
        if let Some(target) = &call.target
            && let Some(qualified) = qualified_name(target)
            && self
                .lookup(qualified.split('.').next().unwrap_or_default())
                .is_none()
        {
            let full = format!("{qualified}.{name}");
            if table().contains_key(&full) {
                let args: Vec<Type> = call.args.iter().map(|a| self.walk(a)).collect();
                return self.resolve(e.id, &full, None, args);
            }
        }
        // `a && b`, `a || b` (and the steps of `all` and `exists`): each operand must be a
        // bool, and one that is not is reported at the operand, not as a missing overload.
        if call.target.is_none() && matches!(name, "_&&_" | "_||_") {
            let args: Vec<Type> = call
                .args
                .iter()
                .map(|a| {
                    let t = self.walk(a);
                    if self.subst.assignable(&Type::Bool, &t) {
                        t
                    } else {
                        let shown = self.subst.apply(&t);
                        self.error(a.id, format!("expected type 'bool' but found '{shown}'"));
                        Type::Bool
                    }
                })
                .collect();
            return self.resolve(e.id, name, None, args);
        }
        let target = call.target.as_ref().map(|t| self.walk(t));
        let args: Vec<Type> = call.args.iter().map(|a| self.walk(a)).collect();
        self.resolve(e.id, name, target, args)
    }

    fn resolve(&mut self, id: u64, name: &str, target: Option<Type>, args: Vec<Type>) -> Type {
        let Some(overloads) = table().get(name) else {
            return self.error(
                id,
                format!("undeclared reference to '{name}' (in container '')"),
            );
        };
        let member = target.is_some();
        let all: Vec<Type> = target.iter().cloned().chain(args.iter().cloned()).collect();
        if all.iter().any(|t| matches!(t, Type::Error)) {
            return Type::Error;
        }
        let mut found: Vec<(&'static str, Type, Subst)> = Vec::new();
        let base = self.next_param + 1;
        for o in overloads
            .iter()
            .filter(|o| o.member == member && o.args.len() == all.len())
        {
            let mut subst = self.subst.clone();
            let ok = o
                .args
                .iter()
                .zip(&all)
                .all(|(want, got)| subst.assignable(&instantiate(want, base), got));
            if ok {
                let result = subst.apply(&instantiate(&o.result, base));
                found.push((o.id, result, subst));
            }
        }
        self.next_param += 10;
        match found.len() {
            0 => {
                let shown: Vec<String> = args
                    .iter()
                    .map(|t| self.subst.apply(t).to_string())
                    .collect();
                let applied = match &target {
                    Some(t) => format!("{}.({})", self.subst.apply(t), shown.join(", ")),
                    None => format!("({})", shown.join(", ")),
                };
                self.error(
                    id,
                    format!("found no matching overload for '{name}' applied to '{applied}'"),
                )
            }
            1 => {
                let (overload, result, subst) = found.pop().expect("one overload");
                self.subst = subst;
                self.out.overloads.insert(id, vec![overload]);
                result
            }
            _ => {
                let ids = found.iter().map(|(i, _, _)| *i).collect();
                self.out.overloads.insert(id, ids);
                let first = found[0].1.clone();
                if found.iter().all(|(_, t, _)| *t == first) {
                    self.subst = found.swap_remove(0).2;
                    first
                } else {
                    Type::Dyn
                }
            }
        }
    }
}
