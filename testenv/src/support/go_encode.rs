//! JSON as Go's `encoding/json` writes a decoded document (`map[string]interface{}`): keys
//! sorted, no spaces, floats in Go's shortest form (`2`, `1.5`, `1e+21`, `1e-7`), and `<`,
//! `>`, `&`, U+2028 and U+2029 escaped. The real server quotes such JSON in some messages
//! (the result of a patch it could not decode).

use serde_json::Value;

/// A float64 as Go's JSON encoder writes it.
pub(crate) fn float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Rust's `{:e}` is the shortest round-tripping form too, without Go's exponent sign.
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        return match exponent.strip_prefix('-') {
            Some(digits) => format!("{mantissa}e-{digits}"),
            None => format!("{mantissa}e+{exponent}"),
        };
    }
    // Rust prints whole floats with `.0`; Go prints them as integers.
    let text = f.to_string();
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// A string as Go's JSON encoder writes it, HTML-safe, onto `out`.
pub(crate) fn string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_f64() => out.push_str(&float(n.as_f64().unwrap_or_default())),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(key, out);
                out.push(':');
                write(&map[key], out);
            }
            out.push('}');
        }
    }
}

/// `value` as Go's `json.Marshal` writes the same document decoded into Go's generic types.
pub fn encode(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_as_go_does() {
        assert_eq!(
            encode(
                &json!({"b": [1, 2.0, 1.5, -0.25], "a": {"z": null, "y": true}, "c": "<a&b>\n\"x\"\u{1}"})
            ),
            r#"{"a":{"y":true,"z":null},"b":[1,2,1.5,-0.25],"c":"\u003ca\u0026b\u003e\n\"x\"\u0001"}"#
        );
        assert_eq!(
            encode(&json!([1e21, 1e-7, 1.5e-7, 123456789.0, 1e20])),
            "[1e+21,1e-7,1.5e-7,123456789,100000000000000000000]"
        );
    }
}
