//! The CEL checks of a CRD schema, in the real server's order and words: every rule and
//! `messageExpression` type-checked against its node's declaration, each estimated cost
//! multiplied by how often the node can occur (`maxItems`/`maxProperties` of the lists and
//! maps above it, else what fits in a request) and held to the per-expression budget, and
//! the sum held to the per-CRD budget.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::super::errors::FieldError;
use super::decl::{self, Decl};
use super::types::Type;
use super::{Refusal, compile};

/// The budget of one rule or message expression (`StaticEstimatedCostLimit`).
const EXPRESSION_LIMIT: u64 = 10_000_000;
/// The budget of all the rules of a CRD version (`StaticEstimatedCRDCostLimit`).
const CRD_LIMIT: u64 = 100_000_000;
const REQUEST_SIZE: u64 = 3 * 1024 * 1024;

/// The real server's words for a cost over `limit`.
fn over_budget(what: &str, cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    let factor = if f > 100.0 {
        "more than 100x".to_string()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// A rule as the real server prints it in its messages: Go's JSON of its internal
/// `ValidationRule` (field names capitalized, `<`, `>` and `&` escaped).
fn rule_json(rule: &Value) -> Value {
    let s = |k: &str| Value::from(rule.get(k).and_then(Value::as_str).unwrap_or_default());
    let opt = |k: &str| rule.get(k).cloned().unwrap_or(Value::Null);
    let text = format!(
        r#"{{"Rule":{},"Message":{},"MessageExpression":{},"Reason":{},"FieldPath":{},"OptionalOldSelf":{}}}"#,
        s("rule"),
        s("message"),
        s("messageExpression"),
        opt("reason"),
        s("fieldPath"),
        opt("optionalOldSelf"),
    );
    let escaped = text
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    Value::String(escaped)
}

/// `field.Invalid` with a value already rendered as the real server prints it.
fn invalid_raw(field: String, shown: &Value, detail: &str) -> FieldError {
    let mut e = FieldError::invalid(field, &Value::Null, detail);
    e.message = format!(
        "Invalid value: {}: {detail}",
        shown.as_str().unwrap_or_default()
    );
    e
}

#[derive(Default)]
struct Total {
    total: u64,
    expensive: Vec<(String, u64)>,
}

impl Total {
    fn observe(&mut self, path: String, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < CRD_LIMIT / 100 {
            return;
        }
        self.expensive.push((path, cost));
        self.expensive.sort_by_key(|e| std::cmp::Reverse(e.1));
        self.expensive.truncate(4);
    }
}

struct Walk<'a> {
    /// Paths with schema errors: CEL is not checked at or below them.
    blocked: &'a [String],
    total: Total,
    errs: Vec<FieldError>,
}

/// The CEL errors of the schema `schema` at `path` (`spec.validation.openAPIV3Schema`),
/// skipping nodes at or under a path in `schema_errors`, as the real server does, followed
/// by the errors of the per-CRD budget.
pub fn cel_errors(schema: &Value, path: &str, schema_errors: &[FieldError]) -> Vec<FieldError> {
    let blocked: Vec<String> = schema_errors.iter().map(|e| e.field.clone()).collect();
    let mut w = Walk {
        blocked: &blocked,
        total: Total::default(),
        errs: Vec::new(),
    };
    if let Some(s) = schema.as_object() {
        w.node(s, path, Some(1), true, None);
    }
    if w.total.total > CRD_LIMIT {
        for (p, _) in &w.total.expensive {
            w.errs.push(FieldError::forbidden(
                p.clone(),
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        w.errs.push(FieldError::forbidden(
            path,
            &over_budget(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                w.total.total,
                CRD_LIMIT,
            ),
        ));
    }
    w.errs
}

/// By how much a node multiplies the occurrences of its children.
fn max_elements(s: &Map<String, Value>) -> Option<u64> {
    let n = |k: &str| s.get(k).and_then(Value::as_i64).map(|v| v.max(0) as u64);
    match s.get("type").and_then(Value::as_str) {
        Some("object") if s.get("additionalProperties").is_some_and(|a| !a.is_null()) => {
            n("maxProperties")
        }
        Some("array") => n("maxItems"),
        _ => Some(1),
    }
}

impl Walk<'_> {
    fn blocked(&self, path: &str) -> bool {
        self.blocked.iter().any(|b| {
            b == path
                || b.strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    }

    fn node(
        &mut self,
        s: &Map<String, Value>,
        path: &str,
        card: Option<u64>,
        root: bool,
        uncorrelatable: Option<&str>,
    ) {
        if s.get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .is_some_and(|r| !r.is_empty())
            && !self.blocked(path)
        {
            self.rules(s, path, card, root, uncorrelatable);
        }
        let child_card = |c: Option<u64>| match (card, c) {
            (Some(a), Some(b)) => Some(a.saturating_mul(b)),
            _ => None,
        };
        let mine = max_elements(s);
        if let Some(add) = s.get("additionalProperties").and_then(Value::as_object) {
            self.node(
                add,
                &format!("{path}.additionalProperties"),
                child_card(mine),
                embedded(add),
                uncorrelatable,
            );
        }
        if let Some(props) = s.get("properties").and_then(Value::as_object) {
            let atomic = s.get("x-kubernetes-map-type").and_then(Value::as_str) == Some("atomic");
            let forbid = uncorrelatable.or(atomic.then_some(path));
            for (k, v) in props {
                if let Some(v) = v.as_object() {
                    self.node(
                        v,
                        &format!("{path}.properties[{k}]"),
                        child_card(mine),
                        embedded(v),
                        forbid,
                    );
                }
            }
        }
        if let Some(items) = s.get("items").and_then(Value::as_object) {
            let map_list = s.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            let forbid = uncorrelatable.or((!map_list).then_some(path));
            self.node(
                items,
                &format!("{path}.items"),
                child_card(mine),
                embedded(items),
                forbid,
            );
        }
    }

    fn rules(
        &mut self,
        s: &Map<String, Value>,
        path: &str,
        card: Option<u64>,
        root: bool,
        uncorrelatable: Option<&str>,
    ) {
        let schema = Value::Object(s.clone());
        let Some(decl) = decl::of_schema(&schema, root, "selfType") else {
            return;
        };
        let cardinality = card.unwrap_or_else(|| REQUEST_SIZE / (decl.min_size.max(0) as u64 + 1));
        for (i, rule) in s
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            self.rule(
                rule,
                &format!("{path}.x-kubernetes-validations[{i}]"),
                &decl,
                cardinality,
                uncorrelatable,
            );
        }
    }

    fn rule(
        &mut self,
        rule: &Value,
        p: &str,
        decl: &Arc<Decl>,
        cardinality: u64,
        uncorrelatable: Option<&str>,
    ) {
        let Some(text) = rule
            .get("rule")
            .and_then(Value::as_str)
            .filter(|t| !t.trim().is_empty())
        else {
            return;
        };
        let optional_old = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
        let rule_path = format!("{p}.rule");
        let compiled = match compile(text, decl, optional_old, &Type::Bool) {
            Ok(c) => c,
            Err(Refusal::Compile(detail)) => {
                self.errs.push(invalid_raw(
                    rule_path,
                    &rule_json(rule),
                    &format!("compilation failed: {detail}"),
                ));
                return;
            }
            Err(Refusal::ResultType(_)) => {
                self.errs.push(invalid_raw(
                    rule_path,
                    &rule_json(rule),
                    "cel expression must evaluate to a bool",
                ));
                return;
            }
        };
        let cost = compiled.cost.saturating_mul(cardinality);
        if cost > EXPRESSION_LIMIT {
            self.errs.push(FieldError::forbidden(
                rule_path.clone(),
                &over_budget("estimated rule cost", cost, EXPRESSION_LIMIT),
            ));
        }
        self.total.observe(rule_path.clone(), cost);
        if let Some(expr) = rule
            .get("messageExpression")
            .and_then(Value::as_str)
            .filter(|e| !e.trim().is_empty())
        {
            let mp = format!("{p}.messageExpression");
            match compile(expr, decl, optional_old, &Type::String) {
                Err(Refusal::Compile(detail)) => self.errs.push(invalid_raw(
                    mp,
                    &rule_json(rule),
                    &format!("messageExpression compilation failed: {detail}"),
                )),
                Err(Refusal::ResultType(_)) => self.errs.push(invalid_raw(
                    mp,
                    &rule_json(rule),
                    "messageExpression must evaluate to a string",
                )),
                Ok(m) => {
                    let cost = m.cost.saturating_mul(cardinality);
                    if cost > EXPRESSION_LIMIT {
                        self.errs.push(FieldError::forbidden(
                            mp.clone(),
                            &over_budget(
                                "estimated messageExpression cost",
                                cost,
                                EXPRESSION_LIMIT,
                            ),
                        ));
                    }
                    self.total.observe(mp, cost);
                }
            }
        }
        if compiled.uses_old_self {
            if let Some(within) = uncorrelatable {
                self.errs.push(FieldError::invalid(
                    rule_path,
                    &Value::from(text),
                    &format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {within}"),
                ));
            }
        } else if let Some(v) = rule.get("optionalOldSelf").filter(|v| !v.is_null()) {
            self.errs.push(FieldError::invalid(
                format!("{p}.optionalOldSelf"),
                v,
                "may not be set if oldSelf is not used in rule",
            ));
        }
    }
}

fn embedded(s: &Map<String, Value>) -> bool {
    s.get("x-kubernetes-embedded-resource")
        .and_then(Value::as_bool)
        == Some(true)
}
