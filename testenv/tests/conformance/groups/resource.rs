//! `resource.k8s.io/v1` (dynamic resource allocation, served by default in v1.34): a
//! DeviceClass and a ResourceClaim's defaults, its request checks and its fixed spec, and
//! the CEL device selectors compiled on write; admin access to devices, on create and in a
//! new allocation.

use serde_json::json;

use crate::common::env;
use crate::support::raw::{causes, send};

const JSON: &str = "application/json";

#[tokio::test]
async fn device_classes_and_resource_claims() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let class_name = format!("gpu-{ns}.example.com");
    let selector = json!([{"cel": {"expression": "device.driver == \"gpu.example.com\""}}]);
    let class = json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": {"name": class_name}, "spec": {"selectors": selector}});
    let classes = "/apis/resource.k8s.io/v1/deviceclasses";
    let (code, created) = send(&client, "POST", classes, JSON, Some(class)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"], json!({"selectors": selector}));
    assert_eq!(created["metadata"]["generation"], 1);

    let claims = format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims");
    let claim = |name: &str, requests: serde_json::Value| {
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name}, "spec": {"devices": {"requests": requests}}})
    };
    let requests = json!([
        {"name": "one", "exactly": {"deviceClassName": class_name}},
        {"name": "any", "firstAvailable": [
            {"name": "a", "deviceClassName": class_name},
            {"name": "b", "deviceClassName": class_name, "allocationMode": "All"}]}
    ]);
    let (code, created) = send(
        &client,
        "POST",
        &claims,
        JSON,
        Some(claim("gpus", requests)),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(
        created["spec"]["devices"]["requests"],
        json!([
            {"name": "one", "exactly": {"deviceClassName": class_name,
                "allocationMode": "ExactCount", "count": 1}},
            {"name": "any", "firstAvailable": [
                {"name": "a", "deviceClassName": class_name, "allocationMode": "ExactCount", "count": 1},
                {"name": "b", "deviceClassName": class_name, "allocationMode": "All"}]}
        ])
    );
    assert_eq!(created["status"], json!({}));

    let (code, body) = send(
        &client,
        "POST",
        &claims,
        JSON,
        Some(claim("vague", json!([{"name": "gpu"}]))),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "ResourceClaim.resource.k8s.io \"vague\" is invalid: spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"
    );

    // The spec is fixed once created (the real server prints the whole Go struct).
    let patch = json!({"spec": {"devices": {"requests": [
        {"name": "two", "exactly": {"deviceClassName": class_name}}]}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("{claims}/gpus"),
        "application/merge-patch+json",
        Some(patch),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let causes = body["details"]["causes"].as_array().unwrap();
    assert_eq!(causes.len(), 1, "{body}");
    assert_eq!(
        (&causes[0]["field"], &causes[0]["reason"]),
        (&json!("spec"), &json!("FieldValueInvalid"))
    );
    assert_eq!(
        causes[0]["message"],
        format!(
            "Invalid value: {{\"Devices\":{{\"Requests\":[{{\"Name\":\"two\",\"Exactly\":{{\"DeviceClassName\":\"{class_name}\",\"Selectors\":null,\"AllocationMode\":\"ExactCount\",\"Count\":1,\"AdminAccess\":null,\"Tolerations\":null,\"Capacity\":null}},\"FirstAvailable\":null}}],\"Constraints\":null,\"Config\":null}}}}: field is immutable"
        ),
        "{body}"
    );
    let (code, _) = send(
        &client,
        "DELETE",
        &format!("{classes}/{class_name}"),
        "",
        None,
    )
    .await;
    assert_eq!(code, 200);
}

#[tokio::test]
async fn device_selectors_are_compiled_on_write() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let class = |expressions: &[&str]| {
        let selectors: Vec<serde_json::Value> = expressions
            .iter()
            .map(|e| json!({"cel": {"expression": e}}))
            .collect();
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": format!("selected-{ns}.example.com")},
            "spec": {"selectors": selectors}})
    };
    let classes = "/apis/resource.k8s.io/v1/deviceclasses?dryRun=All";
    let good = class(&[
        "device.driver == \"gpu.example.com\"",
        "device.attributes[\"gpu.example.com\"].model == \"a100\"",
        "device.capacity[\"gpu.example.com\"].memory.compareTo(quantity(\"40Gi\")) >= 0",
    ]);
    let (code, body) = send(&client, "POST", classes, JSON, Some(good)).await;
    assert_eq!(code, 201, "{body}");
    let bad = class(&["device.driver", "device.driver + 1", "device.driver =="]);
    let (code, body) = send(&client, "POST", classes, JSON, Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    let messages: Vec<&str> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 3, "{body}");
    assert_eq!(
        messages[0],
        "Invalid value: \"device.driver\": must evaluate to bool or the unknown type, not string"
    );
    assert_eq!(
        messages[1],
        "Invalid value: \"device.driver + 1\": compilation failed: ERROR: <input>:1:15: found no matching overload for '_+_' applied to '(string, int)'\n | device.driver + 1\n | ..............^"
    );
    assert!(
        messages[2].starts_with(
            "Invalid value: \"device.driver ==\": compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input '<EOF>'"
        ),
        "{body}"
    );

    let claim = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "selected"}, "spec": {"devices": {"requests": [
            {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "c",
                "selectors": [{"cel": {"expression": "undeclared.x"}}]}]}]}}});
    let claims = format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims?dryRun=All");
    let (code, body) = send(&client, "POST", &claims, JSON, Some(claim)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["field"],
        "spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression"
    );
    assert_eq!(
        body["details"]["causes"][0]["message"],
        "Invalid value: \"undeclared.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'undeclared' (in container '')\n | undeclared.x\n | ^"
    );
}

#[tokio::test]
async fn admin_access_needs_a_namespace_labelled_for_it() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let claims = format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims");
    let claim = |name: &str| {
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": {"requests": [{"name": "r",
                "exactly": {"deviceClassName": "gpu", "adminAccess": true}}]}}})
    };
    let (code, body) = send(&client, "POST", &claims, JSON, Some(claim("early"))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["message"],
        "ResourceClaim.resource.k8s.io \"early\" is invalid: spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace"
    );
    let label = json!({"metadata": {"labels": {"resource.kubernetes.io/admin-access": "true"}}});
    let (code, body) = send(
        &client,
        "PATCH",
        &format!("/api/v1/namespaces/{ns}"),
        "application/merge-patch+json",
        Some(label),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = send(&client, "POST", &claims, JSON, Some(claim("late"))).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["devices"]["requests"][0]["exactly"]["adminAccess"],
        true
    );
}

#[tokio::test]
async fn admin_access_leads_the_errors_and_is_checked_in_a_new_allocation() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let claims = format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims");
    let forbidden = "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label on the containing namespace";
    // One 422 with every error, the admin access first.
    let bad = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "bad", "labels": {"bad key!": "v"}},
        "spec": {"devices": {"requests": [{"name": "r",
            "exactly": {"deviceClassName": "gpu", "adminAccess": true}},
            {"name": "B!", "exactly": {"deviceClassName": "gpu"}}]}}});
    let (code, body) = send(&client, "POST", &claims, JSON, Some(bad)).await;
    assert_eq!(code, 422, "{body}");
    let fields: Vec<&str> = body["details"]["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "spec.devices.requests[0].adminAccess",
            "metadata.labels",
            "spec.devices.requests[1].name"
        ],
        "{body}"
    );
    let plain = json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "plain"},
        "spec": {"devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "gpu"}},
            {"name": "b", "exactly": {"deviceClassName": "gpu"}}]}}});
    let (code, body) = send(&client, "POST", &claims, JSON, Some(plain)).await;
    assert_eq!(code, 201, "{body}");
    let status = format!("{claims}/plain/status");
    let merge = "application/merge-patch+json";
    let result = |request: &str, device: &str, admin: bool| {
        json!({"request": request, "driver": "d.example.com", "pool": "p", "device": device,
            "adminAccess": admin})
    };
    let allocate = |results: Vec<serde_json::Value>| json!({"status": {"allocation": {"devices": {"results": results}}}});
    // The first result granting admin access is named, before the allocation's own errors.
    let (code, body) = send(
        &client,
        "PATCH",
        &status,
        merge,
        Some(allocate(vec![
            result("nope", "d", false),
            result("b", "e", true),
            result("b", "f", true),
        ])),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["field"],
        "status.allocation.devices.results[1].adminAccess"
    );
    assert_eq!(body["details"]["causes"][0]["message"], forbidden);
    assert_eq!(
        body["details"]["causes"][1]["field"],
        "status.allocation.devices.results[0].request"
    );
    // Labelled, the allocation is taken; once granted it is not checked again.
    let label = |value: serde_json::Value| json!({"metadata": {"labels": {"resource.kubernetes.io/admin-access": value}}});
    let namespace = format!("/api/v1/namespaces/{ns}");
    let (code, body) = send(
        &client,
        "PATCH",
        &namespace,
        merge,
        Some(label(json!("true"))),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let granted = allocate(vec![result("a", "d", false), result("b", "e", true)]);
    let (code, body) = send(&client, "PATCH", &status, merge, Some(granted)).await;
    assert_eq!(code, 200, "{body}");
    let (code, body) = send(
        &client,
        "PATCH",
        &namespace,
        merge,
        Some(label(json!(null))),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    let consumer =
        json!({"status": {"reservedFor": [{"resource": "pods", "name": "p", "uid": "u1"}]}});
    let (code, body) = send(&client, "PATCH", &status, merge, Some(consumer)).await;
    assert_eq!(code, 200, "{body}");
    // Deallocated, a new allocation granting it is checked again.
    let free = json!({"status": {"reservedFor": null, "allocation": null}});
    let (code, body) = send(&client, "PATCH", &status, merge, Some(free)).await;
    assert_eq!(code, 200, "{body}");
    let again = allocate(vec![result("a", "d", true)]);
    let (code, body) = send(&client, "PATCH", &status, merge, Some(again)).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        body["details"]["causes"][0]["field"],
        "status.allocation.devices.results[0].adminAccess"
    );
}

#[tokio::test]
async fn resource_slices_are_validated() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let slices = "/apis/resource.k8s.io/v1/resourceslices?dryRun=All";
    let slice = |spec: serde_json::Value| {
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": format!("checked-{ns}")}, "spec": spec})
    };
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let one_of = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required";

    let (code, body) = send(&client, "POST", slices, JSON, Some(slice(json!({})))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec![
            "spec.driver: Required value".to_string(),
            format!("spec.driver: Invalid value: \"\": {subdomain}"),
            "spec.pool.name: Required value".into(),
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero".into(),
            format!("spec: Required value: {one_of}"),
        ]
    );

    // perDeviceNodeSelection belongs to a feature off in v1.34: it is dropped, not counted.
    let pool = json!({"name": "a/B", "generation": -1, "resourceSliceCount": 1});
    let spec = json!({"driver": "gpu.example.com", "pool": pool, "nodeName": "n1",
        "allNodes": true, "perDeviceNodeSelection": true,
        "nodeSelector": {"nodeSelectorTerms": [{}, {}]}});
    let (code, body) = send(&client, "POST", slices, JSON, Some(slice(spec))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec![
            format!("spec.pool.name: Invalid value: \"B\": {subdomain}"),
            "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero".into(),
            "spec.nodeSelector.nodeSelectorTerms: Invalid value: [{\"MatchExpressions\":null,\"MatchFields\":null},{\"MatchExpressions\":null,\"MatchFields\":null}]: must have exactly one node selector term".into(),
            format!("spec: Invalid value: \"{{`nodeName`, `nodeSelector`, `allNodes`}}\": {one_of}, but multiple fields are set"),
        ]
    );

    // Devices: DNS labels, unique; attribute names C identifiers after an optional domain;
    // exactly one value each.
    let spec = json!({"driver": "gpu.example.com",
    "pool": {"name": "p", "resourceSliceCount": 1}, "allNodes": true,
    "devices": [
        {"name": "Bad_Name"},
        {"name": "gpu", "attributes": {"gpu.example.com/1st": {"int": 1}}},
        {"name": "gpu", "attributes": {"model": {"string": "a", "version": "1.0"}}},
    ]});
    let (code, body) = send(&client, "POST", slices, JSON, Some(slice(spec))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec![
            "spec.devices[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string(),
            "spec.devices[1].attributes[gpu.example.com/1st]: Invalid value: \"1st\": a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')".into(),
            "spec.devices[2].attributes[model].version: Invalid value: \"1.0\": must be a string compatible with semver.org spec 2.0.0".into(),
            "spec.devices[2].attributes[model]: Invalid value: {\"IntValue\":null,\"BoolValue\":null,\"StringValue\":\"a\",\"VersionValue\":\"1.0\"}: exactly one value must be specified".into(),
            "spec.devices[2].name: Duplicate value: \"gpu\"".into(),
        ]
    );

    // At most 128 devices, 32 attributes and capacities per device.
    let many: Vec<serde_json::Value> = (0..129).map(|i| json!({"name": format!("d{i}")})).collect();
    let spec = json!({"driver": "gpu.example.com",
        "pool": {"name": "p", "resourceSliceCount": 1}, "allNodes": true, "devices": many});
    let (code, body) = send(&client, "POST", slices, JSON, Some(slice(spec))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec!["spec.devices: Too many: 129: must have at most 128 items".to_string()]
    );
    let attributes: serde_json::Map<String, serde_json::Value> = (0..33)
        .map(|i| (format!("a{i}"), json!({"int": i})))
        .collect();
    let spec = json!({"driver": "gpu.example.com",
        "pool": {"name": "p", "resourceSliceCount": 1}, "allNodes": true,
        "devices": [{"name": "d", "attributes": attributes}]});
    let (code, body) = send(&client, "POST", slices, JSON, Some(slice(spec))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec!["spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32".to_string()]
    );
}

#[tokio::test]
async fn resource_slices_keep_driver_pool_and_node_and_are_selected_by_them() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let driver = format!("{ns}.example.com");
    let slices = "/apis/resource.k8s.io/v1/resourceslices";
    let slice = |name: &str, spec: serde_json::Value| {
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": format!("{name}-{ns}")}, "spec": spec})
    };
    let on_node = json!({"driver": driver, "pool": {"name": "a", "resourceSliceCount": 1},
        "nodeName": format!("node-{ns}"),
        "devices": [{"name": "gpu", "taints": [{"key": "k", "effect": "NoSchedule"}]}]});
    let (code, created) = send(
        &client,
        "POST",
        slices,
        JSON,
        Some(slice("on-node", on_node)),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    // Device taints belong to a feature off in v1.34: dropped.
    assert_eq!(created["spec"]["devices"], json!([{"name": "gpu"}]));
    assert_eq!(created["metadata"]["generation"], 1);
    let everywhere = json!({"driver": driver, "pool": {"name": "b", "resourceSliceCount": 1},
        "allNodes": true});
    let (code, created) = send(
        &client,
        "POST",
        slices,
        JSON,
        Some(slice("everywhere", everywhere)),
    )
    .await;
    assert_eq!(code, 201, "{created}");

    let names = |body: &serde_json::Value| -> Vec<String> {
        body["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|i| i["metadata"]["name"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let by_driver = format!("{slices}?fieldSelector=spec.driver%3D{driver}");
    let (code, body) = send(&client, "GET", &by_driver, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        names(&body),
        vec![format!("everywhere-{ns}"), format!("on-node-{ns}")]
    );
    let by_node = format!("{slices}?fieldSelector=spec.nodeName%3Dnode-{ns}");
    let (code, body) = send(&client, "GET", &by_node, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(names(&body), vec![format!("on-node-{ns}")]);
    let unset_node = format!("{slices}?fieldSelector=spec.nodeName%3D,spec.driver%3D{driver}");
    let (code, body) = send(&client, "GET", &unset_node, "", None).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(names(&body), vec![format!("everywhere-{ns}")]);

    // The driver, the pool's name and the node name are immutable.
    let moved = json!({"driver": "other.example.com", "pool": {"name": "c", "resourceSliceCount": 1},
        "nodeName": "elsewhere", "devices": [{"name": "gpu"}]});
    let path = format!("{slices}/on-node-{ns}");
    let (code, body) = send(&client, "PUT", &path, JSON, Some(slice("on-node", moved))).await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec![
            "spec.pool.name: Invalid value: \"c\": field is immutable".to_string(),
            "spec.driver: Invalid value: \"other.example.com\": field is immutable".into(),
            "spec.nodeName: Invalid value: \"elsewhere\": field is immutable".into(),
        ]
    );
    // They are checked after the driver and the pool, before the node selection.
    let unplaced =
        json!({"driver": "Other_Driver", "pool": {"name": "a", "resourceSliceCount": 0}});
    let (code, body) = send(
        &client,
        "PUT",
        &path,
        JSON,
        Some(slice("on-node", unplaced)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(
        causes(&body),
        vec![
            "spec.driver: Invalid value: \"Other_Driver\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string(),
            "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero".into(),
            "spec.driver: Invalid value: \"Other_Driver\": field is immutable".into(),
            "spec.nodeName: Invalid value: null: field is immutable".into(),
            "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required".into(),
        ]
    );
    // Adding a dropped field still changes the spec the generation is counted by.
    let tainted = json!({"driver": driver, "pool": {"name": "a", "resourceSliceCount": 1},
        "nodeName": format!("node-{ns}"),
        "devices": [{"name": "gpu", "taints": [{"key": "k", "effect": "NoSchedule"}]}]});
    let (code, body) = send(&client, "PUT", &path, JSON, Some(slice("on-node", tainted))).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["spec"]["devices"], json!([{"name": "gpu"}]));
    assert_eq!(body["metadata"]["generation"], 2);

    for name in ["on-node", "everywhere"] {
        let (code, body) = send(
            &client,
            "DELETE",
            &format!("{slices}/{name}-{ns}"),
            "",
            None,
        )
        .await;
        assert_eq!(code, 200, "{body}");
    }
}

#[tokio::test]
async fn device_class_configurations_need_an_opaque_driver_and_parameters() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let body = json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "dc-config-checks"},
        "spec": {"selectors": [{}], "config": [{"opaque": {"driver": "Bad_Driver", "parameters": {}}}, {},
            {"opaque": {"driver": "A", "parameters": [1]}}, {"opaque": {"driver": "a.b"}}]}});
    let (code, answer) = send(
        &client,
        "POST",
        "/apis/resource.k8s.io/v1/deviceclasses?dryRun=All",
        JSON,
        Some(body),
    )
    .await;
    assert_eq!(code, 422, "{answer}");
    let fields: Vec<String> = answer["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{}: {}",
                c["field"].as_str().unwrap_or(""),
                c["reason"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        fields,
        [
            "spec.selectors[0].cel: FieldValueRequired",
            "spec.config[0].opaque.driver: FieldValueInvalid",
            "spec.config[1].opaque: FieldValueRequired",
            "spec.config[2].opaque.parameters: FieldValueInvalid",
            "spec.config[3].opaque.parameters: FieldValueRequired",
        ]
    );
    assert!(answer["message"].as_str().unwrap_or("").contains(
        "spec.config[2].opaque.parameters: Invalid value: \"<value omitted>\": must be a valid JSON object"
    ), "{answer}");
}

/// A DeviceClass's `extendedResourceName` belongs to a feature off in v1.34: it is dropped.
#[tokio::test]
async fn device_classes_lose_the_extended_resource_name() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let class = json!({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": {"name": "extended"}, "spec": {"extendedResourceName": "example.com/gpu"}});
    let (code, body) = send(
        &client,
        "POST",
        "/apis/resource.k8s.io/v1/deviceclasses?dryRun=All",
        "application/json",
        Some(class),
    )
    .await;
    assert_eq!(code, 201, "{body}");
    assert!(body["spec"]["extendedResourceName"].is_null(), "{body}");
}

#[tokio::test]
async fn a_claims_constraints_and_configurations_name_its_requests() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let claims = format!(
        "/apis/resource.k8s.io/v1/namespaces/{}/resourceclaims",
        env.namespace()
    );
    let claim = |exactly: serde_json::Value, constraint: serde_json::Value| {
        json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "named"}, "spec": {"devices": {
                "requests": [{"name": "gpu", "exactly": exactly}],
                "constraints": [constraint],
                "config": [{"requests": ["cpu"], "opaque": {"driver": "", "parameters": {}}}]}}})
    };
    let exactly = json!({"deviceClassName": "dc", "allocationMode": "ExactCount", "count": -1});
    let constraint = json!({"requests": ["gpu"], "matchAttribute": "numa"});
    let dry = format!("{claims}?dryRun=All");
    let (code, body) = send(
        &client,
        "POST",
        &dry,
        JSON,
        Some(claim(exactly, constraint)),
    )
    .await;
    assert_eq!(code, 422, "{body}");
    let not_a_request = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'";
    assert_eq!(
        causes(&body)[..4],
        [
            "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"
                .to_string(),
            "spec.devices.constraints[0].matchAttribute: Invalid value: \"numa\": must include a domain"
                .to_string(),
            format!("spec.devices.config[0].requests[0]: Invalid value: \"cpu\": {not_a_request}"),
            "spec.devices.config[0].opaque.driver: Required value".to_string(),
        ]
    );
    // A zero count is defaulted to one; the spec may not change after.
    let valid = |count: i64| {
        claim(
            json!({"deviceClassName": "dc", "count": count}),
            json!({"requests": ["gpu"], "matchAttribute": "gpu.example.com/numa"}),
        )
    };
    let mut stored = valid(0);
    stored["spec"]["devices"]["config"] = json!([]);
    let (code, body) = send(&client, "POST", &claims, JSON, Some(stored.clone())).await;
    assert_eq!(code, 201, "{body}");
    assert_eq!(
        body["spec"]["devices"]["requests"][0]["exactly"]["count"],
        1
    );
    stored["spec"]["devices"]["requests"][0]["exactly"]["count"] = json!(-1);
    let path = format!("{claims}/named");
    let (code, body) = send(&client, "PUT", &path, JSON, Some(stored)).await;
    assert_eq!(code, 422, "{body}");
    let listed = causes(&body);
    let count =
        "spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero";
    // The spec may not change, then it is checked again.
    assert_eq!((listed[0].as_str(), listed[2].as_str()), (count, count));
    assert!(
        listed[1].starts_with("spec: Invalid value: {"),
        "{listed:?}"
    );
    send(&client, "DELETE", &path, "", None).await;
}

/// A claim's allocation may not change, compared as the bytes kept of its opaque parameters:
/// the same value in another spelling is a change, printed with the bytes sent.
#[tokio::test]
async fn a_claims_allocation_is_compared_as_the_bytes_kept() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace();
    let claims = format!("/apis/resource.k8s.io/v1/namespaces/{ns}/resourceclaims");
    let spec = r#"{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c"}}]}}"#;
    let claim = |status: &str| {
        format!(
            r#"{{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{{"name":"bytes"}},"spec":{spec}{status}}}"#
        )
    };
    let headers = [("Content-Type", JSON)];
    let exchange = |method: &'static str, path: String, body: String| {
        let client = client.clone();
        async move {
            let (code, _, bytes) =
                crate::support::raw::exchange_text(&client, method, &path, &headers, &body).await;
            (code, String::from_utf8_lossy(&bytes).into_owned())
        }
    };
    let (code, created) = exchange("POST", claims.clone(), claim("")).await;
    assert_eq!(code, 201, "{created}");
    let allocated = |parameters: &str| {
        claim(&format!(
            r#","status":{{"allocation":{{"devices":{{"results":[{{"request":"r","driver":"d.example.com","pool":"p","device":"d"}}],"config":[{{"source":"FromClaim","requests":["r"],"opaque":{{"driver":"d.example.com","parameters":{parameters}}}}}]}}}}}}"#
        ))
    };
    let status = format!("{claims}/bytes/status");
    let spaced = r#"{ "b": 1.0, "a": 2 }"#;
    let (code, answer) = exchange("PUT", status.clone(), allocated(spaced)).await;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = exchange("PUT", status.clone(), allocated(spaced)).await;
    assert_eq!(code, 200, "{answer}");
    let (code, answer) = exchange("PUT", status.clone(), allocated(r#"{"b":1.0,"a":2}"#)).await;
    assert_eq!(code, 422, "{answer}");
    let answer: serde_json::Value = serde_json::from_str(&answer).unwrap_or_default();
    assert_eq!(
        answer["message"],
        r#"ResourceClaim.resource.k8s.io "bytes" is invalid: status.allocation: Invalid value: {"Devices":{"Results":[{"Request":"r","Driver":"d.example.com","Pool":"p","Device":"d","AdminAccess":null,"Tolerations":null,"BindingConditions":null,"BindingFailureConditions":null,"ShareID":null,"ConsumedCapacity":null}],"Config":[{"Source":"FromClaim","Requests":["r"],"Opaque":{"Driver":"d.example.com","Parameters":{"b":1.0,"a":2}}}]},"NodeSelector":null,"AllocationTimestamp":null}: field is immutable"#
    );
    exchange("DELETE", format!("{claims}/bytes"), String::new()).await;
}
