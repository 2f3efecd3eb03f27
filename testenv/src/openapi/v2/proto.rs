//! The Swagger 2.0 document as gnostic's `openapi.v2.Document` protobuf message, the form
//! client-go's `OpenAPISchema()` asks for (`Accept: application/com.github.proto-openapi.
//! spec.v2@v1.0+protobuf`) and decodes. Vendor extensions, defaults and enum values are
//! `Any` messages holding their YAML text (JSON text, which YAML reads).

use serde_json::{Map, Value};

use super::wire::Message;

const METHODS: &[(&str, u32)] = &[
    ("get", 2),
    ("put", 3),
    ("post", 4),
    ("delete", 5),
    ("options", 6),
    ("head", 7),
    ("patch", 8),
];

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn entries(v: &Value) -> impl Iterator<Item = (&String, &Value)> {
    v.as_object().into_iter().flatten()
}

fn strs(v: &Value) -> impl Iterator<Item = &str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str)
}

/// `Any { yaml }`.
fn any(v: &Value) -> Message {
    let mut m = Message::default();
    m.string(2, &v.to_string());
    m
}

/// `NamedAny` entries for the `x-` keys of an object.
fn extensions(m: &mut Message, field: u32, v: &Value) {
    for (k, x) in entries(v).filter(|(k, _)| k.starts_with("x-")) {
        let mut named = Message::default();
        named.string(1, k);
        named.message(2, any(x));
        m.message(field, named);
    }
}

/// The encoded `Document`.
pub fn document(doc: &Value) -> Vec<u8> {
    let mut d = Message::default();
    d.string(1, text(doc, "swagger"));
    let mut info = Message::default();
    info.string(1, text(&doc["info"], "title"));
    info.string(2, text(&doc["info"], "version"));
    d.message(2, info);
    let mut paths = Message::default();
    for (path, item) in entries(&doc["paths"]) {
        let mut named = Message::default();
        named.string(1, path);
        named.message(2, path_item(item));
        paths.message(2, named);
    }
    d.message(8, paths);
    let mut definitions = Message::default();
    for (name, s) in entries(&doc["definitions"]) {
        definitions.message(1, named_schema(name, s));
    }
    d.message(9, definitions);
    let mut parameters = Message::default();
    for (name, p) in entries(&doc["parameters"]) {
        let mut named = Message::default();
        named.string(1, name);
        named.message(2, parameter(p));
        parameters.message(1, named);
    }
    d.message(10, parameters);
    for requirement in doc["security"].as_array().into_iter().flatten() {
        let mut r = Message::default();
        for (name, scopes) in entries(requirement) {
            let mut array = Message::default();
            array.strings(1, strs(scopes));
            let mut named = Message::default();
            named.string(1, name);
            named.message(2, array);
            r.message(1, named);
        }
        d.message(12, r);
    }
    let mut security = Message::default();
    for (name, def) in entries(&doc["securityDefinitions"]) {
        let mut key = Message::default();
        key.string(1, text(def, "type"));
        key.string(2, text(def, "name"));
        key.string(3, text(def, "in"));
        key.string(4, text(def, "description"));
        let mut item = Message::default();
        item.message(2, key);
        let mut named = Message::default();
        named.string(1, name);
        named.message(2, item);
        security.message(1, named);
    }
    d.message(13, security);
    d.into_bytes()
}

fn path_item(item: &Value) -> Message {
    let mut m = Message::default();
    for (method, field) in METHODS {
        if let Some(op) = item.get(*method) {
            m.message(*field, operation(op));
        }
    }
    for p in item["parameters"].as_array().into_iter().flatten() {
        m.message(9, parameters_item(p));
    }
    m
}

fn operation(op: &Value) -> Message {
    let mut m = Message::default();
    m.strings(1, strs(&op["tags"]));
    m.string(3, text(op, "description"));
    m.string(5, text(op, "operationId"));
    m.strings(6, strs(&op["produces"]));
    m.strings(7, strs(&op["consumes"]));
    for p in op["parameters"].as_array().into_iter().flatten() {
        m.message(8, parameters_item(p));
    }
    let mut responses = Message::default();
    for (code, r) in entries(&op["responses"]) {
        let mut response = Message::default();
        response.string(1, text(r, "description"));
        if let Some(s) = r.get("schema") {
            let mut item = Message::default();
            item.message(1, schema(s));
            response.message(2, item);
        }
        let mut value = Message::default();
        value.message(1, response);
        let mut named = Message::default();
        named.string(1, code);
        named.message(2, value);
        responses.message(1, named);
    }
    m.message(9, responses);
    m.strings(10, strs(&op["schemes"]));
    extensions(&mut m, 13, op);
    m
}

/// `ParametersItem { parameter | json_reference: JsonReference { _ref } }`.
fn parameters_item(p: &Value) -> Message {
    let mut item = Message::default();
    match p.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let mut r = Message::default();
            r.string(1, reference);
            item.message(2, r);
        }
        None => item.message(1, parameter(p)),
    }
    item
}

/// `Parameter { body | non_body: query | path | header }`.
fn parameter(p: &Value) -> Message {
    let mut param = Message::default();
    let required = p["required"].as_bool().unwrap_or(false);
    if text(p, "in") == "body" {
        let mut b = Message::default();
        b.string(1, text(p, "description"));
        b.string(2, text(p, "name"));
        b.string(3, "body");
        b.boolean(4, required);
        if let Some(s) = p.get("schema") {
            b.message(5, schema(s));
        }
        param.message(1, b);
    } else {
        // Query sub-schemas have `allow_empty_value` at 5, which shifts the fields after it.
        let (field, shift) = match text(p, "in") {
            "query" => (3, 1),
            "header" => (1, 0),
            _ => (4, 0),
        };
        let mut s = Message::default();
        s.boolean(1, required);
        s.string(2, text(p, "in"));
        s.string(3, text(p, "description"));
        s.string(4, text(p, "name"));
        s.string(5 + shift, text(p, "type"));
        s.string(6 + shift, text(p, "format"));
        s.boolean(19 + shift, p["uniqueItems"].as_bool().unwrap_or(false));
        let mut non_body = Message::default();
        non_body.message(field, s);
        param.message(2, non_body);
    }
    param
}

fn named_schema(name: &str, s: &Value) -> Message {
    let mut named = Message::default();
    named.string(1, name);
    named.message(2, schema(s));
    named
}

fn schema(s: &Value) -> Message {
    let mut m = Message::default();
    let Some(o) = s.as_object() else {
        return m;
    };
    let num = |k: &str| o.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let int = |k: &str| o.get(k).and_then(Value::as_i64).unwrap_or(0);
    let flag = |k: &str| o.get(k).and_then(Value::as_bool).unwrap_or(false);
    m.string(1, text(s, "$ref"));
    m.string(2, text(s, "format"));
    m.string(3, text(s, "title"));
    m.string(4, text(s, "description"));
    if let Some(d) = o.get("default") {
        m.message(5, any(d));
    }
    m.double(6, num("multipleOf"));
    m.double(7, num("maximum"));
    m.boolean(8, flag("exclusiveMaximum"));
    m.double(9, num("minimum"));
    m.boolean(10, flag("exclusiveMinimum"));
    m.int64(11, int("maxLength"));
    m.int64(12, int("minLength"));
    m.string(13, text(s, "pattern"));
    m.int64(14, int("maxItems"));
    m.int64(15, int("minItems"));
    m.boolean(16, flag("uniqueItems"));
    m.int64(17, int("maxProperties"));
    m.int64(18, int("minProperties"));
    m.strings(19, strs(&s["required"]));
    for e in o
        .get("enum")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        m.message(20, any(e));
    }
    match o.get("additionalProperties") {
        Some(Value::Bool(b)) => {
            let mut a = Message::default();
            a.boolean(2, *b);
            m.message(21, a);
        }
        Some(sub @ Value::Object(_)) => {
            let mut a = Message::default();
            a.message(1, schema(sub));
            m.message(21, a);
        }
        _ => {}
    }
    match o.get("type") {
        Some(Value::String(t)) => {
            let mut t_item = Message::default();
            t_item.string(1, t);
            m.message(22, t_item);
        }
        Some(ts @ Value::Array(_)) => {
            let mut t_item = Message::default();
            t_item.strings(1, strs(ts));
            m.message(22, t_item);
        }
        _ => {}
    }
    match o.get("items") {
        Some(Value::Array(items)) => {
            let mut i = Message::default();
            items.iter().for_each(|x| i.message(1, schema(x)));
            m.message(23, i);
        }
        Some(item @ Value::Object(_)) => {
            let mut i = Message::default();
            i.message(1, schema(item));
            m.message(23, i);
        }
        _ => {}
    }
    for x in o
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        m.message(24, schema(x));
    }
    if let Some(Value::Object(props)) = o.get("properties") {
        m.message(25, properties(props));
    }
    m.boolean(27, flag("readOnly"));
    if let Some(e) = o.get("example") {
        m.message(30, any(e));
    }
    extensions(&mut m, 31, s);
    m
}

fn properties(props: &Map<String, Value>) -> Message {
    let mut m = Message::default();
    for (name, s) in props {
        m.message(1, named_schema(name, s));
    }
    m
}
