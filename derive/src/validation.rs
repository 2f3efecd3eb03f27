//! Parses `#[kubeforge(...)]` schema attributes (controller-gen's validation and schema markers)
//! into a JSON patch applied to the generated schema at run time, checking at compile time that
//! each attribute fits the type it is written on.

use proc_macro2::Span;
use serde_json::{Map, Value, json};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;
use syn::{Expr, Type};

use crate::rules::{OneOf, parse_rule, push_rule};
use crate::types::{Shape, shape_of};
use crate::values::{
    check_literal, err, flag, json_text, literal_json, non_negative, number, string, string_list,
};

/// Where an attribute is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// On a field (or inside `items(...)` / `values(...)` of one).
    Field,
    /// On a struct or enum.
    Container,
}

/// A list-map key that must be a field of the list's item type (checked by a generated const).
#[derive(Debug)]
pub struct KeyCheck {
    pub item: Type,
    pub key: String,
    pub span: Span,
}

/// Everything parsed from the `#[kubeforge(...)]` attributes of one field or container.
#[derive(Default, Debug)]
pub struct Parsed {
    /// The JSON patch (see `kubeforge::__private::SchemaPatch` for the `@` keys).
    pub patch: Map<String, Value>,
    /// `required` (Some(true)) or `optional` (Some(false)).
    pub required: Option<bool>,
    /// Checks that list map keys are fields of the item type.
    pub key_checks: Vec<KeyCheck>,
    /// `exactly_one_of` & co: (field names as written, span, kind) for the container to resolve.
    pub one_of_groups: Vec<(Vec<syn::Ident>, Span, OneOf)>,
    /// Where list-related keys were written, for errors found once all keys are known.
    pub list_span: Option<Span>,
}

fn check_shape(
    meta: &ParseNestedMeta,
    key: &str,
    shape: &Shape,
    ok: &[fn(&Shape) -> bool],
    wants: &str,
) -> syn::Result<()> {
    if ok.iter().any(|f| f(shape)) || matches!(shape, Shape::Other | Shape::Any) {
        Ok(())
    } else {
        err(
            meta.path.span(),
            format!(
                "`{key}` applies to {wants}, but this field is {}",
                shape.describe()
            ),
        )
    }
}

fn is_numeric(s: &Shape) -> bool {
    matches!(s, Shape::Integer | Shape::Number)
}
fn is_string(s: &Shape) -> bool {
    matches!(s, Shape::String | Shape::IntOrString)
}
fn is_list(s: &Shape) -> bool {
    matches!(s, Shape::List(_))
}
fn is_map(s: &Shape) -> bool {
    matches!(s, Shape::Map(_))
}
fn is_scalar(s: &Shape) -> bool {
    matches!(
        s,
        Shape::Integer | Shape::Number | Shape::String | Shape::Boolean | Shape::IntOrString
    )
}

/// Parses the keys of one `#[kubeforge(...)]` list into `out`, for a value of type `ty`
/// (`None` for containers).
fn parse_list(
    meta_owner: &ParseNestedMeta,
    out: &mut Parsed,
    ty: Option<&Type>,
    level: Level,
) -> syn::Result<()> {
    meta_owner.parse_nested_meta(|meta| parse_key(&meta, out, ty, level))
}

fn parse_key(
    meta: &ParseNestedMeta,
    out: &mut Parsed,
    ty: Option<&Type>,
    level: Level,
) -> syn::Result<()> {
    let shape = ty.map_or(Shape::Other, shape_of);
    let key = meta
        .path
        .get_ident()
        .map(std::string::ToString::to_string)
        .ok_or_else(|| syn::Error::new(meta.path.span(), "expected a key"))?;
    let field_only = |meta: &ParseNestedMeta| -> syn::Result<()> {
        if level == Level::Container {
            err(
                meta.path.span(),
                format!("`{key}` applies to fields, not to types"),
            )
        } else {
            Ok(())
        }
    };
    let patch = &mut out.patch;
    match key.as_str() {
        "minimum" | "maximum" | "multiple_of" => {
            check_shape(meta, &key, &shape, &[is_numeric], "numbers")?;
            let k = match key.as_str() {
                "minimum" => "minimum",
                "maximum" => "maximum",
                _ => "multipleOf",
            };
            patch.insert(k.into(), number(meta)?);
        }
        "exclusive_minimum" | "exclusive_maximum" => {
            check_shape(meta, &key, &shape, &[is_numeric], "numbers")?;
            let k = if key == "exclusive_minimum" {
                "exclusiveMinimum"
            } else {
                "exclusiveMaximum"
            };
            patch.insert(k.into(), flag(meta)?.into());
        }
        "min_length" | "max_length" => {
            check_shape(meta, &key, &shape, &[is_string], "strings")?;
            let k = if key == "min_length" {
                "minLength"
            } else {
                "maxLength"
            };
            patch.insert(k.into(), non_negative(meta)?);
        }
        "pattern" => {
            check_shape(meta, &key, &shape, &[is_string], "strings")?;
            patch.insert("pattern".into(), string(meta)?.value().into());
        }
        "format" => {
            check_shape(
                meta,
                &key,
                &shape,
                &[is_string, is_numeric],
                "strings and numbers",
            )?;
            patch.insert("format".into(), string(meta)?.value().into());
        }
        "min_items" | "max_items" => {
            check_shape(meta, &key, &shape, &[is_list], "lists")?;
            let k = if key == "min_items" {
                "minItems"
            } else {
                "maxItems"
            };
            patch.insert(k.into(), non_negative(meta)?);
        }
        "unique_items" => {
            // The API server rejects `uniqueItems: true`; a set-typed list is the structural way.
            check_shape(meta, &key, &shape, &[is_list], "lists")?;
            if let Shape::List(item) = &shape {
                let item_shape = shape_of(item);
                if !is_scalar(&item_shape) && item_shape != Shape::Other {
                    return err(
                        meta.path.span(),
                        "`unique_items` needs scalar items (it renders as x-kubernetes-list-type: set)",
                    );
                }
            }
            if flag(meta)? {
                patch.insert("x-kubernetes-list-type".into(), "set".into());
            }
        }
        "list_type" => {
            check_shape(meta, &key, &shape, &[is_list], "lists")?;
            out.list_span.get_or_insert(meta.path.span());
            let s = string(meta)?;
            if !["atomic", "set", "map"].contains(&s.value().as_str()) {
                return err(
                    s.span(),
                    "`list_type` is one of \"atomic\", \"set\", \"map\"",
                );
            }
            if let Some(Value::String(prev)) = patch.get("x-kubernetes-list-type")
                && prev != &s.value()
            {
                return err(
                    s.span(),
                    format!(
                        "`list_type = \"{}\"` conflicts with list type `{prev}`",
                        s.value()
                    ),
                );
            }
            patch.insert("x-kubernetes-list-type".into(), s.value().into());
        }
        "list_map_keys" | "list_map_key" => {
            check_shape(meta, &key, &shape, &[is_list], "lists")?;
            out.list_span.get_or_insert(meta.path.span());
            let keys = string_list(meta)?;
            if let Shape::List(item) = &shape {
                if is_scalar(&shape_of(item)) {
                    return err(
                        meta.path.span(),
                        "`list_map_keys` needs a list of objects, but the items are scalars",
                    );
                }
                for k in &keys {
                    out.key_checks.push(KeyCheck {
                        item: (**item).clone(),
                        key: k.value(),
                        span: k.span(),
                    });
                }
            }
            let patch = &mut out.patch;
            let entry = patch
                .entry("x-kubernetes-list-map-keys")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = entry {
                list.extend(keys.iter().map(|k| Value::String(k.value())));
            }
        }
        "min_properties" | "max_properties" => {
            check_shape(meta, &key, &shape, &[is_map], "maps and objects")?;
            let k = if key == "min_properties" {
                "minProperties"
            } else {
                "maxProperties"
            };
            patch.insert(k.into(), non_negative(meta)?);
        }
        "map_type" | "struct_type" => {
            if key == "map_type" {
                check_shape(meta, &key, &shape, &[is_map], "maps")?;
            } else {
                check_shape(meta, &key, &shape, &[], "structs")?;
            }
            let s = string(meta)?;
            if !["granular", "atomic"].contains(&s.value().as_str()) {
                return err(s.span(), format!("`{key}` is \"granular\" or \"atomic\""));
            }
            patch.insert("x-kubernetes-map-type".into(), s.value().into());
        }
        "enum_values" => {
            check_shape(meta, &key, &shape, &[is_scalar], "scalars")?;
            let expr: Expr = meta.value()?.parse()?;
            match literal_json(&expr)? {
                Value::Array(values) if !values.is_empty() => {
                    for v in &values {
                        check_literal(expr.span(), &key, &shape, v)?;
                    }
                    patch.insert("enum".into(), Value::Array(values));
                }
                _ => {
                    return err(
                        expr.span(),
                        "`enum_values` takes a non-empty list like [\"a\", \"b\"]",
                    );
                }
            }
        }
        "default" => {
            let expr: Expr = meta.value()?.parse()?;
            let value = literal_json(&expr)?;
            check_literal(expr.span(), &key, &shape, &value)?;
            patch.insert("default".into(), value);
        }
        "default_json" => {
            let span = meta.input.span();
            let value = json_text(meta)?;
            check_literal(span, &key, &shape, &value)?;
            patch.insert("default".into(), value);
        }
        "example" => {
            let expr: Expr = meta.value()?.parse()?;
            patch.insert("example".into(), literal_json(&expr)?);
        }
        "example_json" => {
            patch.insert("example".into(), json_text(meta)?);
        }
        "type_" => {
            // controller-gen's `+kubebuilder:validation:Type`: overrides the JSON type.
            let s = string(meta)?;
            const TYPES: [&str; 6] = ["array", "boolean", "integer", "number", "object", "string"];
            if !TYPES.contains(&s.value().as_str()) {
                return err(s.span(), format!("`type_` is one of {}", TYPES.join(", ")));
            }
            patch.insert("type".into(), s.value().into());
        }
        "title" => {
            patch.insert("title".into(), string(meta)?.value().into());
        }
        "nullable" => {
            patch.insert("nullable".into(), flag(meta)?.into());
        }
        "preserve_unknown_fields" => {
            patch.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                flag(meta)?.into(),
            );
        }
        "embedded_resource" => {
            check_shape(meta, &key, &shape, &[], "objects")?;
            patch.insert("@embedded_resource".into(), flag(meta)?.into());
        }
        "int_or_string" => {
            check_shape(
                meta,
                &key,
                &shape,
                &[is_string, is_numeric],
                "strings, integers and int-or-string types",
            )?;
            patch.insert("@int_or_string".into(), flag(meta)?.into());
        }
        "schemaless" => {
            field_only(meta)?;
            patch.insert("@schemaless".into(), flag(meta)?.into());
        }
        "required" | "optional" => {
            // On a struct: the default for its fields (controller-gen's type-level
            // `+kubebuilder:validation:Optional` / `Required`).
            if out.required.is_some() {
                return err(
                    meta.path.span(),
                    "`required` and `optional` can be given once",
                );
            }
            out.required = Some(key == "required");
        }
        "rule" => {
            let rule = parse_rule(meta)?;
            push_rule(patch, rule);
        }
        "immutable" => {
            let message = if meta.input.peek(syn::Token![=]) {
                string(meta)?.value()
            } else {
                "Value is immutable".into()
            };
            push_rule(
                patch,
                json!({ "rule": "self == oldSelf", "message": message }),
            );
        }
        "exactly_one_of" | "at_most_one_of" | "at_least_one_of" => {
            if level == Level::Field {
                return err(
                    meta.path.span(),
                    format!("`{key}` applies to structs: write it on the type and name its fields"),
                );
            }
            let kind = match key.as_str() {
                "exactly_one_of" => OneOf::Exactly,
                "at_most_one_of" => OneOf::AtMost,
                _ => OneOf::AtLeast,
            };
            let content;
            syn::parenthesized!(content in meta.input);
            let names =
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_terminated(
                    &content,
                )?;
            if names.len() < 2 {
                return err(
                    meta.path.span(),
                    format!("`{key}` needs at least two fields"),
                );
            }
            out.one_of_groups
                .push((names.into_iter().collect(), meta.path.span(), kind));
        }
        "items" => {
            field_only(meta)?;
            check_shape(meta, &key, &shape, &[is_list], "lists")?;
            let item = match &shape {
                Shape::List(item) => Some((**item).clone()),
                _ => None,
            };
            let mut inner = Parsed::default();
            parse_list(meta, &mut inner, item.as_ref(), Level::Field)?;
            merge_nested(out, "@items", inner, meta.path.span())?;
        }
        "values" => {
            field_only(meta)?;
            check_shape(meta, &key, &shape, &[is_map], "maps")?;
            let value = match &shape {
                Shape::Map(v) => Some((**v).clone()),
                _ => None,
            };
            let mut inner = Parsed::default();
            parse_list(meta, &mut inner, value.as_ref(), Level::Field)?;
            merge_nested(out, "@values", inner, meta.path.span())?;
        }
        other => {
            return err(
                meta.path.span(),
                format!("unknown kubeforge schema attribute `{other}`"),
            );
        }
    }
    Ok(())
}

fn merge_nested(out: &mut Parsed, key: &str, inner: Parsed, span: Span) -> syn::Result<()> {
    if inner.required.is_some() {
        return err(
            span,
            "`required`/`optional` do not apply to list items or map values",
        );
    }
    out.key_checks.extend(inner.key_checks);
    out.patch.insert(key.into(), Value::Object(inner.patch));
    Ok(())
}

/// Finishes cross-key checks once all keys of a field are known.
fn finish(out: &mut Parsed, span: Span) -> syn::Result<()> {
    let span = out.list_span.unwrap_or(span);
    let keys = out.patch.contains_key("x-kubernetes-list-map-keys");
    match out
        .patch
        .get("x-kubernetes-list-type")
        .and_then(Value::as_str)
    {
        Some("map") if !keys => {
            return err(span, "`list_type = \"map\"` needs `list_map_keys = [..]`");
        }
        Some("map") | None if keys => {
            out.patch
                .insert("x-kubernetes-list-type".into(), "map".into());
        }
        Some(other) if keys => {
            return err(
                span,
                format!("`list_map_keys` needs `list_type = \"map\"`, not \"{other}\""),
            );
        }
        _ => {}
    }
    if let (Some(min), Some(max)) = (
        out.patch.get("minimum").and_then(Value::as_f64),
        out.patch.get("maximum").and_then(Value::as_f64),
    ) && min > max
    {
        return err(
            span,
            format!("`minimum` ({min}) is greater than `maximum` ({max})"),
        );
    }
    if let Some(Value::Object(items)) = out.patch.get_mut("@items") {
        let mut nested = Parsed {
            patch: std::mem::take(items),
            ..Default::default()
        };
        finish(&mut nested, span)?;
        *items = nested.patch;
    }
    Ok(())
}

/// Parses every `#[kubeforge(...)]` attribute in `attrs` for a value of type `ty` (a field) or a
/// container (`ty = None`).
pub fn parse_attrs(
    attrs: &[syn::Attribute],
    ty: Option<&Type>,
    level: Level,
) -> syn::Result<Parsed> {
    let mut out = Parsed::default();
    let mut span = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kubeforge")) {
        span.get_or_insert(attr.span());
        attr.parse_nested_meta(|meta| parse_key(&meta, &mut out, ty, level))?;
    }
    if let Some(span) = span {
        finish(&mut out, span)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(attr: syn::Attribute, ty: &str) -> syn::Result<Parsed> {
        let ty: Type = syn::parse_str(ty).unwrap();
        parse_attrs(&[attr], Some(&ty), Level::Field)
    }

    #[test]
    fn numeric_and_string_keys_become_openapi_keywords() {
        let p = field(syn::parse_quote!(#[kubeforge(minimum = -1, maximum = 10.5, exclusive_maximum, multiple_of = 2)]), "f64").unwrap();
        assert_eq!(
            Value::Object(p.patch),
            json!({"minimum": -1, "maximum": 10.5, "exclusiveMaximum": true, "multipleOf": 2})
        );
        let p = field(syn::parse_quote!(#[kubeforge(min_length = 1, max_length = 63, pattern = "^[a-z]+$", format = "hostname")]), "Option<String>").unwrap();
        assert_eq!(
            Value::Object(p.patch),
            json!({"minLength": 1, "maxLength": 63, "pattern": "^[a-z]+$", "format": "hostname"})
        );
    }

    #[test]
    fn misuse_is_rejected_with_a_message() {
        let e = field(syn::parse_quote!(#[kubeforge(pattern = "x")]), "i32").unwrap_err();
        assert!(
            e.to_string()
                .contains("`pattern` applies to strings, but this field is an integer"),
            "{e}"
        );
        let e = field(syn::parse_quote!(#[kubeforge(min_items = 1)]), "String").unwrap_err();
        assert!(e.to_string().contains("lists"), "{e}");
        let e = field(
            syn::parse_quote!(#[kubeforge(list_map_keys = ["name"])]),
            "Vec<String>",
        )
        .unwrap_err();
        assert!(e.to_string().contains("scalars"), "{e}");
        let e = field(
            syn::parse_quote!(#[kubeforge(list_type = "map")]),
            "Vec<Port>",
        )
        .unwrap_err();
        assert!(e.to_string().contains("list_map_keys"), "{e}");
        let e = field(
            syn::parse_quote!(#[kubeforge(minimum = 5, maximum = 1)]),
            "i32",
        )
        .unwrap_err();
        assert!(e.to_string().contains("greater"), "{e}");
        let p = field(syn::parse_quote!(#[kubeforge(type_ = "string")]), "Custom").unwrap();
        assert_eq!(p.patch["type"], json!("string"));
        let e = field(syn::parse_quote!(#[kubeforge(type_ = "text")]), "Custom").unwrap_err();
        assert!(e.to_string().contains("`type_` is one of"), "{e}");
        let e = field(
            syn::parse_quote!(#[kubeforge(default = "three")]),
            "Option<i32>",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("`default` value \"three\" does not fit a field that is an integer"),
            "{e}"
        );
        let e = field(
            syn::parse_quote!(#[kubeforge(enum_values = ["a", 1])]),
            "String",
        )
        .unwrap_err();
        assert!(e.to_string().contains("`enum_values` value 1"), "{e}");
        let e = field(syn::parse_quote!(#[kubeforge(default_json = "[1]")]), "i64").unwrap_err();
        assert!(e.to_string().contains("does not fit"), "{e}");
        field(syn::parse_quote!(#[kubeforge(default = 80)]), "IntOrString").unwrap();
        field(syn::parse_quote!(#[kubeforge(default = 1.5)]), "f32").unwrap();
        let e = field(syn::parse_quote!(#[kubeforge(frobnicate)]), "i32").unwrap_err();
        assert!(e.to_string().contains("unknown"), "{e}");
    }

    #[test]
    fn lists_items_and_map_keys() {
        let p = field(syn::parse_quote!(#[kubeforge(list_map_keys = ["name", "protocol"], max_items = 5, items(max_properties = 3))]), "Vec<Port>").unwrap();
        assert_eq!(
            Value::Object(p.patch),
            json!({"x-kubernetes-list-map-keys": ["name", "protocol"], "x-kubernetes-list-type": "map", "maxItems": 5, "@items": {"maxProperties": 3}})
        );
        assert_eq!(p.key_checks.len(), 2);
        assert_eq!(p.key_checks[1].key, "protocol");
        let p = field(
            syn::parse_quote!(#[kubeforge(unique_items, items(min_length = 2))]),
            "Vec<String>",
        )
        .unwrap();
        assert_eq!(
            Value::Object(p.patch),
            json!({"x-kubernetes-list-type": "set", "@items": {"minLength": 2}})
        );
        let e = field(
            syn::parse_quote!(#[kubeforge(items(minimum = 1))]),
            "Vec<String>",
        )
        .unwrap_err();
        assert!(e.to_string().contains("numbers"), "{e}");
    }

    #[test]
    fn rules_defaults_and_presence() {
        let p = field(
            syn::parse_quote!(#[kubeforge(required, immutable, default = 3, rule(rule = "self > 1", message_expression = "'bad'", reason = "FieldValueForbidden", field_path = ".x", optional_old_self))]),
            "Option<i32>",
        )
        .unwrap();
        assert_eq!(p.required, Some(true));
        assert_eq!(
            Value::Object(p.patch),
            json!({"default": 3, "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "Value is immutable"},
                {"rule": "self > 1", "messageExpression": "'bad'", "reason": "FieldValueForbidden", "fieldPath": ".x", "optionalOldSelf": true}
            ]})
        );
        let p = field(
            syn::parse_quote!(#[kubeforge(default_json = r#"{"a": [1]}"#)]),
            "Inner",
        )
        .unwrap();
        assert_eq!(p.patch["default"], json!({"a": [1]}));
        let e = field(
            syn::parse_quote!(#[kubeforge(rule(reason = "Nope", rule = "x"))]),
            "i32",
        )
        .unwrap_err();
        assert!(e.to_string().contains("reason"), "{e}");
    }

    #[test]
    fn one_of_groups_render_controller_gen_rules() {
        let p = parse_attrs(
            &[syn::parse_quote!(#[kubeforge(exactly_one_of(a, b))])],
            None,
            Level::Container,
        )
        .unwrap();
        assert_eq!(p.one_of_groups.len(), 1);
        assert_eq!(
            OneOf::Exactly.rule(&["a".into(), "b".into()]),
            json!({"rule": "[has(self.a),has(self.b)].filter(x,x==true).size() == 1", "message": "exactly one of the fields in [a b] must be set"})
        );
        let e = field(syn::parse_quote!(#[kubeforge(exactly_one_of(a, b))]), "i32").unwrap_err();
        assert!(e.to_string().contains("applies to structs"), "{e}");
    }
}
