//! The worst-case cost of a checked rule, as the real server estimates it when a CRD is
//! written (cel-go's `checker.Cost` with Kubernetes' `library.CostEstimator` and the
//! schema's size estimator), and a resource.k8s.io device selector's with the sizes its
//! environment gives ([`VariableSizes`]). Sizes of strings, lists and maps come from
//! `maxLength`, `maxItems` and `maxProperties`, else from what fits in a request; a rule's
//! cost is then multiplied by how many times it can run (the cardinality of its node).

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::check::Checked;
use super::decl::{self, Decl};
use super::estimate::{
    Est, LIST_CREATE, MAP_CREATE, Node, REGEX_LENGTH, STRING_TRAVERSAL, STRUCT_CREATE, Sizes,
    UNKNOWN, fixed,
};
use super::library_cost::kubernetes_cost;
use super::types::Type;

#[derive(Clone, Copy, Debug)]
struct Entry {
    list: bool,
    key: Est,
    val: Est,
}

fn union_entry(a: Option<Entry>, b: Option<Entry>) -> Option<Entry> {
    let (a, b) = (a?, b?);
    Some(Entry {
        list: a.list,
        key: a.key.union(b.key),
        val: a.val.union(b.val),
    })
}

#[derive(Clone, Debug)]
struct Local {
    path: Vec<String>,
    size: Option<Est>,
    entry: Option<Entry>,
}

fn is_accumulator(name: &str) -> bool {
    matches!(name, "@result" | "__result__" | "@__result__")
}

/// The largest sizes of the values an expression's variables reach: what the real server's
/// size estimator gives for a path (the variable's name, then field names, `@items`,
/// `@values`, `@keys`), `None` where it knows nothing (the size is then unbounded).
pub trait VariableSizes {
    /// The largest size (string length, list or map elements) of the value at `path`.
    fn max_size(&self, path: &[String]) -> Option<u64>;
}

/// The variables of a CRD's rules: `self` and `oldSelf`, sized by their schema.
struct SchemaSizes<'a>(&'a Arc<Decl>);

impl VariableSizes for SchemaSizes<'_> {
    fn max_size(&self, path: &[String]) -> Option<u64> {
        let first = path.first()?;
        if first != "self" && first != "oldSelf" {
            return None;
        }
        decl::max_elements(self.0, path)
    }
}

/// The estimated worst-case cost of `expr`, whose `self` (and `oldSelf`) is `root`.
pub fn estimate(expr: &IdedExpr, checked: &Checked, root: &Arc<Decl>) -> u64 {
    estimate_with(expr, checked, &SchemaSizes(root))
}

/// The estimated worst-case cost of `expr`, its variables sized by `variables`.
pub fn estimate_with(expr: &IdedExpr, checked: &Checked, variables: &dyn VariableSizes) -> u64 {
    let mut c = Coster {
        checked,
        variables,
        paths: HashMap::new(),
        locals: HashMap::new(),
        sizes: HashMap::new(),
        entries: HashMap::new(),
    };
    c.cost(expr).max
}

struct Coster<'a> {
    checked: &'a Checked,
    variables: &'a dyn VariableSizes,
    paths: HashMap<u64, Vec<String>>,
    locals: HashMap<String, Vec<Local>>,
    sizes: HashMap<u64, Est>,
    entries: HashMap<u64, Entry>,
}

impl Sizes for Coster<'_> {
    /// The size of a value at `path` from its variable (`self...`).
    fn schema_size(&self, path: &[String]) -> Option<Est> {
        self.variables.max_size(path).map(|max| Est { min: 0, max })
    }

    fn size_of_node(&self, n: &Node<'_>) -> Est {
        n.computed
            .or_else(|| self.schema_size(&n.path))
            .unwrap_or(UNKNOWN)
    }
}

impl<'a> Coster<'a> {
    fn ty(&self, e: &IdedExpr) -> Type {
        self.checked.type_of(e.id)
    }

    fn path(&self, e: &IdedExpr) -> Vec<String> {
        if let Expr::Ident(name) = &e.expr
            && let Some(v) = self.locals.get(name).and_then(|s| s.last())
        {
            return v.path.clone();
        }
        self.paths.get(&e.id).cloned().unwrap_or_default()
    }

    fn node<'e>(&mut self, e: &'e IdedExpr) -> Node<'e> {
        let mut path = self.path(e);
        if path.first().is_some_and(|p| is_accumulator(p)) {
            path.clear();
        }
        Node {
            path,
            ty: self.ty(e),
            expr: Some(e),
            computed: self.size(e),
        }
    }

    fn size(&mut self, e: &IdedExpr) -> Option<Est> {
        if let Some(s) = self.sizes.get(&e.id) {
            return Some(*s);
        }
        if let Some(s) = literal_size(e) {
            return Some(s);
        }
        let path = self.path(e);
        if let Some(s) = self.schema_size(&path) {
            self.sizes.insert(e.id, s);
            return Some(s);
        }
        if self.ty(e).is_scalar() {
            return Some(fixed(1));
        }
        if let Expr::Ident(name) = &e.expr
            && let Some(s) = self
                .locals
                .get(name)
                .and_then(|s| s.last())
                .and_then(|l| l.size)
        {
            return Some(s);
        }
        None
    }

    fn entry(&self, e: &IdedExpr) -> Option<Entry> {
        if let Some(en) = self.entries.get(&e.id) {
            return Some(*en);
        }
        if let Expr::Ident(name) = &e.expr {
            return self
                .locals
                .get(name)
                .and_then(|s| s.last())
                .and_then(|l| l.entry);
        }
        None
    }

    fn push(&mut self, name: &str, local: Local) {
        self.locals.entry(name.to_string()).or_default().push(local);
    }

    fn pop(&mut self, name: &str) {
        if let Some(s) = self.locals.get_mut(name) {
            s.pop();
        }
    }

    fn cost(&mut self, e: &IdedExpr) -> Est {
        match &e.expr {
            Expr::Literal(_) => fixed(0),
            Expr::Ident(name) => {
                let path = match self.locals.get(name).and_then(|s| s.last()) {
                    Some(v) => v.path.clone(),
                    None => vec![name.clone()],
                };
                self.paths.insert(e.id, path);
                fixed(1)
            }
            Expr::Select(s) => {
                if s.test {
                    // has() is free in the Kubernetes environment (PresenceTestHasCost(false)).
                    return self.cost(&s.operand);
                }
                let mut sum = self.cost(&s.operand);
                if matches!(
                    self.ty(&s.operand),
                    Type::Map(..) | Type::Object(_) | Type::Param(_)
                ) {
                    sum = sum.add(fixed(1));
                }
                let mut p = self.path(&s.operand);
                p.push(s.field.clone());
                self.paths.insert(e.id, p);
                sum
            }
            Expr::Call(call) => self.call(e, call),
            Expr::List(list) => {
                let mut sum = Est::default();
                let mut item = Est {
                    min: if list.elements.is_empty() {
                        0
                    } else {
                        u64::MAX
                    },
                    max: 0,
                };
                for el in &list.elements {
                    sum = sum.add(self.cost(el));
                    let s = self.size(el).unwrap_or(UNKNOWN);
                    item = item.union(s);
                }
                self.entries.insert(
                    e.id,
                    Entry {
                        list: true,
                        key: fixed(1),
                        val: item,
                    },
                );
                sum.add(fixed(LIST_CREATE))
            }
            Expr::Map(map) => {
                let mut sum = Est::default();
                let empty = map.entries.is_empty();
                let init = Est {
                    min: if empty { 0 } else { u64::MAX },
                    max: 0,
                };
                let (mut ks, mut vs) = (init, init);
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(m) = &entry.expr {
                        sum = sum.add(self.cost(&m.key)).add(self.cost(&m.value));
                        ks = ks.union(self.size(&m.key).unwrap_or(UNKNOWN));
                        vs = vs.union(self.size(&m.value).unwrap_or(UNKNOWN));
                    }
                }
                self.entries.insert(
                    e.id,
                    Entry {
                        list: false,
                        key: ks,
                        val: vs,
                    },
                );
                sum.add(fixed(MAP_CREATE))
            }
            Expr::Struct(s) => {
                let mut sum = Est::default();
                for entry in &s.entries {
                    if let EntryExpr::StructField(f) = &entry.expr {
                        sum = sum.add(self.cost(&f.value));
                    }
                }
                sum.add(fixed(STRUCT_CREATE))
            }
            Expr::Comprehension(c) => self.comprehension(e, c),
            Expr::Unspecified => Est::default(),
        }
    }

    fn comprehension(&mut self, e: &IdedExpr, c: &cel::common::ast::ComprehensionExpr) -> Est {
        let mut sum = self.cost(&c.iter_range).add(self.cost(&c.accu_init));
        let accu_local = Local {
            path: self.path(&c.accu_init),
            size: self.size(&c.accu_init),
            entry: self.entry(&c.accu_init),
        };
        self.push(&c.accu_var, accu_local);
        let range_entry = self.entry(&c.iter_range);
        let range_path = self.path(&c.iter_range);
        let is_list = match range_entry {
            Some(en) => en.list,
            None => self.ty(&c.iter_range).is_list(),
        };
        let sub = |s: &str| {
            let mut p = range_path.clone();
            p.push(s.to_string());
            p
        };
        match &c.iter_var2 {
            Some(v2) => {
                let key = Local {
                    path: sub(if is_list { "@indices" } else { "@keys" }),
                    size: range_entry.map(|en| en.key),
                    entry: None,
                };
                let val = Local {
                    path: sub(if is_list { "@items" } else { "@values" }),
                    size: range_entry.map(|en| en.val),
                    entry: None,
                };
                self.push(&c.iter_var, key);
                self.push(v2, val);
            }
            None => {
                let (path, size) = if is_list {
                    (sub("@items"), range_entry.map(|en| en.val))
                } else {
                    (sub("@keys"), range_entry.map(|en| en.key))
                };
                self.push(
                    &c.iter_var,
                    Local {
                        path,
                        size,
                        entry: None,
                    },
                );
            }
        }
        let loop_cost = self.cost(&c.loop_cond);
        let step_cost = self.cost(&c.loop_step);
        self.pop(&c.iter_var);
        if let Some(v2) = &c.iter_var2 {
            self.pop(v2);
        }
        sum = sum.add(self.cost(&c.result));
        self.pop(&c.accu_var);
        let range = self.size(&c.iter_range).unwrap_or(UNKNOWN);
        sum = sum.add(range.mul(step_cost.add(loop_cost)));
        match &c.accu_init.expr {
            Expr::Literal(_) => {
                if let Some(s) = self.size(&c.accu_init) {
                    self.sizes.insert(e.id, s);
                }
            }
            Expr::List(_) | Expr::Map(_) => {
                self.sizes.insert(e.id, range);
                if let Some(en) = self.entry(&c.loop_step) {
                    self.entries.insert(e.id, en);
                }
            }
            _ => {}
        }
        sum
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> Est {
        if call.func_name == "dyn"
            && let [arg] = call.args.as_slice()
        {
            let c = self.cost(arg);
            if let Some(s) = self.size(arg) {
                self.sizes.insert(e.id, s);
            }
            if let Some(en) = self.entry(arg) {
                self.entries.insert(e.id, en);
            }
            return fixed(1).add(c);
        }
        let arg_costs: Vec<Est> = call.args.iter().map(|a| self.cost(a)).collect();
        let args: Vec<Node<'_>> = call.args.iter().map(|a| self.node(a)).collect();
        let Some(ids) = self.checked.overloads.get(&e.id).cloned() else {
            return Est::default();
        };
        let mut sum = Est::default();
        let namespaced = is_namespace_call(self.checked, e);
        let target = match &call.target {
            Some(t) if !namespaced => {
                sum = sum.add(self.cost(t));
                Some(self.node(t))
            }
            _ => None,
        };
        let function = match (&call.target, namespaced) {
            (Some(t), true) => match &t.expr {
                Expr::Ident(ns) => format!("{ns}.{}", call.func_name),
                _ => call.func_name.clone(),
            },
            _ => call.func_name.clone(),
        };
        let mut fn_cost = Est {
            min: u64::MAX,
            max: 0,
        };
        let mut result: Option<Est> = None;
        for id in ids {
            let (cost, size) =
                self.function_cost(e, &function, id, target.as_ref(), &args, &arg_costs);
            fn_cost = fn_cost.union(cost);
            if let Some(s) = size {
                result = Some(result.map_or(s, |r| r.union(s)));
            }
            match id {
                "index_list" | "index_map" => {
                    if let Some(first) = call.args.first() {
                        result = self.entry(first).map(|en| en.val);
                        let mut p = self.path(first);
                        p.push(
                            if id == "index_list" {
                                "@items"
                            } else {
                                "@values"
                            }
                            .into(),
                        );
                        self.paths.insert(e.id, p);
                    }
                }
                _ => {}
            }
            if result.is_none() {
                result = self.size(e);
            }
        }
        if let Some(s) = result {
            self.sizes.insert(e.id, s);
        }
        sum.add(fn_cost)
    }

    #[allow(clippy::too_many_arguments)]
    fn function_cost(
        &mut self,
        e: &IdedExpr,
        function: &str,
        id: &str,
        target: Option<&Node<'_>>,
        args: &[Node<'_>],
        arg_costs: &[Est],
    ) -> (Est, Option<Est>) {
        let arg_sum = arg_costs.iter().fold(Est::default(), |a, c| a.add(*c));
        if let Some((cost, size)) = kubernetes_cost(self, function, id, target, args) {
            return (cost.add(arg_sum), size);
        }
        let size_of = |c: &Coster<'_>, n: &Node<'_>| c.size_of_node(n);
        match id {
            "string_format" if target.is_some() => {
                let t = target.expect("target");
                return (size_of(self, t).by(STRING_TRAVERSAL).add(arg_sum), None);
            }
            "string_to_bytes" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                return (
                    sz.by(STRING_TRAVERSAL).add(arg_sum),
                    Some(Est {
                        min: sz.min,
                        max: sz.max.saturating_mul(4),
                    }),
                );
            }
            "bytes_to_string" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                return (
                    sz.by(STRING_TRAVERSAL).add(arg_sum),
                    Some(Est {
                        min: sz.min / 4,
                        max: sz.max,
                    }),
                );
            }
            "strings_quote" if args.len() == 1 => {
                let sz = size_of(self, &args[0]);
                let out = Est {
                    min: sz.min.saturating_add(2),
                    max: sz.max.saturating_mul(2).saturating_add(2),
                };
                return (sz.by(STRING_TRAVERSAL).add(arg_sum), Some(out));
            }
            "starts_with_string" | "ends_with_string" if args.len() == 1 => {
                return (
                    size_of(self, &args[0]).by(STRING_TRAVERSAL).add(arg_sum),
                    None,
                );
            }
            "in_list" if args.len() == 2 => {
                return (size_of(self, &args[1]).by(1.0).add(arg_sum), None);
            }
            "matches_string" if target.is_some() && args.len() == 1 => {
                let t = target.expect("target");
                let s = size_of(self, t).add(fixed(1)).by(STRING_TRAVERSAL);
                let r = size_of(self, &args[0]).by(REGEX_LENGTH);
                return (s.mul(r).add(arg_sum), None);
            }
            "contains_string" if target.is_some() && args.len() == 1 => {
                let t = target.expect("target");
                let s = size_of(self, t).by(STRING_TRAVERSAL);
                let sub = size_of(self, &args[0]).by(STRING_TRAVERSAL);
                return (s.mul(sub).add(arg_sum), None);
            }
            "logical_or" | "logical_and" => {
                let (l, r) = (arg_costs[0], arg_costs[1]);
                return (
                    Est {
                        min: l.min,
                        max: l.add(r).max,
                    },
                    None,
                );
            }
            "conditional" => {
                let size = size_of(self, &args[1]).union(size_of(self, &args[2]));
                let en = union_entry(
                    args[1].expr.and_then(|x| self.entry(x)),
                    args[2].expr.and_then(|x| self.entry(x)),
                );
                if let Some(en) = en {
                    self.entries.insert(e.id, en);
                }
                let cost = arg_costs[0].add(arg_costs[1].union(arg_costs[2]));
                return (cost, Some(size));
            }
            "add_string" | "add_bytes" | "add_list" if args.len() == 2 => {
                let (l, r) = (size_of(self, &args[0]), size_of(self, &args[1]));
                let size = l.add(r);
                let en = union_entry(
                    args[0].expr.and_then(|x| self.entry(x)),
                    args[1].expr.and_then(|x| self.entry(x)),
                );
                if let Some(en) = en {
                    self.entries.insert(e.id, en);
                }
                if id == "add_list" {
                    return (fixed(1).add(arg_sum), Some(size));
                }
                return (size.by(STRING_TRAVERSAL).add(arg_sum), Some(size));
            }
            id if id.starts_with("less_string")
                || id.starts_with("greater_string")
                || id.starts_with("less_equals_string")
                || id.starts_with("greater_equals_string")
                || id.starts_with("less_bytes")
                || id.starts_with("greater_bytes")
                || id.starts_with("less_equals_bytes")
                || id.starts_with("greater_equals_bytes")
                || id == "equals"
                || id == "not_equals" =>
            {
                let (l, r) = (size_of(self, &args[0]), size_of(self, &args[1]));
                let smallest = l.max.min(r.max);
                let min = u64::from(smallest > 0);
                return (
                    Est { min, max: smallest }.by(STRING_TRAVERSAL).add(arg_sum),
                    None,
                );
            }
            _ => {}
        }
        (fixed(1).add(arg_sum), None)
    }
}

/// Whether a member call's target only names a namespace (`strings.quote(x)`): the real
/// checker turns it into a global call.
fn is_namespace_call(checked: &Checked, e: &IdedExpr) -> bool {
    checked
        .overloads
        .get(&e.id)
        .is_some_and(|ids| ids.iter().all(|id| GLOBAL_NAMESPACED.contains(id)))
}

/// Overloads of namespaced global functions (`ns.f(...)` parses as a member call).
const GLOBAL_NAMESPACED: &[&str] = &[
    "strings_quote",
    "list_sets_contains_list",
    "list_sets_equivalent_list",
    "list_sets_intersects_list",
    "ip_is_canonical",
    "optional_of",
    "optional_ofNonZeroValue",
    "optional_none",
    "format_named",
    "format_dns1123Label",
    "format_dns1123Subdomain",
    "format_dns1035Label",
    "format_qualifiedName",
    "format_dns1123LabelPrefix",
    "format_dns1123SubdomainPrefix",
    "format_dns1035LabelPrefix",
    "format_labelValue",
    "format_uri",
    "format_uuid",
    "format_byte",
    "format_date",
    "format_datetime",
];

fn literal_size(e: &IdedExpr) -> Option<Est> {
    let n = match &e.expr {
        Expr::Literal(l) => match l {
            LiteralValue::String(s) => s.inner().chars().count() as u64,
            LiteralValue::Bytes(b) => b.inner().len() as u64,
            _ => 1,
        },
        Expr::List(l) => l.elements.len() as u64,
        Expr::Map(m) => m.entries.len() as u64,
        _ => return None,
    };
    Some(fixed(n))
}
