//! Pieces of Rust source text, laid out as rustfmt lays them out (edition 2024, width 100), so
//! generated files pass `cargo fmt --check` as they are: attribute lists, string literals, JSON
//! values as macro tokens, and doc comments that rustdoc will not mistake for doctests.

use serde_json::Value;

/// rustfmt's default line width.
const WIDTH: usize = 100;

/// rustfmt's `attr_fn_like_width`: an attribute's list longer than this goes one item per line.
const ARGS_WIDTH: usize = 70;

/// One item of an attribute's list: `namespaced`, `kind = "X"`, `printcolumn(...)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Meta {
    /// A bare word.
    Word(String),
    /// `name = value` (the value already Rust text).
    Value(String, String),
    /// `name(items)`.
    List(String, Vec<Meta>),
}

impl Meta {
    /// `name = "value"`.
    pub fn string(name: &str, value: &str) -> Self {
        Meta::Value(name.to_owned(), literal(value))
    }

    fn one_line(&self) -> String {
        match self {
            Meta::Word(word) => word.clone(),
            Meta::Value(name, value) => format!("{name} = {value}"),
            Meta::List(name, items) => format!("{name}({})", join_one_line(items)),
        }
    }

    /// The item at `indent` spaces, one line when it fits (with the `suffix` after it), else
    /// its list broken one item per line.
    fn render(&self, indent: usize, suffix: &str) -> String {
        let pad = " ".repeat(indent);
        let flat = format!("{pad}{}{suffix}", self.one_line());
        match self {
            Meta::List(name, items)
                if !items.is_empty()
                    && (flat.len() > WIDTH || join_one_line(items).len() > ARGS_WIDTH) =>
            {
                let mut out = format!("{pad}{name}(\n");
                out.push_str(&render_items(items, indent + 4));
                out.push_str(&format!("{pad}){suffix}"));
                out
            }
            _ => flat,
        }
    }
}

fn join_one_line(items: &[Meta]) -> String {
    items
        .iter()
        .map(Meta::one_line)
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_items(items: &[Meta], indent: usize) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let suffix = if i + 1 < items.len() { "," } else { "" };
        out.push_str(&item.render(indent, suffix));
        out.push('\n');
    }
    out
}

/// `#[name(items)]` at `indent` spaces: on one line when it fits, else one item per line.
pub fn attribute(indent: usize, name: &str, items: &[Meta]) -> String {
    let pad = " ".repeat(indent);
    let args = join_one_line(items);
    let flat = format!("{pad}#[{name}({args})]\n");
    if items.is_empty() || (flat.len() - 1 <= WIDTH && args.len() <= ARGS_WIDTH) {
        return flat;
    }
    format!(
        "{pad}#[{name}(\n{}{pad})]\n",
        render_items(items, indent + 4)
    )
}

/// `pub struct Name {` (or `pub enum`), with the brace on its own line when the line is too
/// long, as rustfmt puts it.
pub fn item_header(keyword: &str, name: &str) -> String {
    let line = format!("pub {keyword} {name}");
    if line.len() + 2 <= WIDTH {
        format!("{line} {{\n")
    } else {
        format!("{line}\n{{\n")
    }
}

/// `impl Trait for Type {` (or `impl Type {`), broken as rustfmt breaks it when too long: the
/// `for` clause on its own line, then the brace; a line that cannot fit stays as it is.
pub fn impl_header(trait_: Option<&str>, ty: &str) -> String {
    match trait_ {
        None => {
            let line = format!("impl {ty}");
            if line.len() + 2 <= WIDTH || line.len() > WIDTH {
                format!("{line} {{\n")
            } else {
                format!("{line}\n{{\n")
            }
        }
        Some(trait_) => {
            let line = format!("impl {trait_} for {ty}");
            let head = format!("impl {trait_}");
            let tail = format!("    for {ty}");
            if line.len() + 2 <= WIDTH || head.len() > WIDTH || tail.len() > WIDTH {
                format!("{line} {{\n")
            } else {
                format!("{head}\n{tail}\n{{\n")
            }
        }
    }
}

/// A Rust string literal of `value` (escaped as `{:?}` escapes).
pub fn literal(value: &str) -> String {
    format!("{value:?}")
}

/// `value` as the tokens of a JSON literal inside `schemars::json_schema!` or
/// `#[schemars(extend(...))]`: JSON, with Rust string literals.
pub fn json_tokens(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => literal(s),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(json_tokens).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", literal(k), json_tokens(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `text` as `///` lines at `indent` spaces. Indentation is kept up to three spaces (list
/// continuations stay, indented code blocks, which rustdoc would compile as doctests, do not)
/// and code fences are marked `text` for the same reason.
pub fn doc_comment(indent: usize, text: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    let mut in_fence = false;
    let lines: Vec<&str> = text.trim().lines().collect();
    for line in lines {
        let line = line.trim_end().replace('\t', "    ");
        let spaces = line.len() - line.trim_start().len();
        let line = format!("{}{}", " ".repeat(spaces.min(3)), line.trim_start());
        let line = if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            if in_fence {
                "```text".to_owned()
            } else {
                "```".to_owned()
            }
        } else {
            line
        };
        if line.is_empty() {
            out.push_str(&format!("{pad}///\n"));
        } else {
            out.push_str(&format!("{pad}/// {line}\n"));
        }
    }
    if in_fence {
        out.push_str(&format!("{pad}/// ```\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_fit_or_break_like_rustfmt() {
        let short = [
            Meta::string("group", "x.io"),
            Meta::Word("namespaced".into()),
        ];
        assert_eq!(
            attribute(0, "kube", &short),
            "#[kube(group = \"x.io\", namespaced)]\n"
        );
        let long: Vec<Meta> = (0..6)
            .map(|i| Meta::string(&format!("key{i}"), "a fairly long value"))
            .collect();
        let text = attribute(0, "kube", &long);
        assert!(text.starts_with("#[kube(\n    key0 = \"a fairly long value\",\n"));
        assert!(text.ends_with("    key5 = \"a fairly long value\"\n)]\n"));
    }

    #[test]
    fn json_as_tokens() {
        let value = serde_json::json!({"a": [1, "x\u{8}\"y"], "b": null});
        assert_eq!(json_tokens(&value), r#"{"a": [1, "x\u{8}\"y"], "b": null}"#);
    }

    #[test]
    fn docs_never_hold_doctests() {
        let text =
            "Intro.\n\n        indented code\n```yaml\nkey: value\n```\n- item\n  more\n\tTabbed  ";
        assert_eq!(
            doc_comment(4, text),
            "    /// Intro.\n    ///\n    ///    indented code\n    /// ```text\n    /// key: value\n    /// ```\n    /// - item\n    ///   more\n    ///    Tabbed\n"
        );
    }
}
