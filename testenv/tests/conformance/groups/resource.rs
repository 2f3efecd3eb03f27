//! `resource.k8s.io/v1` (dynamic resource allocation, served by default in v1.34): a
//! DeviceClass and a ResourceClaim's defaults, its request checks and its fixed spec, and
//! the CEL device selectors compiled on write; admin access to devices, on create and in a
//! new allocation.

use serde_json::json;

use crate::common::env;
use crate::support::raw::send;

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
