//! The CEL rules the structural rewrite adds to keep the variants of an enum apart once they are
//! merged into one object, written the way the API server's cost estimator accepts them inside
//! unbounded lists and maps: `has()` tests and `==` comparisons only (an `in [..]` list, or a
//! rule over an unbounded string, exceeds the budget there).

use serde_json::{Value, json};

/// CEL keywords a property name must be escaped from (`__name__`), as the API server does.
const RESERVED: [&str; 21] = [
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// `self.<name>` as CEL sees a property, escaped by the API server's rules; `None` when the name
/// cannot be reached from CEL at all (it starts with a digit or holds other characters).
pub fn field(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let first = chars.next()?;
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/');
    if !(first.is_ascii_alphabetic() || matches!(first, '_' | '.' | '-' | '/'))
        || !chars.all(allowed)
    {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("self.__{name}__"));
    }
    let escaped = name
        .replace("__", "__underscores__")
        .replace('.', "__dot__")
        .replace('-', "__dash__")
        .replace('/', "__slash__");
    Some(format!("self.{escaped}"))
}

/// A CEL string literal.
pub fn string(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `` `a`, `b` and `c` `` for messages.
pub fn names(names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `a or b or c` for messages.
fn alternatives(values: &[String]) -> String {
    match values {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// One `x-kubernetes-validations` entry.
fn rule(rule: String, message: String) -> Value {
    json!({ "rule": rule, "message": message })
}

/// `value` (a CEL expression) equals one of `values`.
fn one_of(value: &str, values: &[String]) -> String {
    values
        .iter()
        .map(|v| format!("{value} == {}", string(v)))
        .collect::<Vec<_>>()
        .join(" || ")
}

/// A tagged enum's variant `variant` needs `fields`: `self.type != 'Git' || has(self.url)`.
pub fn required_for_variant(tag: &str, variant: &str, fields: &[String]) -> Option<Value> {
    let tag_field = field(tag)?;
    let has = fields
        .iter()
        .map(|f| field(f).map(|f| format!("has({f})")))
        .collect::<Option<Vec<_>>>()?;
    let verb = if fields.len() == 1 { "is" } else { "are" };
    Some(rule(
        format!("{tag_field} != {} || {}", string(variant), has.join(" && ")),
        format!("{} {verb} required when {tag} is {variant}", names(fields)),
    ))
}

/// A field belonging to some variants only: `!has(self.url) || self.type == 'Git'`.
pub fn only_for_variants(tag: &str, name: &str, variants: &[String]) -> Option<Value> {
    let tag_field = field(tag)?;
    let f = field(name)?;
    Some(rule(
        format!("!has({f}) || {}", one_of(&tag_field, variants)),
        format!(
            "`{name}` is only allowed when {tag} is {}",
            alternatives(variants)
        ),
    ))
}

/// Exactly one of the properties is set (an externally tagged enum's variants).
pub fn exactly_one(props: &[String]) -> Option<Value> {
    let terms = props
        .iter()
        .map(|p| field(p).map(|f| format!("(has({f}) ? 1 : 0)")))
        .collect::<Option<Vec<_>>>()?;
    Some(rule(
        format!("{} == 1", terms.join(" + ")),
        format!("exactly one of {} must be set", alternatives_names(props)),
    ))
}

fn alternatives_names(props: &[String]) -> String {
    let quoted: Vec<String> = props.iter().map(|n| format!("`{n}`")).collect();
    alternatives(&quoted)
}

/// One of the field sets is complete (an untagged enum of objects: some variant matches).
pub fn one_variant_complete(variants: &[Vec<String>]) -> Option<Value> {
    let mut alternatives_cel = Vec::new();
    let mut described = Vec::new();
    for fields in variants {
        let has = fields
            .iter()
            .map(|f| field(f).map(|f| format!("has({f})")))
            .collect::<Option<Vec<_>>>()?;
        alternatives_cel.push(format!("({})", has.join(" && ")));
        described.push(names(fields));
    }
    Some(rule(
        alternatives_cel.join(" || "),
        format!(
            "must set the fields of one variant: {}",
            described.join("; or ")
        ),
    ))
}

/// A nullable string restricted to `values` (the API server refuses `null` for a schema with an
/// `enum`, even a nullable one, so the values are checked by a rule that skips nulls).
pub fn string_in(values: &[String]) -> Value {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    rule(
        one_of("self", values),
        format!("supported values: {}", quoted.join(", ")),
    )
}

/// An int-or-string whose string form is restricted to `values`.
pub fn int_or_string_in(values: &[String]) -> Value {
    let quoted: Vec<String> = values.iter().map(|v| format!("\"{v}\"")).collect();
    rule(
        format!("type(self) == int || {}", one_of("self", values)),
        format!("an integer or one of {}", quoted.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_names_like_the_api_server() {
        assert_eq!(field("url").as_deref(), Some("self.url"));
        assert_eq!(field("namespace").as_deref(), Some("self.__namespace__"));
        assert_eq!(
            field("a-b.c/d__e").as_deref(),
            Some("self.a__dash__b__dot__c__slash__d__underscores__e")
        );
        assert_eq!(field("1st"), None);
        assert_eq!(field("ünïcode"), None);
        assert_eq!(string("it's"), "'it\\'s'");
    }

    #[test]
    fn builds_variant_rules() {
        assert_eq!(
            required_for_variant("type", "Git", &["url".into(), "rev".into()]).unwrap(),
            json!({"rule": "self.type != 'Git' || has(self.url) && has(self.rev)",
                   "message": "`url` and `rev` are required when type is Git"})
        );
        assert_eq!(
            only_for_variants("type", "url", &["Git".into(), "Hg".into()]).unwrap(),
            json!({"rule": "!has(self.url) || self.type == 'Git' || self.type == 'Hg'",
                   "message": "`url` is only allowed when type is Git or Hg"})
        );
        assert_eq!(
            exactly_one(&["a".into(), "b".into()]).unwrap()["rule"],
            "(has(self.a) ? 1 : 0) + (has(self.b) ? 1 : 0) == 1"
        );
        assert_eq!(
            one_variant_complete(&[vec!["a".into()], vec!["b".into(), "c".into()]]).unwrap(),
            json!({"rule": "(has(self.a)) || (has(self.b) && has(self.c))",
                   "message": "must set the fields of one variant: `a`; or `b` and `c`"})
        );
        assert_eq!(
            string_in(&["A".into(), "B".into()]),
            json!({"rule": "self == 'A' || self == 'B'", "message": "supported values: \"A\", \"B\""})
        );
    }
}
