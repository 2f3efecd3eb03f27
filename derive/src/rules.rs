//! CEL rules written as attributes: `rule(...)`, and controller-gen's field groups
//! (`exactly_one_of`, `at_most_one_of`, `at_least_one_of`).

use serde_json::{Map, Value, json};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

use crate::values::{err, flag, string};

/// The three field-group constraints of controller-gen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OneOf {
    Exactly,
    AtMost,
    AtLeast,
}

impl OneOf {
    /// The CEL rule and message controller-gen emits for this group.
    pub fn rule(self, names: &[String]) -> Value {
        let has = names
            .iter()
            .map(|n| format!("has(self.{n})"))
            .collect::<Vec<_>>()
            .join(",");
        let list = names.join(" ");
        let (op, msg) = match self {
            OneOf::Exactly => (
                "== 1",
                format!("exactly one of the fields in [{list}] must be set"),
            ),
            OneOf::AtMost => (
                "<= 1",
                format!("at most one of the fields in [{list}] may be set"),
            ),
            OneOf::AtLeast => (
                ">= 1",
                format!("at least one of the fields in [{list}] must be set"),
            ),
        };
        json!({ "rule": format!("[{has}].filter(x,x==true).size() {op}"), "message": msg })
    }
}

/// Parses one CEL rule: `rule = "..."` or `rule(rule = "...", message = "...", message_expression
/// = "...", reason = "FieldValueInvalid", field_path = ".x", optional_old_self)`.
pub fn parse_rule(meta: &ParseNestedMeta) -> syn::Result<Value> {
    if meta.input.peek(syn::Token![=]) {
        let rule = string(meta)?;
        return Ok(json!({ "rule": rule.value() }));
    }
    let mut out = Map::new();
    meta.parse_nested_meta(|m| {
        let key = m.path.get_ident().map(std::string::ToString::to_string).unwrap_or_default();
        match key.as_str() {
            "rule" => out.insert("rule".into(), string(&m)?.value().into()),
            "message" => out.insert("message".into(), string(&m)?.value().into()),
            "message_expression" => out.insert("messageExpression".into(), string(&m)?.value().into()),
            "reason" => {
                let s = string(&m)?;
                const REASONS: [&str; 4] =
                    ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];
                if !REASONS.contains(&s.value().as_str()) {
                    return err(s.span(), format!("`reason` must be one of {}", REASONS.join(", ")));
                }
                out.insert("reason".into(), s.value().into())
            }
            "field_path" => out.insert("fieldPath".into(), string(&m)?.value().into()),
            "optional_old_self" => out.insert("optionalOldSelf".into(), flag(&m)?.into()),
            _ => return err(m.path.span(), format!("unknown rule key `{key}` (expected rule, message, message_expression, reason, field_path, optional_old_self)")),
        };
        Ok(())
    })?;
    if !out.contains_key("rule") {
        return err(
            meta.path.span(),
            "a rule needs `rule = \"<CEL expression>\"`",
        );
    }
    Ok(Value::Object(out))
}

pub fn push_rule(patch: &mut Map<String, Value>, rule: Value) {
    match patch
        .entry("x-kubernetes-validations")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        Value::Array(rules) => rules.push(rule),
        _ => unreachable!("x-kubernetes-validations is always an array here"),
    }
}
