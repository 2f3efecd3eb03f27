//! Arguments added to the `#[kube(...)]` attribute of a custom resource type.

use proc_macro2::TokenTree;
use syn::{Attribute, Item, Meta};

use super::source::{RustSource, Splice};

/// An argument for `#[kube(...)]`: `key = value`, with a comment line above it when it goes on
/// a line of its own.
#[derive(Debug, Clone, Copy)]
pub struct KubeArgument<'a> {
    /// The key (`storage`).
    pub key: &'a str,
    /// The value, as Rust tokens (`false`).
    pub value: &'a str,
    /// Why it is there (without `//`).
    pub comment: &'a str,
}

/// Adds `argument` to the `#[kube(...)]` attribute that says `kind = "<kind>"`, just after that
/// `kind` argument: on a line of its own (indented like it, the comment above) when the `kind`
/// argument ends its line, else inline. Unchanged when the attribute has the key already;
/// `None` when no item of the file has such an attribute.
pub fn add_kube_argument(
    source: &RustSource<'_>,
    kind: &str,
    argument: KubeArgument<'_>,
) -> Option<String> {
    let tokens = kube_attributes(&source.file().items)
        .into_iter()
        .find(|tokens| kind_argument(tokens, kind).is_some())?;
    if tokens
        .iter()
        .any(|t| matches!(t, TokenTree::Ident(i) if i == argument.key))
    {
        return Some(source.text().to_owned());
    }
    let at = kind_argument(&tokens, kind)?;
    let line = source.range(tokens[at].span()).start;
    let splice = match tokens.get(at + 3) {
        Some(TokenTree::Punct(comma)) if comma.as_char() == ',' => {
            let end = source.range(comma.span()).end;
            let next_line = source.next_line(end);
            if source.text()[end..next_line].trim().is_empty() {
                let indent = source.indent(line);
                Splice::insert(
                    next_line,
                    format!(
                        "{indent}// {}\n{indent}{} = {},\n",
                        argument.comment, argument.key, argument.value
                    ),
                )
            } else {
                Splice::insert(end, format!(" {} = {},", argument.key, argument.value))
            }
        }
        _ => Splice::insert(
            source.range(tokens[at + 2].span()).end,
            format!(", {} = {}", argument.key, argument.value),
        ),
    };
    Some(source.splice(vec![splice]))
}

/// Removes the argument `key = <value>` from the `#[kube(...)]` attribute that says
/// `kind = "<kind>"`: its whole line (and the `//` comment lines right above it) when it stands
/// on a line of its own, else the argument and its comma. `None` when that attribute has no
/// such argument (or no item of the file has the attribute).
pub fn remove_kube_argument(source: &RustSource<'_>, kind: &str, key: &str) -> Option<String> {
    let tokens = kube_attributes(&source.file().items)
        .into_iter()
        .find(|tokens| kind_argument(tokens, kind).is_some())?;
    let at = tokens.windows(2).position(|window| {
        matches!(window, [TokenTree::Ident(k), TokenTree::Punct(eq)] if k == key && eq.as_char() == '=')
    })?;
    let start = source.range(tokens[at].span()).start;
    let mut end = source.range(tokens.get(at + 2)?.span()).end;
    if let Some(TokenTree::Punct(comma)) = tokens.get(at + 3)
        && comma.as_char() == ','
    {
        end = source.range(comma.span()).end;
    }
    let text = source.text();
    let line = source.line_start(start);
    let next_line = source.next_line(end);
    let range = if text[line..start].trim().is_empty() && text[end..next_line].trim().is_empty() {
        // The argument's own line, with the comment lines that explain it.
        let mut first = line;
        while first > 0 {
            let above = source.line_start(first - 1);
            if text[above..first].trim_start().starts_with("//") {
                first = above;
            } else {
                break;
            }
        }
        first..next_line
    } else {
        let end = text[end..]
            .find(|c: char| c != ' ')
            .map_or(end, |skip| end + skip);
        start..end
    };
    Some(source.splice(vec![Splice {
        range,
        text: String::new(),
    }]))
}

/// The arguments of every `#[kube(...)]` attribute on the file's items (inline modules too).
fn kube_attributes(items: &[Item]) -> Vec<Vec<TokenTree>> {
    let mut out = Vec::new();
    for item in items {
        let attrs: &[Attribute] = match item {
            Item::Struct(s) => &s.attrs,
            Item::Enum(e) => &e.attrs,
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    out.extend(kube_attributes(items));
                }
                continue;
            }
            _ => continue,
        };
        for attr in attrs {
            if let Meta::List(list) = &attr.meta
                && list.path.is_ident("kube")
            {
                out.push(list.tokens.clone().into_iter().collect());
            }
        }
    }
    out
}

/// The index of `kind` in the tokens `kind = "<kind>"` among `tokens`, if they are there.
fn kind_argument(tokens: &[TokenTree], kind: &str) -> Option<usize> {
    tokens.windows(3).position(|window| match window {
        [
            TokenTree::Ident(key),
            TokenTree::Punct(eq),
            TokenTree::Literal(value),
        ] => {
            key == "kind"
                && eq.as_char() == '='
                && matches!(syn::Lit::new(value.clone()), syn::Lit::Str(s) if s.value() == kind)
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    const STORAGE: KubeArgument<'static> = KubeArgument {
        key: "storage",
        value: "false",
        comment: "The hub is stored.",
    };

    fn add(text: &str, kind: &str) -> Option<String> {
        let source = RustSource::parse(Path::new("t.rs"), text).unwrap();
        add_kube_argument(&source, kind, STORAGE)
    }

    #[test]
    fn goes_on_its_own_line_after_the_kind() {
        let text = "/// Doc.\n#[derive(CustomResource)]\n#[kube(\n    group = \"g\", // the group\n    kind = \"M\",\n    plural = \"ms\",\n)]\npub struct MSpec {}\n";
        let once = add(text, "M").unwrap();
        assert_eq!(
            once,
            "/// Doc.\n#[derive(CustomResource)]\n#[kube(\n    group = \"g\", // the group\n    kind = \"M\",\n    // The hub is stored.\n    storage = false,\n    plural = \"ms\",\n)]\npub struct MSpec {}\n"
        );
        assert_eq!(add(&once, "M").unwrap(), once);
    }

    #[test]
    fn goes_inline_when_the_attribute_is_on_one_line() {
        assert_eq!(
            add(
                "#[kube(group = \"g\", kind = \"M\", version = \"v1\")]\npub struct MSpec {}\n",
                "M"
            )
            .unwrap(),
            "#[kube(group = \"g\", kind = \"M\", storage = false, version = \"v1\")]\npub struct MSpec {}\n"
        );
        assert_eq!(
            add(
                "#[kube(group = \"g\", kind = \"M\")]\npub struct MSpec {}\n",
                "M"
            )
            .unwrap(),
            "#[kube(group = \"g\", kind = \"M\", storage = false)]\npub struct MSpec {}\n"
        );
    }

    #[test]
    fn removes_the_line_and_its_comment_or_the_inline_argument() {
        let remove = |text: &str| {
            let source = RustSource::parse(Path::new("t.rs"), text).unwrap();
            remove_kube_argument(&source, "M", "storage")
        };
        let own_line = "#[kube(\n    kind = \"M\",\n    // Why.\n    // More.\n    storage = false,\n    plural = \"ms\",\n)]\npub struct MSpec {}\n";
        assert_eq!(
            remove(own_line).unwrap(),
            "#[kube(\n    kind = \"M\",\n    plural = \"ms\",\n)]\npub struct MSpec {}\n"
        );
        assert_eq!(
            remove(
                "#[kube(kind = \"M\", storage = false, version = \"v1\")]\npub struct MSpec {}\n"
            )
            .unwrap(),
            "#[kube(kind = \"M\", version = \"v1\")]\npub struct MSpec {}\n"
        );
        assert_eq!(remove("#[kube(kind = \"M\")]\npub struct MSpec {}\n"), None);
    }

    #[test]
    fn finds_only_the_attribute_of_that_kind() {
        let text = "#[kube(kind = \"Other\")]\npub struct OSpec {}\n// kind = \"M\",\n";
        assert_eq!(add(text, "M"), None);
        let stored = "#[kube(kind = \"M\", storage = true)]\npub struct MSpec {}\n";
        assert_eq!(add(stored, "M").unwrap(), stored);
    }
}
