//! Numbers of a custom resource as the real server's storage gives them back (built-in kinds
//! are decoded into their Go types, whose numbers are typed). kube-apiserver decodes a JSON
//! number of an unstructured document (a custom resource) into an `int64` when its text is an
//! integer that fits, else into a `float64`, stores the object as Go writes it again and decodes
//! what it stored: so `18446744073709551615` comes back as the float `18446744073709552000`,
//! and `1e3`, `1.0` and `-0.0` as the integers `1000`, `1` and `0`.

use serde_json::{Number, Value};

use crate::support::go_encode;

/// Rewrites the numbers in `value` as storing and reading it again leaves them.
pub fn as_stored(value: &mut Value) {
    match value {
        Value::Number(n) => {
            if let Some(stored) = stored_number(n) {
                *n = stored;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(as_stored),
        Value::Object(map) => map.values_mut().for_each(as_stored),
        _ => {}
    }
}

/// The number `n` becomes after a round trip, when it changes.
fn stored_number(n: &Number) -> Option<Number> {
    if n.is_i64() {
        return None;
    }
    // Past int64's range an integer is read as a float64.
    let f = n.as_f64()?;
    // A float64 Go writes as an integer that fits int64 is read back as one.
    match go_encode::float(f).parse::<i64>() {
        Ok(i) => Some(Number::from(i)),
        Err(_) if n.is_u64() => Number::from_f64(f),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_come_back_as_a_round_trip_through_go_leaves_them() {
        let mut doc: Value = serde_json::from_str(
            r#"{"a":9223372036854775807,"b":9223372036854775808,"c":18446744073709551615,
            "d":-9223372036854775808,"e":-9223372036854775809,"f":1e3,"g":1.0,"h":1.5e300,
            "i":0.1,"j":1e21,"k":100000000000000000000,"l":-0.0,"m":[2.5,3.0]}"#,
        )
        .unwrap();
        as_stored(&mut doc);
        let i = |v: i64| json!(v);
        assert_eq!(doc["a"], i(i64::MAX));
        assert!(doc["b"].is_f64() && doc["c"].is_f64(), "{doc}");
        assert_eq!(doc["d"], i(i64::MIN));
        assert!(doc["e"].is_f64());
        assert_eq!((doc["f"].clone(), doc["g"].clone()), (i(1000), i(1)));
        assert!(doc["h"].is_f64() && doc["i"].is_f64() && doc["j"].is_f64());
        // 1e20 is written `100000000000000000000`, past int64: a float still.
        assert!(doc["k"].is_f64());
        assert_eq!(doc["l"], i(0));
        assert_eq!(doc["m"], json!([2.5, 3]));
    }
}
