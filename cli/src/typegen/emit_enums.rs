//! String enums and the helper functions of a generated file, as Rust source.
//!
//! An enum reads any string: a value its CRD lists becomes its variant, any other value
//! `Other(value)`, and both write back as they were read (serde's `from` through `String`,
//! `Serialize` through `as_str`). Its schema is the CRD's (`type: string` with the listed values), stated by hand
//! because the catch-all variant has no schema of its own.

use std::fmt::Write as _;

use super::model::{EnumDef, Module};
use super::text::{doc_comment, impl_header, item_header, json_tokens, literal};

/// An enum, `as_str`, its conversion from `String`, its `Serialize` and its schema.
pub fn enum_def(def: &EnumDef) -> String {
    let name = &def.name;
    let other = &def.other;
    let mut out = String::new();
    if let Some(doc) = &def.doc {
        out.push_str(&doc_comment(0, doc));
    }
    out.push_str("#[derive(Clone, Debug, Default, Deserialize, PartialEq)]\n");
    out.push_str("#[serde(from = \"String\")]\n");
    out.push_str(&item_header("enum", name));
    for (i, (variant, _)) in def.variants.iter().enumerate() {
        if i == 0 {
            out.push_str("    #[default]\n");
        }
        let _ = writeln!(out, "    {variant},");
    }
    out.push_str(
        "    /// A value this version of the CRD does not list (a newer server's), kept as it is.\n",
    );
    let _ = writeln!(out, "    {other}(String),");
    out.push_str("}\n\n");

    out.push_str(&impl_header(None, name));
    out.push_str("    /// The value as it is written in objects.\n");
    out.push_str("    pub fn as_str(&self) -> &str {\n        match self {\n");
    for (variant, value) in &def.variants {
        out.push_str(&arm(&format!("Self::{variant}"), &literal(value)));
    }
    out.push_str(&arm(&format!("Self::{other}(other)"), "other"));
    out.push_str("        }\n    }\n}\n\n");

    out.push_str(&impl_header(Some("From<String>"), name));
    out.push_str("    fn from(value: String) -> Self {\n        match value.as_str() {\n");
    for (variant, value) in &def.variants {
        out.push_str(&arm(&literal(value), &format!("Self::{variant}")));
    }
    out.push_str(&arm("_", &format!("Self::{other}(value)")));
    out.push_str("        }\n    }\n}\n\n");

    out.push_str(&impl_header(Some("Serialize"), name));
    out.push_str(
        "    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {\n        serializer.serialize_str(self.as_str())\n    }\n}\n\n",
    );

    let values: Vec<serde_json::Value> = def
        .variants
        .iter()
        .map(|(_, v)| serde_json::Value::String(v.clone()))
        .collect();
    let schema = serde_json::json!({"type": "string", "enum": values});
    out.push_str(&impl_header(Some("JsonSchema"), name));
    out.push_str(
        "    fn schema_name() -> std::borrow::Cow<'static, str> {\n        std::any::type_name::<Self>().into()\n    }\n\n",
    );
    out.push_str("    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {\n");
    let _ = writeln!(
        out,
        "        schemars::json_schema!({})",
        json_tokens(&schema)
    );
    out.push_str("    }\n}\n");
    out
}

/// A match arm at the depth of the generated `match`es: `pattern => value,`, or, when that is
/// too long, the value on the next line as rustfmt puts it.
fn arm(pattern: &str, value: &str) -> String {
    let line = format!("            {pattern} => {value},");
    if line.len() <= 100 {
        format!("{line}\n")
    } else {
        format!("            {pattern} => {{\n                {value}\n            }}\n")
    }
}

/// The private helpers the file's fields name: `nullable` and the schema functions.
pub fn helpers(module: &Module) -> String {
    let mut out = String::new();
    if module.has_optional_nullable() {
        out.push_str(
            "\n/// Reads a field that may be `null`: `null` is `Some(None)`, kept apart from an absent\n/// field (`None`), so both write back as they were read.\nfn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>\nwhere\n    D: serde::Deserializer<'de>,\n    T: Deserialize<'de>,\n{\n    Option::<T>::deserialize(deserializer).map(Some)\n}\n",
        );
    }
    for schema_fn in &module.schema_fns {
        let _ = write!(
            out,
            "\n/// A schema as the CRD states it (the field's Rust type cannot describe it).\nfn {}(_: &mut schemars::SchemaGenerator) -> schemars::Schema {{\n    schemars::json_schema!({})\n}}\n",
            schema_fn.name,
            json_tokens(&schema_fn.schema)
        );
    }
    out
}
