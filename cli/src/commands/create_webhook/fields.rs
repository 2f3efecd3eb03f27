//! Reads the field names of a struct in a scaffolded type file, so the scaffolded conversion
//! maps exactly the fields two versions share (whatever the user has added since `create api`).

/// The names of the `pub` fields of `pub struct <name> { ... }` in `source`, in order; `None`
/// when there is no such struct. Nested braces (in attributes, types or doc comments) are
/// skipped; only top-level `pub` fields count.
pub fn struct_fields(source: &str, name: &str) -> Option<Vec<String>> {
    let mut lines = source.lines();
    lines.find(|line| {
        line.trim_start()
            .strip_prefix("pub struct ")
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.trim_start().starts_with('{'))
    })?;
    let mut fields = Vec::new();
    let mut depth = 1usize;
    for line in lines {
        let code = line.split("//").next().unwrap_or_default();
        let trimmed = code.trim();
        if depth == 1 {
            let field = trimmed
                .strip_prefix("pub ")
                .or_else(|| trimmed.strip_prefix("pub(crate) "))
                .and_then(|rest| rest.split_once(':'))
                .map(|(ident, _)| ident.trim());
            if let Some(ident) = field.filter(|i| is_ident(i)) {
                fields.push(ident.to_owned());
            }
        }
        for c in code.chars() {
            match c {
                '{' | '(' | '[' => depth += 1,
                '}' | ')' | ']' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(fields);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

fn is_ident(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    !s.is_empty()
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The body of one `From` conversion between two versions of a struct: the name of the
/// function's parameter and the struct literal, laid out as rustfmt lays it out.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Mapping {
    /// The parameter (`spec`, or `_spec` when no field is read).
    pub param: String,
    /// The struct literal, e.g. `hub::MemcachedSpec { foo: spec.foo }`, its continuation
    /// lines indented for a function body (8 spaces).
    pub body: String,
}

/// Maps the fields `from` (of version `from_version`) to `to` (of `to_version`), building the
/// struct literal of type `ty`: shared fields move across, fields only `to` has start at their
/// default, fields only `from` has are named in a comment saying the round trip loses them
/// until they are mapped.
pub fn mapping(
    var: &str,
    ty: &str,
    (from, from_version): (&[String], &str),
    (to, to_version): (&[String], &str),
) -> Mapping {
    const INDENT: &str = "            ";
    let mut items: Vec<(Vec<String>, Option<String>)> = Vec::new();
    let mut reads = false;
    for field in to {
        if from.contains(field) {
            items.push((Vec::new(), Some(format!("{field}: {var}.{field}"))));
            reads = true;
        } else {
            items.push((
                vec![format!(
                    "// `{field}` is not in {from_version}: it starts at its default."
                )],
                Some(format!("{field}: Default::default()")),
            ));
        }
    }
    for field in from.iter().filter(|f| !to.contains(f)) {
        items.push((
            vec![
                format!(
                    "// `{var}.{field}` has no {to_version} field of that name: map it to one above"
                ),
                "// (or keep it in an annotation), otherwise the round trip loses it.".to_owned(),
            ],
            None,
        ));
    }
    let param = if reads {
        var.to_owned()
    } else {
        format!("_{var}")
    };
    let has_comments = items.iter().any(|(comments, _)| !comments.is_empty());
    let one_line: Vec<&str> = items.iter().filter_map(|(_, f)| f.as_deref()).collect();
    let joined = one_line.join(", ");
    // rustfmt keeps a struct literal on one line when it has no comments and its fields take
    // at most 18 columns (`struct_lit_width`); an empty one is `T {}`.
    let body = if one_line.is_empty() && !has_comments {
        format!("{ty} {{}}")
    } else if !has_comments && joined.len() <= 18 {
        format!("{ty} {{ {joined} }}")
    } else {
        let mut body = format!("{ty} {{\n");
        for (comments, field) in &items {
            for comment in comments {
                body.push_str(&format!("{INDENT}{comment}\n"));
            }
            if let Some(field) = field {
                body.push_str(&format!("{INDENT}{field},\n"));
            }
        }
        body.push_str("        }");
        body
    };
    Mapping { param, body }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPE: &str = r#"
/// Doc with { braces }.
#[kubeforge::api]
#[kube(group = "x", printcolumn(name = "A", json_path = ".a"))]
pub struct MemcachedSpec {
    /// How many.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<i32>,
    pub labels: std::collections::BTreeMap<String, String>, // a comment: not_a_field
    pub nested: Vec<Inner<{ 3 }>>,
    pub(crate) r#type: String,
}

pub struct MemcachedStatus {
    pub conditions: Vec<Condition>,
}
"#;

    #[test]
    fn reads_top_level_fields() {
        assert_eq!(
            struct_fields(TYPE, "MemcachedSpec").unwrap(),
            ["size", "labels", "nested", "r#type"]
        );
        assert_eq!(
            struct_fields(TYPE, "MemcachedStatus").unwrap(),
            ["conditions"]
        );
        assert_eq!(struct_fields(TYPE, "Memcached"), None);
        assert_eq!(struct_fields(TYPE, "MemcachedSpecs"), None);
    }

    #[test]
    fn maps_shared_fields_and_names_the_rest() {
        let from = vec!["size".to_string(), "old".to_string()];
        let to = vec!["size".to_string(), "new".to_string()];
        let m = mapping("spec", "hub::S", (&from, "v1beta1"), (&to, "v1"));
        assert_eq!(m.param, "spec");
        assert!(m.body.starts_with("hub::S {\n"), "{}", m.body);
        assert!(
            m.body.contains("            size: spec.size,\n"),
            "{}",
            m.body
        );
        assert!(m.body.contains("new: Default::default(),"), "{}", m.body);
        assert!(m.body.contains("`spec.old` has no v1 field"), "{}", m.body);
        assert!(m.body.ends_with("\n        }"), "{}", m.body);
        let none = mapping("status", "S", (&[], "v1beta1"), (&["a".into()], "v1"));
        assert_eq!(none.param, "_status");
    }

    #[test]
    fn short_literals_stay_on_one_line_as_rustfmt_keeps_them() {
        let foo = vec!["foo".to_string()];
        let m = mapping("spec", "hub::S", (&foo, "v1beta1"), (&foo, "v1"));
        assert_eq!(m.body, "hub::S { foo: spec.foo }");
        let empty = mapping("spec", "S", (&[], "v1beta1"), (&[], "v1"));
        assert_eq!(empty.body, "S {}");
        assert_eq!(empty.param, "_spec");
    }
}
