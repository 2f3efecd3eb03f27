//! `x-kubernetes-validations` CEL rules: evaluated on create and update with `self`,
//! transition rules with `oldSelf` (and `optionalOldSelf`), `message`,
//! `messageExpression`, `reason`, `fieldPath`, ratcheting, the real error shape, and rules
//! refused at CRD creation; the type check of a ValidatingAdmissionPolicy's expressions,
//! with `request`, `namespaceObject` and `authorizer` typed; and `authorizer` asking RBAC
//! about the requesting user when a policy is evaluated.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use serde_json::{Value, json};

use crate::common::api_error;

const GROUP: &str = "cel.conformance.kubeforge.dev";

fn crd(plural: &str, kind: &str, spec_schema: Value) -> CustomResourceDefinition {
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{GROUP}")},
        "spec": {"group": GROUP, "scope": "Namespaced",
                 "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "listKind": format!("{kind}List")},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec_schema}}}}]},
    }))
    .unwrap()
}

fn rules_schema() -> Value {
    json!({
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "!has(self.minReplicas) || !has(self.maxReplicas) || self.minReplicas <= self.maxReplicas",
             "message": "minReplicas must not exceed maxReplicas"},
            {"rule": "!has(self.forbidden)", "reason": "FieldValueForbidden", "fieldPath": ".forbidden",
             "message": "forbidden may not be set"},
            {"rule": "has(self.owner)", "reason": "FieldValueRequired", "fieldPath": ".owner",
             "message": "owner is required"},
        ],
        "properties": {
            "owner": {"type": "string"},
            "forbidden": {"type": "string"},
            "minReplicas": {"type": "integer"},
            "maxReplicas": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "self <= 100", "messageExpression": "'maxReplicas is %d, the limit is 100'.format([self])"},
            ]},
            "mode": {"type": "string", "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "mode is immutable"},
            ]},
            "port": {"x-kubernetes-int-or-string": true, "x-kubernetes-validations": [
                {"rule": "self == oldSelf", "message": "port is immutable"},
            ]},
            "version": {"type": "integer", "x-kubernetes-validations": [
                {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "optionalOldSelf": true,
                 "message": "version may not decrease"},
                {"rule": "self >= 1", "message": "version starts at 1"},
            ]},
            "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20},
                "x-kubernetes-validations": [
                {"rule": "self.all(t, self.exists_one(u, u == t))", "reason": "FieldValueDuplicate"},
            ]},
            "memory": {"type": "string", "x-kubernetes-validations": [
                {"rule": "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))",
                 "message": "memory must be a quantity below 1Gi"},
            ]},
        },
    })
}

async fn install(
    env: &kubeforge_testenv::TestEnv,
    def: &CustomResourceDefinition,
) -> Result<(), kube::Error> {
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let name = def.metadata.name.clone().unwrap();
    let _ = crds.delete(&name, &DeleteParams::default()).await;
    crate::semantics::wait_for(|| async { crds.get(&name).await.is_err() }).await;
    crds.create(&PostParams::default(), def).await?;
    for _ in 0..300 {
        let established = crds
            .get(&name)
            .await?
            .status
            .and_then(|s| s.conditions)
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True");
        if established {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{name} not Established");
}

async fn uninstall(env: &kubeforge_testenv::TestEnv, plural: &str) {
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let _ = crds
        .delete(&format!("{plural}.{GROUP}"), &DeleteParams::default())
        .await;
}

fn api(env: &kubeforge_testenv::TestEnv, kind: &str, plural: &str) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(GROUP, "v1", kind);
    Api::namespaced_with(
        env.client(),
        env.namespace(),
        &ApiResource::from_gvk_with_plural(&gvk, plural),
    )
}

/// The ValidatingAdmissionPolicies of `env`, as dynamic objects.
fn admission_policies(env: &kubeforge_testenv::TestEnv) -> Api<DynamicObject> {
    let gvk = GroupVersionKind::gvk(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicy",
    );
    Api::all_with(
        env.client(),
        &ApiResource::from_gvk_with_plural(&gvk, "validatingadmissionpolicies"),
    )
}

fn object(kind: &str, name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(
        json!({"apiVersion": format!("{GROUP}/v1"), "kind": kind, "metadata": {"name": name}, "spec": spec}),
    )
    .unwrap()
}

/// The (reason, field, message) causes of a 422 Invalid, sorted (the real server walks
/// object fields in map order).
fn causes(status: &kube::core::Status) -> Vec<(String, String, String)> {
    assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
    let mut found: Vec<_> = status
        .details
        .as_ref()
        .map(|d| d.causes.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|c| (c.reason, c.field, c.message))
        .collect();
    found.sort();
    found
}

fn sorted<const N: usize>(
    mut expected: [(String, String, String); N],
) -> Vec<(String, String, String)> {
    expected.sort();
    expected.to_vec()
}

fn cause(reason: &str, field: &str, message: &str) -> (String, String, String) {
    (reason.into(), field.into(), message.into())
}

#[tokio::test]
async fn rules_on_create_with_reasons_field_paths_and_messages() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    install(&env, &crd("celrules", "CelRule", rules_schema()))
        .await
        .unwrap();
    let rules = api(&env, "CelRule", "celrules");
    let pp = PostParams::default();

    let ok = json!({"owner": "me", "minReplicas": 1, "maxReplicas": 3, "mode": "a", "port": 80,
        "version": 1, "tags": ["x", "y"], "memory": "512Mi"});
    rules
        .create(&pp, &object("CelRule", "good", ok.clone()))
        .await
        .unwrap();

    let status = api_error(
        rules
            .create(
                &pp,
                &object(
                    "CelRule",
                    "bad",
                    json!({"minReplicas": 5, "maxReplicas": 2, "forbidden": "x"}),
                ),
            )
            .await,
    );
    assert_eq!(
        causes(&status),
        sorted([
            cause(
                "FieldValueInvalid",
                "spec",
                r#"Invalid value: "object": minReplicas must not exceed maxReplicas"#
            ),
            cause(
                "FieldValueForbidden",
                "spec.forbidden",
                "Forbidden: forbidden may not be set"
            ),
            cause(
                "FieldValueRequired",
                "spec.owner",
                "Required value: owner is required"
            ),
        ])
    );
    assert!(
        status
            .message
            .starts_with(r#"CelRule.cel.conformance.kubeforge.dev "bad" is invalid: ["#),
        "{}",
        status.message
    );

    let mut spec = ok.clone();
    spec["maxReplicas"] = json!(200);
    spec["minReplicas"] = json!(1);
    spec["tags"] = json!(["x", "x"]);
    spec["memory"] = json!("2Gi");
    let status = api_error(rules.create(&pp, &object("CelRule", "bad2", spec)).await);
    assert_eq!(
        causes(&status),
        sorted([
            cause(
                "FieldValueInvalid",
                "spec.maxReplicas",
                r#"Invalid value: "integer": maxReplicas is 200, the limit is 100"#
            ),
            cause(
                "FieldValueInvalid",
                "spec.memory",
                r#"Invalid value: "string": memory must be a quantity below 1Gi"#
            ),
            cause(
                "FieldValueDuplicate",
                "spec.tags",
                r#"Duplicate value: "array""#
            ),
        ])
    );
    uninstall(&env, "celrules").await;
}

#[tokio::test]
async fn transition_rules_on_update() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    install(
        &env,
        &crd("celtransitions", "CelTransition", rules_schema()),
    )
    .await
    .unwrap();
    let rules = api(&env, "CelTransition", "celtransitions");
    let spec = json!({"owner": "me", "mode": "a", "port": "80", "version": 2});
    // Transition rules are not evaluated on create: there is no old value.
    rules
        .create(&PostParams::default(), &object("CelTransition", "t", spec))
        .await
        .unwrap();
    let patch = |spec: Value| {
        let rules = rules.clone();
        async move {
            rules
                .patch(
                    "t",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"spec": spec})),
                )
                .await
        }
    };
    let status = api_error(patch(json!({"mode": "b"})).await);
    assert_eq!(
        causes(&status),
        sorted([cause(
            "FieldValueInvalid",
            "spec.mode",
            r#"Invalid value: "string": mode is immutable"#
        )])
    );
    // int-or-string: the string "80" and the integer 80 differ.
    let status = api_error(patch(json!({"port": 80})).await);
    assert_eq!(
        causes(&status),
        sorted([cause(
            "FieldValueInvalid",
            "spec.port",
            r#"Invalid value: "": port is immutable"#
        )])
    );
    let status = api_error(patch(json!({"version": 1})).await);
    assert_eq!(
        causes(&status),
        sorted([cause(
            "FieldValueInvalid",
            "spec.version",
            r#"Invalid value: "integer": version may not decrease"#
        )])
    );
    patch(json!({"version": 3, "mode": "a", "port": "80"}))
        .await
        .unwrap();
    // optionalOldSelf: evaluated on create too, with oldSelf absent.
    let status = api_error(
        rules
            .create(
                &PostParams::default(),
                &object(
                    "CelTransition",
                    "zero",
                    json!({"owner": "me", "version": 0}),
                ),
            )
            .await,
    );
    assert_eq!(
        causes(&status),
        sorted([cause(
            "FieldValueInvalid",
            "spec.version",
            r#"Invalid value: "integer": version starts at 1"#
        )])
    );
    uninstall(&env, "celtransitions").await;
}

#[tokio::test]
async fn unchanged_values_are_not_revalidated() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let loose = json!({"type": "object", "properties": {
        "name": {"type": "string"}, "size": {"type": "integer"}}});
    let mut strict = loose.clone();
    strict["properties"]["name"]["x-kubernetes-validations"] =
        json!([{"rule": "self.size() <= 5", "message": "name is too long"}]);
    install(&env, &crd("celratchets", "CelRatchet", loose))
        .await
        .unwrap();
    let objects = api(&env, "CelRatchet", "celratchets");
    objects
        .create(
            &PostParams::default(),
            &object(
                "CelRatchet",
                "r",
                json!({"name": "much-too-long", "size": 1}),
            ),
        )
        .await
        .unwrap();
    // Tighten the schema under the stored object.
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let name = format!("celratchets.{GROUP}");
    crds.patch(
        &name,
        &PatchParams::default(),
        &Patch::Json::<()>(
            serde_json::from_value(json!([{"op": "replace",
                "path": "/spec/versions/0/schema/openAPIV3Schema/properties/spec", "value": strict}]))
            .unwrap(),
        ),
    )
    .await
    .unwrap();
    let patch = |spec: Value| {
        let objects = objects.clone();
        async move {
            objects
                .patch(
                    "r",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"spec": spec})),
                )
                .await
        }
    };
    // A real server applies a CRD update asynchronously: wait until the new rule refuses a
    // new object (a dry run, which stores nothing).
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    crate::semantics::wait_for(|| async {
        let probe = object("CelRatchet", "probe", json!({"name": "much-too-long"}));
        objects.create(&dry_run, &probe).await.is_err()
    })
    .await;
    // The stored, now invalid, name is unchanged: the update is accepted.
    patch(json!({"size": 2})).await.unwrap();
    // A changed, still invalid, name is refused.
    let status = api_error(patch(json!({"name": "also-too-long"})).await);
    assert_eq!(
        causes(&status),
        sorted([cause(
            "FieldValueInvalid",
            "spec.name",
            r#"Invalid value: "string": name is too long"#
        )])
    );
    uninstall(&env, "celratchets").await;
}

#[tokio::test]
async fn rules_that_do_not_compile_are_refused_with_the_crd() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}},
    "x-kubernetes-validations": [
        {"rule": "self.a <"},
        {"rule": "nope(self.a)"},
    ]});
    let status = api_error(install(&env, &crd("celbroken", "CelBroken", schema)).await);
    let found = causes(&status);
    let prefix = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].1, format!("{prefix}[0].rule"));
    assert!(found[0].2.contains("compilation failed"), "{}", found[0].2);
    assert_eq!(found[1].1, format!("{prefix}[1].rule"));
    assert!(
        found[1].2.contains("undeclared reference to 'nope'"),
        "{}",
        found[1].2
    );
}

#[tokio::test]
async fn policy_expressions_are_type_checked_with_typed_variables() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let policies = admission_policies(&env);
    let policy = |name: &str, expression: &str| -> DynamicObject {
        serde_json::from_value(json!({"apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
            "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["apps"],
                "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["deployments"]}]},
                "validations": [{"expression": expression}]}}))
        .unwrap()
    };
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    // The authz library, the typed request and namespace, and the libraries' functions.
    let accepted = "request.userInfo.username != '' && namespaceObject.metadata.labels['a'] == 'b' \
        && authorizer.group('apps').resource('deployments').check('get').allowed() \
        && authorizer.requestResource.namespace('x').check('get').reason() == '' \
        && sign(quantity('1')) == 1 && [1].first().hasValue()";
    policies
        .create(&dry_run, &policy("typed-ok", accepted))
        .await
        .unwrap();
    for (expression, at) in [
        ("request.foo == 'a'", "1:8: undefined field 'foo'"),
        (
            "namespaceObject.metadata.generation == '1'",
            "1:37: found no matching overload for '_==_' applied to '(int, string)'",
        ),
        (
            "authorizer.group('apps').check('get').allowed()",
            "1:31: found no matching overload for 'check' applied to 'kubernetes.authorization.GroupCheck.(string)'",
        ),
        (
            "1.all(x, x > 0)",
            "1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
        ),
    ] {
        let status = api_error(
            policies
                .create(&dry_run, &policy("typed-bad", expression))
                .await,
        );
        let found = causes(&status);
        assert_eq!(found.len(), 1, "{expression}: {found:?}");
        assert_eq!(found[0].1, "spec.validations[0].expression");
        let want = format!("compilation failed: ERROR: <input>:{at}\n");
        assert!(found[0].2.contains(&want), "{expression}: {}", found[0].2);
    }
}

#[tokio::test]
async fn policy_status_reports_type_checking_warnings_per_kind() {
    let env = kubeforge_testenv::TestEnv::start().await.unwrap();
    let policies = admission_policies(&env);
    let name = "conformance-type-checking";
    let policy: DynamicObject = serde_json::from_value(json!({
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
    "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": ["", "apps"],
        "apiVersions": ["v1"], "operations": ["CREATE"],
        "resources": ["configmaps", "deployments"]}]},
        "validations": [
            {"expression": "object.metadata.name != ''",
             "messageExpression": "'replicas ' + object.spec.replicas"},
            {"expression": "object.metadata.name > 1"},
        ]}}))
    .unwrap();
    policies
        .create(&PostParams::default(), &policy)
        .await
        .unwrap();
    // The status controller writes the status a moment after the create.
    let mut status = Value::Null;
    for _ in 0..300 {
        let found = policies.get(name).await.unwrap();
        status = found.data["status"].clone();
        if status["observedGeneration"] == json!(1) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let caret = |source: &str, col: usize| format!(" | {source}\n | {}^\n", ".".repeat(col - 1));
    let message = "'replicas ' + object.spec.replicas";
    let compare = "object.metadata.name > 1";
    let overload = |col: usize, types: &str, source: &str| {
        format!(
            "ERROR: <input>:1:{col}: found no matching overload for '_{}_' applied to '({types})'\n{}",
            if source == compare { ">" } else { "+" },
            caret(source, col)
        )
    };
    let want = json!([
        {"fieldRef": "spec.validations[0].messageExpression",
         "warning": format!(
            "/v1, Kind=ConfigMap: ERROR: <input>:1:21: undefined field 'spec'\n{}\
             \napps/v1, Kind=Deployment: {}",
            caret(message, 21),
            overload(13, "string, int", message)
         )},
        {"fieldRef": "spec.validations[1].expression",
         "warning": format!(
            "/v1, Kind=ConfigMap: {}\napps/v1, Kind=Deployment: {}",
            overload(22, "string, int", compare),
            overload(22, "string, int", compare)
         )},
    ]);
    let delete = policies.delete(name, &DeleteParams::default()).await;
    assert_eq!(
        status["typeChecking"]["expressionWarnings"], want,
        "{status}"
    );
    delete.unwrap();
}

#[tokio::test]
async fn a_policy_asks_the_authorizer_about_the_requesting_user() {
    use crate::support::raw::{client, client_with_token, eventually, send};
    let env = kubeforge_testenv::TestEnv::builder()
        .policy(kubeforge_testenv::Policy::rbac())
        .start()
        .await
        .unwrap();
    let ns = env.namespace().to_string();
    let admin = client(&env).await;
    let post = |path: String, body: Value| {
        let admin = admin.clone();
        async move {
            let (code, answer) = send(&admin, "POST", &path, "application/json", Some(body)).await;
            assert!(code < 300, "{path}: {answer}");
        }
    };
    let rbac = format!("/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}");
    post(
        format!("/api/v1/namespaces/{ns}/serviceaccounts"),
        json!({"metadata": {"name": "writer"}}),
    )
    .await;
    post(
        format!("{rbac}/roles"),
        json!({"metadata": {"name": "writes"},
        "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create"]}]}),
    )
    .await;
    post(
        format!("{rbac}/roles"),
        json!({"metadata": {"name": "lists-secrets"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["list"]}]}),
    )
    .await;
    let bind = |name: &str, role: &str| {
        json!({"metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
        "subjects": [{"kind": "ServiceAccount", "name": "writer", "namespace": ns}]})
    };
    post(
        format!("{rbac}/rolebindings"),
        bind("writer-writes", "writes"),
    )
    .await;
    let (_, token) = send(
        &admin,
        "POST",
        &format!("/api/v1/namespaces/{ns}/serviceaccounts/writer/token"),
        "application/json",
        Some(json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})),
    )
    .await;
    let writer = client_with_token(&env, token["status"]["token"].as_str().unwrap()).await;

    let policy = format!("conformance-authz-{ns}");
    let registration = "/apis/admissionregistration.k8s.io/v1";
    post(format!("{registration}/validatingadmissionpolicies"), json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": policy},
        "spec": {"matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
            "operations": ["CREATE"], "resources": ["configmaps"]}]},
            "matchConditions": [{"name": "by-the-writer",
                "expression": "request.userInfo.username.endsWith(':writer') && authorizer.requestResource.check('create').allowed()"}],
            "validations": [{"expression":
                "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('list').allowed()",
                "message": "the writer must be able to list secrets"}]}}))
    .await;
    post(format!("{registration}/validatingadmissionpolicybindings"), json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy},
        "spec": {"policyName": policy, "validationActions": ["Deny"],
            "matchResources": {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}}}}}))
    .await;

    let configmaps = format!("/api/v1/namespaces/{ns}/configmaps?dryRun=All");
    let write = || async {
        send(
            &writer,
            "POST",
            &configmaps,
            "application/json",
            Some(
                json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "by-writer"}}),
            ),
        )
        .await
    };
    // A real server's policy informer takes a moment to see the policy.
    let refused = eventually(30, || async {
        let (code, body) = write().await;
        (code == 422).then_some(body)
    })
    .await;
    let refused = refused.expect("the policy refuses the writer, who cannot list secrets");
    assert_eq!(
        refused["message"],
        json!(format!(
            "configmaps \"by-writer\" is forbidden: ValidatingAdmissionPolicy '{policy}' with binding '{policy}' denied request: the writer must be able to list secrets"
        ))
    );
    // The admin does not meet the match condition.
    let (code, body) = send(
        &admin,
        "POST",
        &configmaps,
        "application/json",
        Some(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "by-admin"}})),
    )
    .await;
    assert_eq!(code, 201, "{body}");

    post(
        format!("{rbac}/rolebindings"),
        bind("writer-lists", "lists-secrets"),
    )
    .await;
    let admitted = eventually(30, || async { (write().await.0 == 201).then_some(()) }).await;
    for path in [
        format!("{registration}/validatingadmissionpolicybindings/{policy}"),
        format!("{registration}/validatingadmissionpolicies/{policy}"),
    ] {
        send(&admin, "DELETE", &path, "", None).await;
    }
    assert!(
        admitted.is_some(),
        "the RoleBinding lets the writer's configmap in"
    );

    // A webhook's match condition asks the same authorizer: while the writer may list
    // secrets the (unreachable, failurePolicy Fail) webhook is called and the write fails;
    // once the binding is gone the condition is false and the webhook skipped.
    let webhook = format!("conformance-authz-{ns}");
    post(format!("{registration}/validatingwebhookconfigurations"), json!({
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": webhook},
        "webhooks": [{"name": "authz.conformance.kubeforge.dev", "sideEffects": "None",
            "admissionReviewVersions": ["v1"], "failurePolicy": "Fail", "timeoutSeconds": 2,
            "clientConfig": {"url": "https://127.0.0.1:1/unreachable"},
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
            "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"],
                "resources": ["configmaps"]}],
            "matchConditions": [{"name": "writer-lists-secrets", "expression":
                "request.userInfo.username.endsWith(':writer') && authorizer.group('').resource('secrets').namespace(request.namespace).check('list').allowed()"}]}]}))
    .await;
    let called = eventually(30, || async {
        let (code, body) = write().await;
        (code == 500).then_some(body)
    })
    .await
    .expect("the webhook is called while the condition holds");
    assert!(
        called["message"]
            .as_str()
            .is_some_and(|m| m.contains("failed calling webhook")),
        "{called}"
    );
    send(
        &admin,
        "DELETE",
        &format!("{rbac}/rolebindings/writer-lists"),
        "",
        None,
    )
    .await;
    let skipped = eventually(30, || async { (write().await.0 == 201).then_some(()) }).await;
    let path = format!("{registration}/validatingwebhookconfigurations/{webhook}");
    send(&admin, "DELETE", &path, "", None).await;
    assert!(
        skipped.is_some(),
        "without the binding the condition is false and the webhook skipped"
    );
}
