//! The checker and the estimator against what kube-apiserver 1.34 answered for the same
//! rules (messages and budgets recorded from a real server).

use serde_json::{Value, json};

use super::crd::cel_errors;
use crate::registry::schema::FieldError;

const P: &str = "spec.validation.openAPIV3Schema.properties[spec]";

fn errors(spec: Value) -> Vec<String> {
    let schema = json!({"type": "object", "properties": {"spec": spec}});
    let mut found: Vec<String> = cel_errors(&schema, "spec.validation.openAPIV3Schema", &[])
        .iter()
        .map(FieldError::to_message)
        .collect();
    found.sort();
    found
}

fn rules(props: Value, rules: Value) -> Value {
    json!({"type": "object", "properties": props, "x-kubernetes-validations": rules})
}

#[test]
fn type_errors_read_as_cel_go_writes_them() {
    let got = errors(rules(
        json!({"a": {"type": "integer"}, "s": {"type": "string"}}),
        json!([{"rule": "self.s == 1"}, {"rule": "[1, 'a'].size() > 0"}, {"rule": "math.greatest(1,2) == 2"},
            {"rule": "self.b > 1"}, {"rule": "self.a.size() > 0"}, {"rule": "self.s"}, {"rule": "true", "messageExpression": "1"},
            {"rule": "1 == 1.0"}, {"rule": "self.s.lowerAscii() > 1"}, {"rule": "[1,2].slice(0,1) == [1]"}]),
    ));
    let rule = |i: usize, text: &str| {
        format!(
            r#"{P}.x-kubernetes-validations[{i}].rule: Invalid value: {{"Rule":{},"Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}}: "#,
            Value::from(text).to_string().replace('>', "\\u003e")
        )
    };
    let want = [
        format!(
            "{}compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(string, int)'\n | self.s == 1\n | .......^",
            rule(0, "self.s == 1")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 0\n | ....^",
            rule(1, "[1, 'a'].size() > 0")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:1: undeclared reference to 'math' (in container '')\n | math.greatest(1,2) == 2\n | ^\nERROR: <input>:1:14: undeclared reference to 'greatest' (in container '')\n | math.greatest(1,2) == 2\n | .............^",
            rule(2, "math.greatest(1,2) == 2")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b > 1\n | ....^",
            rule(3, "self.b > 1")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:12: found no matching overload for 'size' applied to 'int.()'\n | self.a.size() > 0\n | ...........^",
            rule(4, "self.a.size() > 0")
        ),
        format!(
            "{}cel expression must evaluate to a bool",
            rule(5, "self.s")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:3: found no matching overload for '_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^",
            rule(7, "1 == 1.0")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:21: found no matching overload for '_>_' applied to '(string, int)'\n | self.s.lowerAscii() > 1\n | ....................^",
            rule(8, "self.s.lowerAscii() > 1")
        ),
        format!(
            "{}compilation failed: ERROR: <input>:1:12: undeclared reference to 'slice' (in container '')\n | [1,2].slice(0,1) == [1]\n | ...........^",
            rule(9, "[1,2].slice(0,1) == [1]")
        ),
    ];
    for w in &want {
        assert!(got.contains(w), "missing\n{w}\nin\n{got:#?}");
    }
    assert!(
        got.iter().any(|m| m.starts_with(&format!(
            "{P}.x-kubernetes-validations[6].messageExpression: Invalid value: "
        )) && m.ends_with("messageExpression must evaluate to a string")),
        "{got:#?}"
    );
    assert_eq!(got.len(), want.len() + 1, "{got:#?}");
}

#[test]
fn costs_are_held_to_the_real_budgets() {
    let budget = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    // 1000 items of 40000 bytes compared pairwise: 4.0e9, over the per-rule budget by far
    // and 40.1x the per-CRD one (kube-apiserver 1.34's figures).
    let got = errors(rules(
        json!({"a": {"type": "array", "maxItems": 1000, "items": {"type": "string", "maxLength": 10000}}}),
        json!([{"rule": "self.a.all(x, self.a.all(y, x == y))"}]),
    ));
    let mut want = [
        format!(
            "spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 40.1x {budget}"
        ),
        format!(
            "{P}.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"
        ),
        format!(
            "{P}.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {budget}"
        ),
    ];
    want.sort();
    assert_eq!(got, want);
    // Unbounded strings in a concatenation, and an unbounded list.
    let got = errors(rules(
        json!({"n": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}),
        json!([{"rule": "self.n > 0", "messageExpression": "'n is ' + string(self.n)"}, {"rule": "self.tags.all(t, t.contains('x'))"}]),
    ));
    assert!(got.contains(&format!("{P}.x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x {budget}")), "{got:#?}");
    assert!(got.contains(&format!("{P}.x-kubernetes-validations[1].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x {budget}")), "{got:#?}");
    // Bounded, the same rule fits (100 x 1000 is accepted by the real server).
    assert!(errors(rules(
        json!({"mid": {"type": "array", "maxItems": 100, "items": {"type": "string", "maxLength": 1000}}}),
        json!([{"rule": "self.mid.all(x, self.mid.all(y, x == y))"}]),
    ))
    .is_empty());
}

#[test]
fn the_real_environment_is_available() {
    let got = errors(rules(
        json!({"a": {"type": "string", "maxLength": 64}, "when": {"type": "string", "format": "date-time"},
            "d": {"type": "string", "format": "duration"}, "n": {"type": "integer"},
            "m": {"type": "object", "maxProperties": 10, "additionalProperties": {"type": "integer"}},
            "l": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 8}}}),
        json!([
            {"rule": "!has(self.when) || self.when > timestamp('2000-01-01T00:00:00Z')"},
            {"rule": "!has(self.d) || self.d < duration('24h')"},
            {"rule": "!has(self.a) || self.a.matches('^[a-z]+$')"},
            {"rule": "!has(self.m) || self.m.all(k, v, v >= 0)"},
            {"rule": "!has(self.l) || self.l.all(i, s, s.size() > i - 10)"},
            {"rule": "!has(self.a) || !format.dns1123Label().validate(self.a).hasValue()"},
            {"rule": "!has(self.n) || self.n < 100", "messageExpression": "'n is %d'.format([self.n])"},
            {"rule": "isSemver('1.0.0') && semver('1.2.3').major() == 1"},
            {"rule": "!has(self.m) || self.m.transformMap(k, v, v + 1).size() >= 0"},
            {"rule": "!has(self.l) || self.l.transformList(i, v, v).size() >= 0"},
            {"rule": "strings.quote('a') != '' && sets.contains([1], [1]) && optional.of(1).hasValue()"},
        ]),
    ));
    assert!(got.is_empty(), "{got:#?}");
}

#[test]
fn rules_are_evaluated_with_timestamps_durations_formats_and_two_variables() {
    let schema = json!({"type": "object", "properties": {"spec": rules(
        json!({"when": {"type": "string", "format": "date-time"}, "d": {"type": "string", "format": "duration"},
            "name": {"type": "string"}, "m": {"type": "object", "additionalProperties": {"type": "integer"}},
            "l": {"type": "array", "items": {"type": "string"}}}),
        json!([
            {"rule": "self.when > timestamp('2020-01-01T00:00:00Z')", "message": "too early"},
            {"rule": "self.d <= duration('1h')", "message": "too long"},
            {"rule": "!format.dns1123Label().validate(self.name).hasValue()", "message": "bad name"},
            {"rule": "self.m.all(k, v, v >= 0)", "message": "negative"},
            {"rule": "self.l.exists(i, v, i == 1 && v == 'b')", "message": "no b second"},
            {"rule": "self.m.transformMap(k, v, v * 2).all(k, v, v % 2 == 0)", "message": "odd"},
        ]),
    )}});
    let check = |spec: Value| -> Vec<String> {
        let mut errs = Vec::new();
        crate::registry::schema::rules::check_rules(
            &json!({"spec": spec}),
            &schema,
            None,
            false,
            "",
            &mut errs,
        );
        errs.iter().map(FieldError::to_message).collect()
    };
    let good = json!({"when": "2024-05-01T10:00:00Z", "d": "30m", "name": "web-1", "m": {"a": 1}, "l": ["a", "b"]});
    assert_eq!(check(good), Vec::<String>::new());
    let bad = json!({"when": "2019-05-01T10:00:00Z", "d": "2h", "name": "Web_1", "m": {"a": -1}, "l": ["b", "a"]});
    let got = check(bad);
    for want in [
        "too early",
        "too long",
        "bad name",
        "negative",
        "no b second",
    ] {
        assert!(
            got.iter().any(|m| m.ends_with(want)),
            "{want} not in {got:?}"
        );
    }
}

#[test]
fn logical_operands_and_all_exists_bodies_must_be_bool() {
    let got = errors(rules(
        json!({"l": {"type": "array", "maxItems": 5, "items": {"type": "integer"}},
            "m": {"type": "object", "maxProperties": 5, "additionalProperties": {"type": "string", "maxLength": 5}}}),
        json!([{"rule": "self.l.all(x, x)"}, {"rule": "self.l.exists(x, self.m)"}, {"rule": "1 || true"},
            {"rule": "self.l.exists_one(x, 'a')"}, {"rule": "self.l.all(x, dyn(x))"}]),
    ));
    let tail = |i: usize, pos: usize, message: &str, text: &str| {
        format!(
            "x-kubernetes-validations[{i}].rule: Invalid value: {{\"Rule\":{}{}compilation failed: ERROR: <input>:1:{pos}: {message}\n | {text}\n | {}^",
            Value::from(text),
            r#","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: "#,
            ".".repeat(pos - 1)
        )
    };
    let want = [
        tail(
            0,
            15,
            "expected type 'bool' but found 'int'",
            "self.l.all(x, x)",
        ),
        // A selection is placed at its dot.
        tail(
            1,
            22,
            "expected type 'bool' but found 'map(string, string)'",
            "self.l.exists(x, self.m)",
        ),
        tail(2, 1, "expected type 'bool' but found 'int'", "1 || true"),
        tail(
            3,
            18,
            "found no matching overload for '_?_:_' applied to '(string, int, int)'",
            "self.l.exists_one(x, 'a')",
        ),
    ];
    for w in &want {
        assert!(
            got.iter().any(|g| g.ends_with(w.as_str())),
            "missing\n{w}\nin\n{got:#?}"
        );
    }
    assert_eq!(got.len(), 4, "{got:#?}");
}

#[test]
fn dynamic_variables_still_need_bool_operands() {
    let roots = ["object", "oldObject", "params", "authorizer"];
    assert_eq!(
        super::admission::check_dynamic("object.spec.l.all(x, x)", &roots),
        Ok(())
    );
    assert_eq!(
        super::admission::check_dynamic(
            "authorizer.group('a').resource('r').check('b').allowed() && object.x",
            &roots
        ),
        Ok(())
    );
    assert_eq!(
        super::admission::check_dynamic("1 && 2", &roots)
            .err()
            .as_deref(),
        Some(
            "ERROR: <input>:1:1: expected type 'bool' but found 'int'\n | 1 && 2\n | ^\nERROR: <input>:1:6: expected type 'bool' but found 'int'\n | 1 && 2\n | .....^"
        )
    );
    assert_eq!(
        super::admission::check_dynamic("object.spec.l.all(x, [x])", &roots)
            .err()
            .as_deref(),
        Some(
            "ERROR: <input>:1:22: expected type 'bool' but found 'list(dyn)'\n | object.spec.l.all(x, [x])\n | .....................^"
        )
    );
    assert_eq!(
        super::admission::check_dynamic("object.l.exists_one(x, 'a')", &roots)
            .err()
            .as_deref(),
        Some(
            "ERROR: <input>:1:20: found no matching overload for '_?_:_' applied to '(string, int, int)'\n | object.l.exists_one(x, 'a')\n | ...................^"
        )
    );
}
