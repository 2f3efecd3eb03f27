//! The field mapping of a scaffolded conversion: the struct literals of the `From` impls
//! between two versions, for exactly the fields they share (whatever the user has added since
//! `create api`), laid out as rustfmt lays them out.

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
