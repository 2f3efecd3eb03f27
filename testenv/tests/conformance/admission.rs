//! Admission webhooks: what kube-apiserver sends to Mutating- and
//! ValidatingWebhookConfigurations and what it does with the answers.
//!
//! Every test runs an HTTPS webhook in the test process. A private control plane
//! (`KUBEFORGE_TEST_CLUSTER=binaries`) runs on this machine and reaches it on 127.0.0.1.
//! An existing cluster (`KUBEFORGE_TEST_CLUSTER=existing`) must reach it too: the tests are
//! skipped there unless `KUBEFORGE_TEST_WEBHOOK_HOST` names an address of this machine the
//! cluster can reach (webhooks then listen on every interface).

use std::sync::{Arc, Mutex};

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kubeforge_testenv::TestEnv;
use serde_json::{Value, json};

use crate::common::{Widget, api_error, env};
use crate::support::webhook_server::{self, WebhookServer};

/// One test's environment, and the webhook configurations it created (deleted by
/// [`Ctx::cleanup`], as they are cluster-scoped on a real cluster).
pub struct Ctx {
    pub env: TestEnv,
    configs: Mutex<Vec<(bool, String)>>,
}

/// Reviews a webhook received.
pub type Seen = Arc<Mutex<Vec<Value>>>;

impl Ctx {
    /// The environment, or None (after saying why) on a real cluster that cannot reach
    /// webhooks in this process.
    pub async fn new() -> Option<Ctx> {
        Self::with_env(env().await)
    }

    /// [`Ctx::new`] with an environment of the caller's.
    pub fn with_env(env: TestEnv) -> Option<Ctx> {
        if env.is_existing_cluster() && std::env::var(webhook_server::HOST_VAR).is_err() {
            eprintln!(
                "skipping: the cluster must reach this process's webhook; set {} to an address of this machine it can reach",
                webhook_server::HOST_VAR
            );
            return None;
        }
        Some(Ctx {
            env,
            configs: Mutex::new(Vec::new()),
        })
    }

    pub fn ns(&self) -> &str {
        self.env.namespace()
    }

    /// A webhook entry: the given clientConfig and rules, limited to this test's namespace
    /// (namespaceSelector), sideEffects None, 5 s timeout; `extra` fields override.
    pub fn hook(&self, name: &str, client_config: Value, rules: Value, extra: Value) -> Value {
        let mut hook = json!({
            "name": name,
            "clientConfig": client_config,
            "rules": rules,
            "sideEffects": "None",
            "admissionReviewVersions": ["v1"],
            "timeoutSeconds": 5,
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": self.ns()}},
        });
        for (k, v) in extra.as_object().into_iter().flatten() {
            hook[k] = v.clone();
        }
        hook
    }

    fn config_name(&self, name: &str) -> String {
        format!("{name}-{}", self.ns())
    }

    /// Creates a MutatingWebhookConfiguration `name` (suffixed with the namespace).
    pub async fn mutating(&self, name: &str, hooks: Vec<Value>) {
        let name = self.config_name(name);
        let cfg: MutatingWebhookConfiguration = serde_json::from_value(json!({
            "metadata": {"name": name}, "webhooks": hooks,
        }))
        .unwrap();
        Api::<MutatingWebhookConfiguration>::all(self.env.client())
            .create(&PostParams::default(), &cfg)
            .await
            .unwrap();
        self.configs.lock().unwrap().push((true, name));
        self.settle().await;
    }

    /// Creates a ValidatingWebhookConfiguration `name` (suffixed with the namespace).
    pub async fn validating(&self, name: &str, hooks: Vec<Value>) {
        let name = self.config_name(name);
        let cfg: ValidatingWebhookConfiguration = serde_json::from_value(json!({
            "metadata": {"name": name}, "webhooks": hooks,
        }))
        .unwrap();
        Api::<ValidatingWebhookConfiguration>::all(self.env.client())
            .create(&PostParams::default(), &cfg)
            .await
            .unwrap();
        self.configs.lock().unwrap().push((false, name));
        self.settle().await;
    }

    /// A real server loads webhook configurations asynchronously (through an informer) and
    /// no API tells when a new one is in effect: give it time. The embedded server uses a
    /// configuration from the next request on.
    pub async fn settle(&self) {
        if self.env.mode_name() != "embedded" {
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        }
    }

    /// Deletes the configurations this test created.
    pub async fn cleanup(self) {
        let configs = std::mem::take(&mut *self.configs.lock().unwrap());
        for (mutating, name) in configs {
            let dp = DeleteParams::default();
            if mutating {
                let _ = Api::<MutatingWebhookConfiguration>::all(self.env.client())
                    .delete(&name, &dp)
                    .await;
            } else {
                let _ = Api::<ValidatingWebhookConfiguration>::all(self.env.client())
                    .delete(&name, &dp)
                    .await;
            }
        }
    }

    pub fn widgets(&self) -> Api<DynamicObject> {
        let ar = ApiResource::erase::<Widget>(&());
        Api::namespaced_with(self.env.client(), self.ns(), &ar)
    }

    pub fn configmaps(&self) -> Api<ConfigMap> {
        Api::namespaced(self.env.client(), self.ns())
    }
}

/// Rules for one resource of the conformance group (or the core group with `group: ""`).
pub fn rules(group: &str, resources: &[&str], operations: &[&str]) -> Value {
    json!([{"apiGroups": [group], "apiVersions": ["*"], "resources": resources, "operations": operations}])
}

/// A webhook that records every review and answers with `answer(review)`.
pub async fn recording_server(
    names: &[&str],
    answer: impl Fn(&Value) -> Value + Send + Sync + 'static,
) -> (WebhookServer, Seen) {
    let seen: Seen = Arc::default();
    let record = seen.clone();
    let answer = Arc::new(answer);
    let server = WebhookServer::start(names, move |_path, review| {
        record.lock().unwrap().push(review.clone());
        let answer = answer.clone();
        async move { answer(&review) }
    })
    .await;
    (server, seen)
}

pub fn widget_json(name: &str, spec: Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"name": name}, "spec": spec,
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutation_runs_before_schema_validation() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        webhook_server::patch(
            review,
            json!([{"op": "add", "path": "/spec/color", "value": "blue"}]),
        )
    })
    .await;
    ctx.mutating(
        "default-color",
        vec![ctx.hook(
            "color.conformance.kubeforge.dev",
            server.client_config("/mutate"),
            rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    // `color` is required by the schema: only the webhook's default makes this valid.
    let created = ctx
        .widgets()
        .create(
            &PostParams::default(),
            &widget_json("defaulted", json!({"replicas": 2})),
        )
        .await
        .expect("the webhook's default satisfies the schema");
    assert_eq!(created.data["spec"]["color"], "blue");
    let stored = ctx.widgets().get("defaulted").await.unwrap();
    assert_eq!(stored.data["spec"]["color"], "blue");

    let reviews = seen.lock().unwrap().clone();
    assert_eq!(reviews.len(), 1, "one call for one create");
    let review = &reviews[0];
    assert_eq!(review["apiVersion"], "admission.k8s.io/v1");
    let request = &review["request"];
    assert_eq!(request["operation"], "CREATE");
    assert_eq!(
        request["kind"],
        json!({"group": "conformance.kubeforge.dev", "version": "v1", "kind": "Widget"})
    );
    assert_eq!(
        request["resource"],
        json!({"group": "conformance.kubeforge.dev", "version": "v1", "resource": "widgets"})
    );
    assert_eq!(request["requestKind"], request["kind"]);
    assert_eq!(request["requestResource"], request["resource"]);
    assert_eq!(request["name"], "defaulted");
    assert_eq!(request["namespace"], ctx.ns());
    assert_eq!(request["dryRun"], false);
    assert_eq!(request["options"]["kind"], "CreateOptions");
    assert!(request["uid"].as_str().is_some_and(|u| !u.is_empty()));
    assert!(request["userInfo"]["username"].is_string());
    assert!(request["object"]["spec"].get("color").is_none());
    assert!(request["oldObject"].is_null());
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_see_who_made_the_request() {
    let Some(ctx) = Ctx::new().await else { return };
    let ns = ctx.ns().to_string();
    // A service account allowed to create widgets (by RBAC, on both servers), and a client
    // acting as it.
    let writer = ctx.env.service_account_client("writer").await.unwrap();
    let grant = |kind: &str, body: Value| {
        let resource = ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "rbac.authorization.k8s.io",
            "v1",
            kind,
        ));
        let api: Api<DynamicObject> = Api::namespaced_with(ctx.env.client(), &ns, &resource);
        async move {
            api.create(
                &PostParams::default(),
                &serde_json::from_value(body).unwrap(),
            )
            .await
            .unwrap();
        }
    };
    grant(
        "Role",
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "widget-writer"},
            "rules": [{"apiGroups": ["conformance.kubeforge.dev"], "resources": ["widgets"],
                "verbs": ["create"]}]}),
    )
    .await;
    grant(
        "RoleBinding",
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "widget-writer"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                "name": "widget-writer"},
            "subjects": [{"kind": "ServiceAccount", "name": "writer", "namespace": ns}]}),
    )
    .await;
    let (server, seen) = recording_server(&[], webhook_server::allow).await;
    ctx.validating(
        "who",
        vec![ctx.hook(
            "who.conformance.kubeforge.dev",
            server.client_config("/validate"),
            rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]),
            json!({}),
        )],
    )
    .await;
    let widgets: Api<DynamicObject> = Api::namespaced_with(
        writer,
        &ns,
        &ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "conformance.kubeforge.dev",
            "v1",
            "Widget",
        )),
    );
    // RBAC on a real server may take a moment to see the new binding.
    let created = crate::support::raw::eventually(20, || async {
        widgets
            .create(
                &PostParams::default(),
                &widget_json("by-writer", json!({"color": "red", "replicas": 1})),
            )
            .await
            .ok()
    })
    .await;
    assert!(created.is_some(), "the service account may create widgets");
    let reviews = seen.lock().unwrap().clone();
    let user = &reviews.last().expect("the webhook was called")["request"]["userInfo"];
    assert_eq!(
        user["username"],
        format!("system:serviceaccount:{ns}:writer")
    );
    let groups: Vec<&str> = user["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        groups,
        [
            "system:serviceaccounts",
            &format!("system:serviceaccounts:{ns}"),
            "system:authenticated"
        ]
    );
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(ctx.env.client(), &ns);
    let uid = accounts.get("writer").await.unwrap().metadata.uid.unwrap();
    assert_eq!(user["uid"], uid);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutating_an_update_sees_the_old_object() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        webhook_server::patch(
            review,
            json!([{"op": "add", "path": "/metadata/annotations", "value": {"mutated": "yes"}}]),
        )
    })
    .await;
    ctx.widgets()
        .create(
            &PostParams::default(),
            &widget_json("w", json!({"color": "red", "replicas": 1})),
        )
        .await
        .unwrap();
    ctx.mutating(
        "annotate",
        vec![ctx.hook(
            "annotate.conformance.kubeforge.dev",
            server.client_config("/mutate"),
            rules("conformance.kubeforge.dev", &["widgets"], &["UPDATE"]),
            json!({}),
        )],
    )
    .await;
    let patched = ctx
        .widgets()
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "green"}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.data["spec"]["color"], "green");
    assert_eq!(
        patched
            .metadata
            .annotations
            .unwrap()
            .get("mutated")
            .map(String::as_str),
        Some("yes")
    );
    let request = seen.lock().unwrap()[0]["request"].clone();
    assert_eq!(request["operation"], "UPDATE");
    assert_eq!(request["options"]["kind"], "UpdateOptions");
    assert_eq!(request["object"]["spec"]["color"], "green");
    assert_eq!(request["oldObject"]["spec"]["color"], "red");
    assert!(request.get("subResource").is_none());

    // Server-side apply goes through the same webhooks.
    let applied = ctx
        .widgets()
        .patch(
            "w",
            &PatchParams::apply("conformance").force(),
            &Patch::Apply(json!({
                "apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
                "metadata": {"name": "w"}, "spec": {"color": "black"},
            })),
        )
        .await
        .unwrap();
    assert_eq!(applied.data["spec"]["color"], "black");
    assert_eq!(seen.lock().unwrap().len(), 2);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subresources_are_admitted_with_their_name() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        if review["request"]["subResource"] == "scale" {
            webhook_server::deny(review, 403, "scaling is frozen")
        } else {
            webhook_server::allow(review)
        }
    })
    .await;
    ctx.widgets()
        .create(
            &PostParams::default(),
            &widget_json("s", json!({"color": "red", "replicas": 1})),
        )
        .await
        .unwrap();
    ctx.validating(
        "subresources",
        vec![ctx.hook(
            "sub.conformance.kubeforge.dev",
            server.client_config("/validate"),
            rules(
                "conformance.kubeforge.dev",
                &["widgets/status", "widgets/scale"],
                &["UPDATE"],
            ),
            json!({}),
        )],
    )
    .await;
    // The main resource is not covered by `widgets/status`.
    ctx.widgets()
        .patch(
            "s",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "blue"}})),
        )
        .await
        .unwrap();
    assert!(seen.lock().unwrap().is_empty());
    ctx.widgets()
        .patch_status(
            "s",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"ready": true, "replicas": 1}})),
        )
        .await
        .unwrap();
    {
        let seen = seen.lock().unwrap();
        let request = &seen[0]["request"];
        assert_eq!(request["subResource"], "status");
        assert_eq!(request["requestSubResource"], "status");
        assert_eq!(request["kind"]["kind"], "Widget");
        assert_eq!(request["object"]["status"]["ready"], true);
    }
    let err = api_error(
        ctx.widgets()
            .patch_scale(
                "s",
                &PatchParams::default(),
                &Patch::Merge(json!({"spec": {"replicas": 5}})),
            )
            .await,
    );
    assert_eq!(err.code, 403);
    assert_eq!(
        err.message,
        "admission webhook \"sub.conformance.kubeforge.dev\" denied the request: scaling is frozen"
    );
    let request = seen.lock().unwrap()[1]["request"].clone();
    assert_eq!(
        request["kind"],
        json!({"group": "autoscaling", "version": "v1", "kind": "Scale"})
    );
    assert_eq!(request["resource"]["resource"], "widgets");
    assert_eq!(request["object"]["spec"]["replicas"], 5);
    assert_eq!(request["oldObject"]["spec"]["replicas"], 1);
    let unchanged = ctx.widgets().get("s").await.unwrap();
    assert_eq!(unchanged.data["spec"]["replicas"], 1);
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reinvocation_if_needed() {
    let Some(ctx) = Ctx::new().await else { return };
    // "a" runs first (configurations in name order) and records its calls; "b" changes the
    // object after it, so with IfNeeded "a" is called once more.
    for (policy, expected_calls) in [("IfNeeded", 2), ("Never", 1)] {
        let (a, a_seen) = recording_server(&[], webhook_server::allow).await;
        let (b, _) = recording_server(&[], |review| {
            webhook_server::patch(
                review,
                json!([{"op": "add", "path": "/metadata/labels", "value": {"b": "done"}}]),
            )
        })
        .await;
        let name = format!("reinvoke-{}", policy.to_lowercase());
        ctx.mutating(
            &format!("{name}-a"),
            vec![ctx.hook(
                "a.conformance.kubeforge.dev",
                a.client_config("/a"),
                rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]),
                json!({"reinvocationPolicy": policy}),
            )],
        )
        .await;
        ctx.mutating(
            &format!("{name}-b"),
            vec![ctx.hook(
                "b.conformance.kubeforge.dev",
                b.client_config("/b"),
                rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]),
                json!({}),
            )],
        )
        .await;
        let created = ctx
            .widgets()
            .create(
                &PostParams::default(),
                &widget_json(&name, json!({"color": "red"})),
            )
            .await
            .unwrap();
        assert_eq!(created.metadata.labels.unwrap()["b"], "done");
        let calls = a_seen.lock().unwrap().clone();
        assert_eq!(calls.len(), expected_calls, "reinvocationPolicy {policy}");
        if expected_calls == 2 {
            // The second call sees the other webhook's change.
            assert_eq!(
                calls[1]["request"]["object"]["metadata"]["labels"]["b"],
                "done"
            );
        }
        // Remove this round's configurations before the next.
        for suffix in ["a", "b"] {
            Api::<MutatingWebhookConfiguration>::all(ctx.env.client())
                .delete(
                    &ctx.config_name(&format!("{name}-{suffix}")),
                    &DeleteParams::default(),
                )
                .await
                .unwrap();
        }
        ctx.settle().await;
    }
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_run_reaches_webhooks_without_side_effects() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        webhook_server::patch(
            review,
            json!([{"op": "add", "path": "/data", "value": {"k": "from-webhook"}}]),
        )
    })
    .await;
    ctx.mutating(
        "dry",
        vec![ctx.hook(
            "dry.conformance.kubeforge.dev",
            server.client_config("/m"),
            rules("", &["configmaps"], &["CREATE"]),
            json!({"sideEffects": "NoneOnDryRun"}),
        )],
    )
    .await;
    let cm: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "dry"}})).unwrap();
    let answered = ctx
        .configmaps()
        .create(
            &PostParams {
                dry_run: true,
                ..Default::default()
            },
            &cm,
        )
        .await
        .unwrap();
    assert_eq!(answered.data.unwrap()["k"], "from-webhook");
    let request = seen.lock().unwrap()[0]["request"].clone();
    assert_eq!(request["dryRun"], true);
    assert_eq!(request["options"]["dryRun"], json!(["All"]));
    assert_eq!(api_error(ctx.configmaps().get("dry").await).code, 404);

    // sideEffects other than None/NoneOnDryRun are refused by admissionregistration/v1.
    let bad: Result<ValidatingWebhookConfiguration, _> = Api::all(ctx.env.client())
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": ctx.config_name("side-effects")},
                "webhooks": [ctx.hook("se.conformance.kubeforge.dev", server.client_config("/v"),
                    rules("", &["configmaps"], &["CREATE"]), json!({"sideEffects": "Some"}))],
            }))
            .unwrap(),
        )
        .await;
    let err = api_error(bad);
    assert_eq!(err.code, 422);
    assert!(
        err.message.contains(
            "webhooks[0].sideEffects: Unsupported value: \"Some\": supported values: \"None\", \"NoneOnDryRun\""
        ),
        "{}",
        err.message
    );
    ctx.cleanup().await;
}

const GADGETS: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.conformance.kubeforge.dev
spec:
  group: conformance.kubeforge.dev
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn match_policy_equivalent_calls_in_the_rule_version() {
    let env = TestEnv::builder().crd_yaml(GADGETS).start().await.unwrap();
    let Some(ctx) = Ctx::with_env(env) else {
        return;
    };
    let (server, seen) = recording_server(&[], |review| {
        webhook_server::patch(
            review,
            json!([{"op": "add", "path": "/spec/seen", "value": true}]),
        )
    })
    .await;
    let v1_only = json!([{"apiGroups": ["conformance.kubeforge.dev"], "apiVersions": ["v1"],
        "resources": ["gadgets"], "operations": ["CREATE"]}]);
    ctx.mutating(
        "equivalent",
        vec![ctx.hook(
            "equivalent.conformance.kubeforge.dev",
            server.client_config("/m"),
            v1_only.clone(),
            json!({}),
        )],
    )
    .await;
    ctx.validating(
        "exact",
        vec![ctx.hook(
            "exact.conformance.kubeforge.dev",
            server.client_config("/v"),
            v1_only,
            json!({"matchPolicy": "Exact"}),
        )],
    )
    .await;
    let ar = ApiResource {
        group: "conformance.kubeforge.dev".into(),
        version: "v2".into(),
        api_version: "conformance.kubeforge.dev/v2".into(),
        kind: "Gadget".into(),
        plural: "gadgets".into(),
    };
    let gadgets: Api<DynamicObject> = Api::namespaced_with(ctx.env.client(), ctx.ns(), &ar);
    let created = gadgets
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"apiVersion": "conformance.kubeforge.dev/v2",
                "kind": "Gadget", "metadata": {"name": "g"}, "spec": {}}))
            .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(
        created.types.unwrap().api_version,
        "conformance.kubeforge.dev/v2"
    );
    assert_eq!(created.data["spec"]["seen"], true);
    let reviews = seen.lock().unwrap().clone();
    assert_eq!(reviews.len(), 1, "the Exact webhook is not called for v2");
    let request = &reviews[0]["request"];
    assert_eq!(request["kind"]["version"], "v1");
    assert_eq!(request["resource"]["version"], "v1");
    assert_eq!(request["requestKind"]["version"], "v2");
    assert_eq!(request["requestResource"]["version"], "v2");
    assert_eq!(
        request["object"]["apiVersion"],
        "conformance.kubeforge.dev/v1"
    );
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_names_are_final_for_validating_webhooks() {
    let Some(ctx) = Ctx::new().await else { return };
    let (mutator, mutate_seen) = recording_server(&[], webhook_server::allow).await;
    let (validator, validate_seen) = recording_server(&[], webhook_server::allow).await;
    let rule = || rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]);
    ctx.mutating(
        "generate-m",
        vec![ctx.hook(
            "gm.conformance.kubeforge.dev",
            mutator.client_config("/m"),
            rule(),
            json!({}),
        )],
    )
    .await;
    ctx.validating(
        "generate-v",
        vec![ctx.hook(
            "gv.conformance.kubeforge.dev",
            validator.client_config("/v"),
            rule(),
            json!({}),
        )],
    )
    .await;
    let widget: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "conformance.kubeforge.dev/v1", "kind": "Widget",
        "metadata": {"generateName": "gen-"}, "spec": {"color": "red"},
    }))
    .unwrap();
    let created = ctx
        .widgets()
        .create(&PostParams::default(), &widget)
        .await
        .unwrap();
    let name = created.metadata.name.unwrap();
    assert!(name.starts_with("gen-"), "{name}");
    // Mutating webhooks run before the name is generated (as on the real server)...
    let m = mutate_seen.lock().unwrap()[0]["request"].clone();
    assert!(m.get("name").is_none(), "{m}");
    assert!(m["object"]["metadata"].get("name").is_none());
    assert!(m["object"]["metadata"].get("uid").is_none());
    // ...validating webhooks see the name that is stored.
    let v = validate_seen.lock().unwrap()[0]["request"].clone();
    assert_eq!(v["name"], name.as_str());
    assert_eq!(v["object"]["metadata"]["name"], name.as_str());
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_responses_follow_the_failure_policy() {
    let Some(ctx) = Ctx::new().await else { return };
    // Answers with another uid than the request's.
    let (server, _) = recording_server(&[], |_| {
        json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "not-the-request", "allowed": true}})
    })
    .await;
    let rule = || rules("conformance.kubeforge.dev", &["widgets"], &["CREATE"]);
    ctx.validating(
        "bad-answer-ignore",
        vec![ctx.hook(
            "ignore.conformance.kubeforge.dev",
            server.client_config("/v"),
            rule(),
            json!({"failurePolicy": "Ignore"}),
        )],
    )
    .await;
    ctx.widgets()
        .create(
            &PostParams::default(),
            &widget_json("passes", json!({"color": "red"})),
        )
        .await
        .expect("Ignore lets the request through");
    ctx.validating(
        "bad-answer-fail",
        vec![ctx.hook(
            "fail.conformance.kubeforge.dev",
            server.client_config("/v"),
            rule(),
            json!({}),
        )],
    )
    .await;
    let err = api_error(
        ctx.widgets()
            .create(
                &PostParams::default(),
                &widget_json("refused", json!({"color": "red"})),
            )
            .await,
    );
    assert_eq!(err.code, 500);
    assert!(
        err.message.starts_with(
            "Internal error occurred: failed calling webhook \"fail.conformance.kubeforge.dev\": received invalid webhook response: expected response.uid="
        ),
        "{}",
        err.message
    );
    ctx.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_during_the_webhook_call_restarts_the_update() {
    let Some(ctx) = Ctx::new().await else { return };
    ctx.widgets()
        .create(
            &PostParams::default(),
            &widget_json("raced", json!({"color": "red"})),
        )
        .await
        .unwrap();
    // The first call writes the same object (a concurrent writer) before answering; the
    // request then meets a newer resourceVersion and, having no precondition, starts over.
    let widgets = ctx.widgets();
    let calls = Arc::new(Mutex::new(0usize));
    let counter = calls.clone();
    let server = WebhookServer::start(&[], move |_, review| {
        let widgets = widgets.clone();
        let counter = counter.clone();
        async move {
            let call = {
                let mut c = counter.lock().unwrap();
                *c += 1;
                *c
            };
            let concurrent = review["request"]["object"]["metadata"]["labels"]["writer"] == "concurrent";
            if call == 1 && !concurrent {
                widgets
                    .patch(
                        "raced",
                        &PatchParams::default(),
                        &Patch::Merge(json!({"metadata": {"labels": {"writer": "concurrent"}}})),
                    )
                    .await
                    .unwrap();
            }
            if concurrent && review["request"]["object"]["spec"]["color"] == "red" {
                // The concurrent writer's own request.
                return webhook_server::allow(&review);
            }
            webhook_server::patch(
                &review,
                json!([{"op": "add", "path": "/metadata/annotations", "value": {"webhook": "yes"}}]),
            )
        }
    })
    .await;
    ctx.mutating(
        "race",
        vec![ctx.hook(
            "race.conformance.kubeforge.dev",
            server.client_config("/m"),
            rules("conformance.kubeforge.dev", &["widgets"], &["UPDATE"]),
            json!({}),
        )],
    )
    .await;
    let updated = ctx
        .widgets()
        .patch(
            "raced",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"color": "green"}})),
        )
        .await
        .unwrap();
    assert_eq!(updated.data["spec"]["color"], "green");
    let labels = updated.metadata.labels.unwrap_or_default();
    assert_eq!(
        labels.get("writer").map(String::as_str),
        Some("concurrent"),
        "the concurrent write is kept"
    );
    let annotations = updated.metadata.annotations.unwrap_or_default();
    assert_eq!(annotations.get("webhook").map(String::as_str), Some("yes"));
    // First call, the concurrent writer's call, the restarted call.
    assert_eq!(*calls.lock().unwrap(), 3);
    ctx.cleanup().await;
}

/// The managedFields entries of `object` as (manager, operation) pairs.
fn managers(object: &DynamicObject) -> Vec<(String, String)> {
    object
        .metadata
        .managed_fields
        .iter()
        .flatten()
        .map(|e| {
            (
                e.manager.clone().unwrap_or_default(),
                e.operation.clone().unwrap_or_default(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_through_a_mutating_webhook_stays_its_managers_apply() {
    let Some(ctx) = Ctx::new().await else { return };
    let (server, seen) = recording_server(&[], |review| {
        webhook_server::patch(
            review,
            json!([{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}]),
        )
    })
    .await;
    ctx.mutating(
        "label-applied",
        vec![ctx.hook(
            "label.conformance.kubeforge.dev",
            server.client_config("/mutate"),
            rules(
                "conformance.kubeforge.dev",
                &["widgets"],
                &["CREATE", "UPDATE"],
            ),
            json!({}),
        )],
    )
    .await;
    let params = PatchParams::apply("applier");
    let config = |color: &str| widget_json("applied", json!({"color": color, "replicas": 1}));
    let created = ctx
        .widgets()
        .patch("applied", &params, &Patch::Apply(config("red")))
        .await
        .expect("an apply that creates");
    assert_eq!(created.metadata.labels.as_ref().unwrap()["mutated"], "yes");
    assert_eq!(
        managers(&created),
        vec![("applier".to_string(), "Apply".to_string())],
        "the create by apply is the applier's Apply, not an Update of the replayed write"
    );
    let updated = ctx
        .widgets()
        .patch("applied", &params, &Patch::Apply(config("blue")))
        .await
        .expect("an apply that updates");
    assert_eq!(updated.data["spec"]["color"], "blue");
    assert_eq!(
        managers(&updated),
        vec![("applier".to_string(), "Apply".to_string())]
    );
    let fields = &updated.metadata.managed_fields.as_ref().unwrap()[0];
    let owned = serde_json::to_value(fields.fields_v1.as_ref().unwrap()).unwrap();
    assert!(owned["f:spec"].get("f:color").is_some(), "{owned}");
    // A second manager's conflicting apply is refused as without webhooks.
    let conflict = api_error(
        ctx.widgets()
            .patch(
                "applied",
                &PatchParams::apply("other"),
                &Patch::Apply(config("green")),
            )
            .await,
    );
    assert_eq!(conflict.code, 409, "a conflict with the applier");
    assert!(seen.lock().unwrap().len() >= 2, "the webhook was called");
    ctx.cleanup().await;
}
