//! Decoded patch values as the real server's Go code prints them in its strategic merge
//! patch errors: `%v` of a map (`map[a:1 b:[x y]]`, keys sorted) and `%T` of a value.

use serde_json::{Number, Value};

/// A decoded JSON value as Go's `%v` prints it (numbers as decoded with `UseNumber`).
pub fn go_print(value: &Value) -> String {
    go_print_numbers(value, &|n| n.to_string())
}

/// A decoded JSON value as Go's `%v` prints it (`map[a:1 b:[x y]]`, keys sorted), its numbers
/// printed by `number` (as the decoder's Go type prints them: `json.Number`'s text, a
/// `float64`'s shortest digits).
pub fn go_print_numbers(value: &Value, number: &dyn Fn(&Number) -> String) -> String {
    match value {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) => number(n),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|v| go_print_numbers(v, number)).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}:{}", go_print_numbers(v, number)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

/// The Go type (`%T`) a decoded patch value has.
pub fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::String(_) => "string",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_print_sorted_as_go_prints_them() {
        assert_eq!(
            go_print(&json!({"name": "c", "$patch": "bogus", "n": [1, true]})),
            "map[$patch:bogus n:[1 true] name:c]"
        );
        assert_eq!(go_type(&json!(5)), "int64");
        assert_eq!(go_type(&json!("x")), "string");
    }
}
