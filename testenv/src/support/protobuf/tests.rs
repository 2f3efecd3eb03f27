//! The decoder on hand-built bodies.

use serde_json::json;

use super::*;

/// A length-delimited field.
pub(super) fn field(n: u64, payload: &[u8]) -> Vec<u8> {
    let mut v = key(n, 2);
    v.extend(varint(payload.len() as u64));
    v.extend_from_slice(payload);
    v
}

/// A varint field.
pub(super) fn int(n: u64, value: u64) -> Vec<u8> {
    [key(n, 0), varint(value)].concat()
}

pub(super) fn key(n: u64, wire: u64) -> Vec<u8> {
    varint((n << 3) | wire)
}

pub(super) fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// The `k8s\0` envelope around an object of `api_version` and `kind`.
pub(super) fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let type_meta = [field(1, api_version.as_bytes()), field(2, kind.as_bytes())].concat();
    [b"k8s\0".to_vec(), field(1, &type_meta), field(2, raw)].concat()
}

/// What Go writes for an ObjectMeta with only a name: every non-pointer field, empty.
pub(super) fn meta(name: &str) -> Vec<u8> {
    [
        field(1, name.as_bytes()),
        field(2, b""),
        field(3, b""),
        int(7, 0),
        field(8, b""),
    ]
    .concat()
}

#[test]
fn decodes_a_config_map() {
    let entry = [field(1, b"a"), field(2, b"1")].concat();
    // immutable (4) is a pointer: unset, Go does not write it.
    let raw = [field(1, &meta("settings")), field(2, &entry)].concat();
    let v = decode(&envelope("v1", "ConfigMap", &raw)).unwrap();
    assert_eq!(
        v,
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
    );
    assert_eq!(decode(b"{}"), Err(DecodeError::MissingEnvelope));
}

#[test]
fn decodes_nested_messages_lists_and_pointer_zeros() {
    let port = [field(1, b"http"), int(3, 8080), field(4, b"TCP")].concat();
    let container = [
        field(1, b"web"),
        field(2, b"nginx:1.27"),
        field(3, b"sleep"),
        field(3, b"10"),
        field(6, &port),
        field(8, b""),
        int(16, 0),
    ]
    .concat();
    let pod_spec = [field(2, &container), field(3, b"Always")].concat();
    let template = [field(1, &meta("")), field(2, &pod_spec)].concat();
    let labels = [field(1, b"app"), field(2, b"web")].concat();
    let selector = field(1, &labels);
    let spec = [
        int(1, 0), // replicas is a pointer: an explicit 0 is kept
        field(2, &selector),
        field(3, &template),
        field(4, &field(1, b"")), // an empty strategy is dropped
        int(5, 0),
    ]
    .concat();
    // Go writes the unset status too: its non-pointer fields, zeros.
    let status = [int(1, 0), int(2, 0), int(3, 0), int(4, 0)].concat();
    let raw = [field(1, &meta("web")), field(2, &spec), field(3, &status)].concat();
    let v = decode(&envelope("apps/v1", "Deployment", &raw)).unwrap();
    assert_eq!(
        v,
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {
                "replicas": 0,
                "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {
                    "containers": [{
                        "name": "web",
                        "image": "nginx:1.27",
                        "command": ["sleep", "10"],
                        "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"}],
                    }],
                    "restartPolicy": "Always",
                }},
            },
        }),
        "an unset status is dropped, the spec kept"
    );
}

#[test]
fn decodes_quantity_maps_and_times() {
    let quantity = |k: &str, q: &str| {
        field(
            1,
            &[field(1, k.as_bytes()), field(2, &field(1, q.as_bytes()))].concat(),
        )
    };
    let spec = [
        quantity("cpu", "1"),
        quantity("memory", "1Gi"),
        field(2, b"BestEffort"),
    ]
    .concat();
    let raw = [field(1, &meta("q")), field(2, &spec)].concat();
    let v = decode(&envelope("v1", "ResourceQuota", &raw)).unwrap();
    assert_eq!(
        v["spec"],
        json!({"hard": {"cpu": "1", "memory": "1Gi"}, "scopes": ["BestEffort"]})
    );

    // A pointer time is written as seconds (nanoseconds dropped, as metav1.Time does).
    let time = [int(1, 1_700_000_000), int(2, 5)].concat();
    let raw = [field(1, &[meta("pod"), field(9, &time)].concat())].concat();
    let v = decode(&envelope("v1", "Pod", &raw)).unwrap();
    assert_eq!(v["metadata"]["deletionTimestamp"], "2023-11-14T22:13:20Z");
}

#[test]
fn decodes_int_or_string_both_ways() {
    let pdb = |bound: u64, value: Vec<u8>| {
        let spec = [field(bound, &value)].concat();
        let raw = [field(1, &meta("pdb")), field(2, &spec)].concat();
        decode(&envelope("policy/v1", "PodDisruptionBudget", &raw)).unwrap()["spec"].clone()
    };
    // minAvailable (1) as a string, maxUnavailable (3) as a number; both pointers.
    assert_eq!(
        pdb(1, [int(1, 1), int(2, 0), field(3, b"50%")].concat()),
        json!({"minAvailable": "50%"})
    );
    assert_eq!(
        pdb(3, [int(1, 0), int(2, 1), field(3, b"")].concat()),
        json!({"maxUnavailable": 1})
    );
    assert_eq!(
        pdb(3, int(1, 0)),
        json!({"maxUnavailable": 0}),
        "an explicit 0 is kept"
    );
    // A non-pointer IntOrString at zero (a ServicePort without targetPort) is unset.
    let port = [int(3, 80), field(4, &int(1, 0))].concat();
    let raw = [field(1, &meta("svc")), field(2, &field(1, &port))].concat();
    let v = decode(&envelope("v1", "Service", &raw)).unwrap();
    assert_eq!(v["spec"], json!({"ports": [{"port": 80}]}));
    let port = [
        int(3, 80),
        field(4, &[int(1, 1), field(3, b"http")].concat()),
    ]
    .concat();
    let raw = [field(1, &meta("svc")), field(2, &field(1, &port))].concat();
    let v = decode(&envelope("v1", "Service", &raw)).unwrap();
    assert_eq!(
        v["spec"],
        json!({"ports": [{"port": 80, "targetPort": "http"}]})
    );
}

#[test]
fn decodes_inlined_structs_and_negative_and_packed_ints() {
    // IngressRule embeds IngressRuleValue (field 2): its `http` lands in the rule itself.
    let backend = field(4, &[field(1, b"svc"), field(2, &int(2, 80))].concat());
    let path = [field(1, b"/x"), field(2, &backend), field(3, b"Prefix")].concat();
    let rule = [field(1, b"foo.com"), field(2, &field(1, &field(1, &path)))].concat();
    let raw = [field(1, &meta("ing")), field(2, &field(3, &rule))].concat();
    let v = decode(&envelope("networking.k8s.io/v1", "Ingress", &raw)).unwrap();
    assert_eq!(
        v["spec"]["rules"],
        json!([{"host": "foo.com", "http": {"paths": [{
            "path": "/x",
            "pathType": "Prefix",
            "backend": {"service": {"name": "svc", "port": {"number": 80}}},
        }]}}])
    );
    // A negative int32 is sign-extended to ten bytes; supplementalGroups may come packed or not.
    let security = [
        int(2, (-5i64) as u64),
        int(4, 1),
        field(4, &[varint(2), varint(300)].concat()),
    ]
    .concat();
    let spec = field(14, &security);
    let raw = [field(1, &meta("p")), field(2, &spec)].concat();
    let v = decode(&envelope("v1", "Pod", &raw)).unwrap();
    assert_eq!(
        v["spec"]["securityContext"],
        json!({"runAsUser": -5, "supplementalGroups": [1, 2, 300]})
    );
}

#[test]
fn skips_unknown_fields_as_go_does() {
    // A field ConfigMap does not have, of every wire type: a string, a varint, fixed 64 and
    // 32 bits and a group (start 3, a varint inside, end 4), then data (2).
    let entry = [field(1, b"a"), field(2, b"1"), field(3, b"extra")].concat();
    let raw = [
        field(1, &[field(1, b"settings"), field(50, b"q")].concat()),
        field(99, b"xyz"),
        int(98, 5),
        key(97, 1),
        b"12345678".to_vec(),
        key(96, 5),
        b"1234".to_vec(),
        key(95, 3),
        int(1, 3),
        key(95, 4),
        field(2, &entry),
    ]
    .concat();
    assert_eq!(
        decode(&envelope("v1", "ConfigMap", &raw)).unwrap(),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"a": "1"}})
    );
    // A field k8s.io/api does not have deep in a pod (Container field 99).
    let container = [field(1, b"c"), field(99, b"")].concat();
    let raw = [field(1, &meta("p")), field(2, &field(2, &container))].concat();
    let v = decode(&envelope("v1", "Pod", &raw)).unwrap();
    assert_eq!(v["spec"]["containers"], json!([{"name": "c"}]));
    // Invalid UTF-8 is kept as Go keeps it, written as U+FFFD.
    let raw = field(2, &[field(1, b"a"), field(2, b"\xff")].concat());
    let v = decode(&envelope("v1", "ConfigMap", &raw)).unwrap();
    assert_eq!(v["data"]["a"], "\u{fffd}");
}

#[test]
fn refuses_what_go_refuses_with_its_message() {
    let refused = |api_version: &str, kind: &str, raw: &[u8]| {
        let e = decode(&envelope(api_version, kind, raw)).unwrap_err();
        assert!(e.is_bad_request(), "{e:?}");
        e.to_string()
    };
    // The wrong wire type for a described field, named as Go names it.
    assert_eq!(
        refused("v1", "ConfigMap", &int(2, 5)),
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: proto: wrong wireType = 0 for field Data"
    );
    assert_eq!(
        refused("apps/v1", "Deployment", &field(1, &int(1, 5))),
        "Deployment in version \"v1\" cannot be handled as a Deployment: proto: wrong wireType = 0 for field Name"
    );
    assert_eq!(
        refused("v1", "Pod", &field(1, &int(5, 1))),
        "Pod in version \"v1\" cannot be handled as a Pod: proto: wrong wireType = 0 for field UID"
    );
    assert_eq!(
        refused("v1", "Service", &field(2, &int(3, 1))),
        "Service in version \"v1\" cannot be handled as a Service: proto: wrong wireType = 0 for field ClusterIP"
    );
    // Wire types that do not exist, an end of group opening none, truncation and overflow.
    assert!(refused("v1", "ConfigMap", &key(99, 7)).ends_with(": proto: illegal wireType 7"));
    assert!(
        refused("v1", "ConfigMap", &field(1, &key(99, 4)))
            .ends_with(": proto: ObjectMeta: wiretype end group for non-group")
    );
    assert!(refused("v1", "ConfigMap", &[0x0a, 0x05, b'a']).ends_with(": unexpected EOF"));
    assert!(
        refused("v1", "ConfigMap", &[key(5, 0), vec![0xff; 11]].concat())
            .ends_with(": proto: integer overflow")
    );
    assert_eq!(
        decode(&envelope("example.com/v1", "Widget", b"")),
        Err(DecodeError::UnsupportedKind {
            api_version: "example.com/v1".into(),
            kind: "Widget".into()
        })
    );
}

#[test]
fn decodes_a_certificate_request_with_its_status() {
    // `extra` maps to ExtraValue messages (repeated items): JSON arrays.
    let extra = [
        field(1, b"scopes"),
        field(2, &[field(1, b"a"), field(1, b"b")].concat()),
    ]
    .concat();
    let spec = [
        field(1, b"\x01\x02\xff"),
        field(7, b"kubernetes.io/kube-apiserver-client"),
        field(5, b"client auth"),
        field(6, &extra),
    ]
    .concat();
    let condition = [
        field(1, b"Approved"),
        field(6, b"True"),
        field(4, &int(1, 86_400)),
        field(5, b""),
    ]
    .concat();
    // A read-modify-write sends managedFields back; fieldsV1 holds the JSON itself.
    let managed = [
        field(1, b"kubectl"),
        field(2, b"Update"),
        field(7, &field(1, br#"{"f:spec":{}}"#)),
    ]
    .concat();
    let raw = [
        field(1, &[meta("csr"), field(17, &managed)].concat()),
        field(2, &spec),
        field(3, &field(1, &condition)),
    ]
    .concat();
    let v = decode(&envelope(
        "certificates.k8s.io/v1",
        "CertificateSigningRequest",
        &raw,
    ))
    .unwrap();
    assert_eq!(
        v["spec"],
        json!({
            "request": "AQL/",
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["client auth"],
            "extra": {"scopes": ["a", "b"]},
        })
    );
    assert_eq!(
        v["metadata"]["managedFields"],
        json!([{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:spec": {}}}])
    );
    // The approval subresource reads the status: it is kept, the zero time left out.
    assert_eq!(
        v["status"],
        json!({"conditions": [{"type": "Approved", "status": "True", "lastUpdateTime": "1970-01-02T00:00:00Z"}]})
    );
}

#[test]
fn decodes_probes_affinity_and_a_job_failure_policy() {
    // A liveness probe (Container 10) with an httpGet (2 of the ProbeHandler, Probe 1, inlined)
    // on port 8080, and periodSeconds (Probe 4).
    let http_get = [field(1, b"/healthz"), field(2, &int(2, 8080))].concat();
    let probe = [field(1, &field(2, &http_get)), int(4, 7)].concat();
    let container = [field(1, b"c"), field(10, &probe)].concat();
    // A required node affinity term: Affinity 1, NodeAffinity 1, NodeSelector 1, term 1.
    let requirement = [field(1, b"zone"), field(2, b"In"), field(3, b"a")].concat();
    let selector = field(1, &field(1, &requirement));
    let affinity = field(1, &field(1, &selector));
    let spec = [field(2, &container), field(18, &affinity)].concat();
    let raw = [field(1, &meta("p")), field(2, &spec)].concat();
    let pod = decode(&envelope("v1", "Pod", &raw)).unwrap();
    assert_eq!(
        pod["spec"]["containers"][0]["livenessProbe"],
        serde_json::json!({"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 7})
    );
    assert_eq!(
        pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"],
        serde_json::json!({"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": ["a"]}]}]})
    );
    // A Job's podFailurePolicy (JobSpec 11): a rule (1) failing the job on exit code 42.
    let on_exit_codes = [field(2, b"In"), int(3, 42)].concat();
    let rule = [field(1, b"FailJob"), field(2, &on_exit_codes)].concat();
    let raw = [field(1, &meta("j")), field(2, &field(11, &field(1, &rule)))].concat();
    let job = decode(&envelope("batch/v1", "Job", &raw)).unwrap();
    assert_eq!(
        job["spec"]["podFailurePolicy"],
        serde_json::json!({"rules": [{"action": "FailJob",
            "onExitCodes": {"operator": "In", "values": [42]}}]})
    );
}

#[test]
fn decodes_statuses_micro_times_and_raw_values() {
    // A Deployment's status (a /status update): counts, a condition with its times.
    let condition = [
        field(1, b"Available"),
        field(2, b"True"),
        field(4, b"MinimumReplicasAvailable"),
        field(6, &int(1, 1_700_000_000)),
        field(7, b""),
    ]
    .concat();
    let status = [int(1, 3), int(2, 2), field(6, &condition), int(8, 0)].concat();
    let raw = [field(1, &meta("web")), field(3, &status)].concat();
    let v = decode(&envelope("apps/v1", "Deployment", &raw)).unwrap();
    assert_eq!(
        v["status"],
        json!({
            "observedGeneration": 3,
            "replicas": 2,
            "conditions": [{
                "type": "Available",
                "status": "True",
                "reason": "MinimumReplicasAvailable",
                "lastUpdateTime": "2023-11-14T22:13:20Z",
            }],
            "collisionCount": 0,
        })
    );
    // A Lease's times are MicroTimes: microseconds kept, the rest of the nanoseconds cut.
    let time = [int(1, 1_700_000_000), int(2, 123_456_789)].concat();
    let spec = [field(1, b"holder"), int(2, 15), field(4, &time)].concat();
    let raw = [field(1, &meta("lock")), field(2, &spec)].concat();
    let v = decode(&envelope("coordination.k8s.io/v1", "Lease", &raw)).unwrap();
    assert_eq!(
        v["spec"],
        json!({"holderIdentity": "holder", "leaseDurationSeconds": 15,
            "renewTime": "2023-11-14T22:13:20.123456Z"})
    );
    // A ControllerRevision's data is the JSON its RawExtension holds.
    let data = field(1, br#"{"spec":{"x":[1,"a"]}}"#);
    let raw = [field(1, &meta("rev")), field(2, &data), int(3, 2)].concat();
    let v = decode(&envelope("apps/v1", "ControllerRevision", &raw)).unwrap();
    assert_eq!(v["data"], json!({"spec": {"x": [1, "a"]}}));
    assert_eq!(v["revision"], 2);
}

#[test]
fn decodes_delete_options_of_any_api_version() {
    // gracePeriodSeconds 0 (a pointer: kept), preconditions.uid, propagationPolicy, dryRun.
    let raw = [
        int(1, 0),
        field(2, &field(1, b"u-1")),
        field(4, b"Foreground"),
        field(5, b"All"),
    ]
    .concat();
    for api_version in ["meta.k8s.io/v1", "v1", "apps/v1"] {
        let v = decode(&envelope(api_version, "DeleteOptions", &raw)).unwrap();
        assert_eq!(
            v,
            json!({
                "apiVersion": api_version,
                "kind": "DeleteOptions",
                "gracePeriodSeconds": 0,
                "preconditions": {"uid": "u-1"},
                "propagationPolicy": "Foreground",
                "dryRun": ["All"],
            })
        );
    }
}
