//! The admission environment's checks, each against what a real kube-apiserver v1.34.9
//! answered for the same policy (`field: detail` of its field errors).

use serde_json::{Value, json};

use super::policy::policy_errors;

/// The errors of a policy with these fields, as `field: detail` (the detail's first line).
fn errors(spec: Value) -> Vec<String> {
    let mut spec = spec;
    spec["matchConstraints"] = json!({"resourceRules": [{"apiGroups": ["apps"],
        "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]});
    policy_errors(&spec)
        .iter()
        .map(|e| {
            let first = e.detail.lines().next().unwrap_or_default();
            format!("{}: {first}", e.field)
        })
        .collect()
}

fn validation(expression: &str) -> Vec<String> {
    errors(json!({"validations": [{"expression": expression}]}))
}

#[test]
fn typed_variables_and_libraries() {
    for accepted in [
        "request.kind.kind == 'Deployment' && request.resource.resource == 'deployments' && request.subResource == ''",
        "request.userInfo.username == 'x' && 'g' in request.userInfo.groups && request.userInfo.extra['a'][0] == 'b'",
        "has(request.options.x) && !request.dryRun && request.operation == 'CREATE'",
        "namespaceObject.metadata.creationTimestamp < timestamp('2020-01-01T00:00:00Z') && namespaceObject.metadata.generation > 0",
        "namespaceObject.status.conditions.all(c, c.type != '' && c.lastTransitionTime > timestamp('2020-01-01T00:00:00Z'))",
        "authorizer.group('apps').resource('deployments').namespace('ns').name('n').subresource('scale').check('get').allowed()",
        "authorizer.path('/healthz').check('get').allowed() || authorizer.path('/x').check('get').reason() == ''",
        "authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').errored() && authorizer.requestResource.check('create').error() != ''",
        "authorizer.group('').resource('pods').fieldSelector('a=b').labelSelector('a=b').check('list').allowed()",
        "authorizer == null && {1: 2}.a == 1",
        "sign(quantity('1')) == 1 && [1].first().hasValue() && [1].last().hasValue()",
        "optional.unwrap([optional.of(1)]) == [1] && [optional.of(1)].unwrapOpt() == [1]",
        "optional.of(1).optMap(x, x + 1).hasValue() && optional.of(1).optFlatMap(x, optional.of(x)).hasValue()",
        "object.?x.y.orValue(1) == 1 && request.?kind.hasValue()",
        "google.protobuf.Timestamp == type(namespaceObject.metadata.creationTimestamp)",
        "type(1) != type('a') && [?optional.of(1), 2].size() == 2 && '%s'.format([[1, 'a']]) == ''",
    ] {
        assert_eq!(validation(accepted), Vec::<String>::new(), "{accepted}");
    }
    let at = "spec.validations[0].expression: compilation failed: ERROR: <input>";
    for (refused, want) in [
        ("request.foo == 'a'", ":1:8: undefined field 'foo'"),
        ("has(request.uid)", ":1:4: undefined field 'uid'"),
        (
            "namespaceObject.metadata.labels.a.b == 'x'",
            ":1:34: type 'string' does not support field selection",
        ),
        (
            "request.kind == 'apps/v1'",
            ":1:14: found no matching overload for '_==_' applied to '(kubernetes.GroupVersionKind, string)'",
        ),
        (
            "authorizer.group('apps').check('get').allowed()",
            ":1:31: found no matching overload for 'check' applied to 'kubernetes.authorization.GroupCheck.(string)'",
        ),
        (
            "authorizer.requestResource.foo",
            ":1:27: unexpected failed resolution of 'kubernetes.authorization.ResourceCheck'",
        ),
        (
            "1.all(x, x > 0)",
            ":1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
        ),
        (
            "'a' ? true : false",
            ":1:5: found no matching overload for '_?_:_' applied to '(string, bool, bool)'",
        ),
        (
            "timestamp('2020-01-01T00:00:00Z') - 1 > timestamp('2019-01-01T00:00:00Z')",
            ":1:35: found no matching overload for '_-_' applied to '(timestamp, int)'",
        ),
        (
            "quantity('1').sign() == 1",
            ":1:19: found no matching overload for 'sign' applied to 'kubernetes.Quantity.()'",
        ),
        (
            "variables.x == 1",
            ":1:1: undeclared reference to 'variables' (in container '')",
        ),
        (
            "params.x == 1",
            ":1:1: undeclared reference to 'params' (in container '')",
        ),
        // cel-go's validators, run on an expression that checked.
        (
            "[object.x, 'a'].size() == 2",
            ":1:12: expected type 'dyn' but found 'string'",
        ),
        (
            "[1, 'a'].size() == 2 && 1 + 'a' == 2",
            ":1:27: found no matching overload for '_+_' applied to '(int, string)'",
        ),
        (
            "duration('1d') > duration('1s')",
            ":1:10: invalid duration argument",
        ),
        ("'a'.matches('[')", ":1:13: invalid matches argument"),
        (
            "[[1]].isSorted()",
            ":1:15: found no matching overload for 'isSorted' applied to 'list(list(int)).()'",
        ),
    ] {
        assert_eq!(
            validation(refused),
            vec![format!("{at}{want}")],
            "{refused}"
        );
    }
}

#[test]
fn result_types_per_field() {
    let at = "spec.validations[0].expression: ";
    for (expression, want) in [
        ("object.x", "must evaluate to bool but got dyn"),
        (
            "authorizer.requestResource.check('get')",
            "must evaluate to bool but got kubernetes.authorization.Decision",
        ),
        (
            "namespaceObject.metadata.creationTimestamp",
            "must evaluate to bool but got google.protobuf.Timestamp",
        ),
        ("[true]", "must evaluate to bool but got list(bool)"),
    ] {
        assert_eq!(validation(expression), vec![format!("{at}{want}")]);
    }
    let message =
        |m: &str| errors(json!({"validations": [{"expression": "true", "messageExpression": m}]}));
    assert_eq!(
        message("object.metadata.name"),
        ["spec.validations[0].messageExpression: must evaluate to string but got dyn"]
    );
    assert_eq!(
        message("null"),
        ["spec.validations[0].messageExpression: must evaluate to string but got null_type"]
    );
    assert!(message("'a' + string(object.x)").is_empty());
    // No authorizer in a message expression.
    assert_eq!(
        message("authorizer.group('a').resource('b').check('get').reason()"),
        [
            "spec.validations[0].messageExpression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')"
        ]
    );
    let audit = |v: &str| errors(json!({"auditAnnotations": [{"key": "k", "valueExpression": v}]}));
    assert!(audit("null").is_empty() && audit("request.name").is_empty());
    assert_eq!(
        audit("1"),
        [
            "spec.auditAnnotations[0].valueExpression: must evaluate to one of [string null_type] but got int"
        ]
    );
    let condition = |c: &str| {
        errors(json!({"validations": [{"expression": "true"}],
            "matchConditions": [{"name": "c", "expression": c}]}))
    };
    assert!(condition("  authorizer.requestResource.check('get').allowed()  ").is_empty());
    assert_eq!(
        condition("1"),
        ["spec.matchConditions[0].expression: must evaluate to bool but got int"]
    );
}

#[test]
fn composited_variables() {
    let run = |variables: Value, expression: &str| {
        errors(json!({"variables": variables, "validations": [{"expression": expression}]}))
    };
    let v = |e: &str| json!([{"name": "a", "expression": e}]);
    assert!(run(json!([{"name": "a", "expression": "1"}, {"name": "b", "expression": "variables.a + 1"}]), "variables.b > 1").is_empty());
    assert_eq!(
        run(v("1"), "variables.a"),
        ["spec.validations[0].expression: must evaluate to bool but got int"]
    );
    assert_eq!(
        run(v("{'k': [1]}"), "variables.a.k[0] == 'x'"),
        [
            "spec.validations[0].expression: compilation failed: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'"
        ]
    );
    // Objects, optionals and the libraries' types become dyn; so does a variable that fails.
    for e in ["request.userInfo", "optional.of(1)", "quantity('1')"] {
        assert!(run(v(e), "variables.a.foo == 1").is_empty(), "{e}");
    }
    assert_eq!(
        run(v("1 + 'a'"), "variables.a.foo == 1"),
        [
            "spec.variables[0].expression: compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'"
        ]
    );
    // A variable sees only the ones before it.
    assert_eq!(
        run(v("variables.a"), "true"),
        [
            "spec.variables[0].expression: compilation failed: ERROR: <input>:1:10: undefined field 'a'"
        ]
    );
    assert_eq!(
        run(v("null"), "variables.a == 1"),
        [
            "spec.validations[0].expression: compilation failed: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(null, int)'"
        ]
    );
}

#[test]
fn constant_patterns_go_refuses_fail_the_programs_instantiation() {
    // As kube-apiserver v1.34.9 answered: the validator checks a `matches` call's first
    // argument (a method's pattern, a global call's string), the program's planning every
    // constant pattern of `matches`, `find` and `findAll`, the first in planning order.
    let spec = json!({
    "matchConditions": [{"name": "a", "expression": "matches('a', '(')"}],
    "validations": [
        {"expression": "matches(object.metadata.name, '[') && 'a'.find('(') == ''"},
        {"expression": "true", "messageExpression": "'x'.find('[')"},
        {"expression": "object.metadata.name.findAll('(') == []"},
        {"expression": "matches('[', object.metadata.name)"},
        {"expression": "object.metadata.name.matches('[')"},
    ]});
    let found = errors(spec.clone());
    assert_eq!(
        found,
        [
            "spec.matchConditions[0].expression: program instantiation failed: error parsing regexp: missing closing ): `(`",
            "spec.validations[0].expression: program instantiation failed: error parsing regexp: missing closing ]: `[`",
            "spec.validations[1].messageExpression: program instantiation failed: error parsing regexp: missing closing ]: `[`",
            "spec.validations[2].expression: program instantiation failed: error parsing regexp: missing closing ): `(`",
            "spec.validations[3].expression: compilation failed: ERROR: <input>:1:9: invalid matches argument",
            "spec.validations[4].expression: compilation failed: ERROR: <input>:1:30: invalid matches argument",
        ]
    );
    let mut spec = spec;
    spec["matchConstraints"] = json!({"resourceRules": []});
    let internal: Vec<bool> = policy_errors(&spec)
        .iter()
        .map(|e| e.detail.starts_with("program instantiation failed: "))
        .collect();
    assert_eq!(internal, [true, true, true, true, false, false]);
}
