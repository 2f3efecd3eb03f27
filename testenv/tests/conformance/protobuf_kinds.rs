//! Protobuf request bodies of the built-in kinds beyond kubectl's typed commands, as any client-go
//! program configured for protobuf sends them: each body a real kube-apiserver v1.34 wrote
//! (`tests/fixtures/protobuf/`, its GET or review answer in protobuf) is sent back with fresh
//! metadata, and the object the server keeps is the one a JSON create of the same object gives.
//! Statuses are put to `/status` in protobuf the same way, and reviews answer alike.

use http_body_util::BodyExt;
use serde_json::{Value, json};

use crate::common::env;
use crate::support::protobuf_wire::{put_varint, read_varint};

const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";

/// A recorded object: the collection it was created in (`{namespace}` for namespaced kinds),
/// the JSON it was created from and the server's protobuf encoding of it.
struct Recorded {
    collection: String,
    create: Value,
    get: Value,
    protobuf: Vec<u8>,
}

fn recorded(text: &str) -> Recorded {
    use base64::Engine;
    let v: Value = serde_json::from_str(text).expect("fixture is JSON");
    Recorded {
        collection: v["collection"].as_str().expect("collection").to_string(),
        create: v["create"].clone(),
        get: v["get"].clone(),
        protobuf: base64::engine::general_purpose::STANDARD
            .decode(v["protobuf"].as_str().expect("protobuf"))
            .expect("base64"),
    }
}

macro_rules! fixture {
    ($name:literal) => {
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/protobuf/",
            $name,
            ".json"
        ))
    };
}

/// The top-level fields of a message: number, wire type and the field's bytes after its key.
fn fields(b: &[u8]) -> Vec<(u64, u64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let key = read_varint(b, &mut at);
        let start = at;
        match key & 7 {
            0 => {
                read_varint(b, &mut at);
            }
            2 => {
                let len = read_varint(b, &mut at) as usize;
                at += len;
            }
            1 => at += 8,
            5 => at += 4,
            wire => panic!("unexpected wire type {wire}"),
        }
        out.push((key >> 3, key & 7, b[start..at].to_vec()));
    }
    out
}

/// A length-delimited field.
fn bytes_field(number: u64, payload: &[u8], out: &mut Vec<u8>) {
    put_varint((number << 3) | 2, out);
    put_varint(payload.len() as u64, out);
    out.extend_from_slice(payload);
}

/// `body` (the `k8s\0` envelope around an object) with the object's metadata (field 1) replaced
/// by one holding only `name`, `namespace` and `resourceVersion` (each when not empty).
fn with_metadata(body: &[u8], name: &str, namespace: &str, resource_version: &str) -> Vec<u8> {
    let envelope = body.strip_prefix(b"k8s\0").expect("the protobuf magic");
    let mut meta = Vec::new();
    for (number, value) in [(1, name), (3, namespace), (6, resource_version)] {
        if !value.is_empty() {
            bytes_field(number, value.as_bytes(), &mut meta);
        }
    }
    let mut out = b"k8s\0".to_vec();
    for (number, wire, rest) in fields(envelope) {
        if number != 2 {
            put_varint((number << 3) | wire, &mut out);
            out.extend(rest);
            continue;
        }
        let mut at = 0;
        let len = read_varint(&rest, &mut at) as usize;
        let mut raw = Vec::new();
        for (n, w, r) in fields(&rest[at..at + len]) {
            if n == 1 {
                bytes_field(1, &meta, &mut raw);
            } else {
                put_varint((n << 3) | w, &mut raw);
                raw.extend(r);
            }
        }
        bytes_field(2, &raw, &mut out);
    }
    out
}

/// `message` with the string field at `path` (field numbers, outermost first) set to `value`.
fn with_string(message: &[u8], path: &[u64], value: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for (number, wire, rest) in fields(message) {
        if number != path[0] {
            put_varint((number << 3) | wire, &mut out);
            out.extend(rest);
            continue;
        }
        if path.len() == 1 {
            bytes_field(number, value.as_bytes(), &mut out);
        } else {
            let mut at = 0;
            let len = read_varint(&rest, &mut at) as usize;
            let inner = with_string(&rest[at..at + len], &path[1..], value);
            bytes_field(number, &inner, &mut out);
        }
    }
    out
}

/// Sends `body` with `content_type`; the status code and the JSON answer.
async fn send(
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (u16, Value) {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("Content-Type", content_type)
        .header("Accept", "application/json")
        .body(body)
        .unwrap();
    let response = client
        .send(request.map(kube::client::Body::from))
        .await
        .unwrap();
    let code = response.status().as_u16();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value = serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    (code, value)
}

/// `object` without its metadata and status (what the server sets itself).
fn content(object: &Value) -> Value {
    let mut object = object.clone();
    if let Value::Object(o) = &mut object {
        o.remove("metadata");
        o.remove("status");
    }
    object
}

/// Creates the recorded object from its protobuf body and from its JSON under another name,
/// as dry runs: both as they would be kept. Nothing is kept, so a webhook configuration or an
/// admission policy of the recordings never reaches the other tests on a shared server.
async fn create_both(
    client: &kube::Client,
    recorded: &Recorded,
    name: &str,
    namespace: Option<&str>,
) -> (Value, Value) {
    let collection = recorded
        .collection
        .replace("{namespace}", namespace.unwrap_or_default());
    let dry_run = format!("{collection}?dryRun=All");
    let (pb_name, json_name) = (format!("{name}-pb"), format!("{name}-json"));
    let body = with_metadata(
        &recorded.protobuf,
        &pb_name,
        namespace.unwrap_or_default(),
        "",
    );
    let (code, from_pb) = send(client, "POST", &dry_run, PROTOBUF, body).await;
    assert_eq!(code, 201, "{collection} in protobuf: {from_pb}");
    let mut twin = recorded.create.clone();
    twin["metadata"] = json!({"name": json_name});
    if let Some(ns) = namespace {
        twin["metadata"]["namespace"] = json!(ns);
    }
    twin.as_object_mut().unwrap().remove("status");
    let twin = serde_json::to_vec(&twin).unwrap();
    let (code, from_json) = send(client, "POST", &dry_run, "application/json", twin).await;
    assert_eq!(code, 201, "{collection} in JSON: {from_json}");
    (from_pb, from_json)
}

/// Every kind recorded: the object a dry-run create from the real server's protobuf keeps is the
/// one the same JSON's keeps (every field of the spec, as each kind's defaults and checks leave it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protobuf_bodies_of_every_kind_create_what_their_json_creates() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace().to_string();
    let cases: &[(&str, bool)] = &[
        (fixture!("mutatingwebhookconfiguration"), false),
        (fixture!("validatingwebhookconfiguration"), false),
        (fixture!("validatingadmissionpolicy"), false),
        (fixture!("validatingadmissionpolicybinding"), false),
        (fixture!("storageclass"), false),
        (fixture!("csidriver"), false),
        (fixture!("csinode"), false),
        (fixture!("csistoragecapacity"), true),
        (fixture!("volumeattachment"), false),
        (fixture!("volumeattributesclass"), false),
        (fixture!("runtimeclass"), false),
        (fixture!("flowschema"), false),
        (fixture!("prioritylevelconfiguration"), false),
        (fixture!("deviceclass"), false),
        (fixture!("resourceclaim"), true),
        (fixture!("resourceclaimtemplate"), true),
        (fixture!("resourceslice"), false),
    ];
    for (text, namespaced) in cases {
        let recorded = recorded(text);
        let kind = recorded.create["kind"].as_str().unwrap().to_lowercase();
        // Cluster-scoped names are unique per environment: a real cluster is shared.
        let name = if *namespaced {
            kind.clone()
        } else {
            format!("{ns}-{kind}")
        };
        let namespace = namespaced.then_some(ns.as_str());
        let (from_pb, from_json) = create_both(&client, &recorded, &name, namespace).await;
        assert_eq!(content(&from_pb), content(&from_json), "{kind}");
        assert_eq!(
            content(&from_pb),
            content(&recorded.get),
            "{kind}: as the real server keeps it"
        );
        assert_eq!(from_pb["metadata"]["name"], format!("{name}-pb"));
    }
}

/// An APIService's name is its version and group, so the two are created one after the other
/// under the recorded name, each deleted at once (an unavailable APIService is soon a discovery
/// error for every client).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protobuf_api_service_is_the_json_one() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let recorded = recorded(fixture!("apiservice"));
    let name = recorded.create["metadata"]["name"].as_str().unwrap();
    let path = format!("{}/{name}", recorded.collection);
    let mut kept = Vec::new();
    for json_body in [false, true] {
        let (content_type, body) = if json_body {
            let mut twin = recorded.create.clone();
            twin.as_object_mut().unwrap().remove("status");
            ("application/json", serde_json::to_vec(&twin).unwrap())
        } else {
            (PROTOBUF, with_metadata(&recorded.protobuf, name, "", ""))
        };
        let (code, created) = send(&client, "POST", &recorded.collection, content_type, body).await;
        let (_, read) = send(&client, "GET", &path, "", vec![]).await;
        send(&client, "DELETE", &path, "", vec![]).await;
        assert_eq!(code, 201, "{content_type}: {created}");
        kept.push(read);
    }
    assert_eq!(content(&kept[0]), content(&kept[1]));
    assert_eq!(content(&kept[0]), content(&recorded.get));
}

/// A CustomResourceDefinition's name is its plural and group: the protobuf one and the JSON one
/// each get a group of their own, and are kept alike (the whole spec, with every kind of schema
/// node: `double` bounds, defaults, enums and examples, items, additionalProperties as a schema
/// and as `false`, allOf/oneOf/anyOf/not and the `x-kubernetes-*` extensions).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_protobuf_custom_resource_definition_is_the_json_one() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace().to_string();
    let recorded = recorded(fixture!("customresourcedefinition"));
    let (pb_group, json_group) = (
        format!("{ns}.pb.example.com"),
        format!("{ns}.json.example.com"),
    );
    let mut kept = Vec::new();
    for group in [&pb_group, &json_group] {
        let name = format!("gadgets.{group}");
        let (content_type, body) = if group == &pb_group {
            let body = with_metadata(&recorded.protobuf, &name, "", "");
            let envelope = fields(&body[4..]);
            let (_, _, raw) = envelope.iter().find(|(n, _, _)| *n == 2).unwrap();
            let mut at = 0;
            let len = read_varint(raw, &mut at) as usize;
            // spec (2) . group (1)
            let object = with_string(&raw[at..at + len], &[2, 1], group);
            let mut out = b"k8s\0".to_vec();
            for (n, w, rest) in &envelope {
                if *n == 2 {
                    bytes_field(2, &object, &mut out);
                } else {
                    put_varint((n << 3) | w, &mut out);
                    out.extend(rest);
                }
            }
            (PROTOBUF, out)
        } else {
            let mut twin = recorded.create.clone();
            twin["metadata"] = json!({"name": name});
            twin["spec"]["group"] = json!(group);
            ("application/json", serde_json::to_vec(&twin).unwrap())
        };
        let collection = &recorded.collection;
        let (code, created) = send(&client, "POST", collection, content_type, body).await;
        let path = format!("{collection}/{name}");
        let (_, mut read) = send(&client, "GET", &path, "", vec![]).await;
        send(&client, "DELETE", &path, "", vec![]).await;
        assert_eq!(code, 201, "{content_type}: {created}");
        read["spec"]["group"] = json!("pb.example.com");
        kept.push(read);
    }
    assert_eq!(content(&kept[0]), content(&kept[1]));
    assert_eq!(content(&kept[0]), content(&recorded.get));
}

/// Statuses in protobuf: a VolumeAttachment's (as a CSI attacher writes it) and a
/// ResourceClaim's allocation, reservation and device status (as a scheduler and a DRA driver
/// write them), each put to `/status` as the real server wrote it, are kept as it kept them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protobuf_statuses_are_put_to_the_status_subresource() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let ns = env.namespace().to_string();
    for (text, namespaced) in [
        (fixture!("volumeattachment"), false),
        (fixture!("resourceclaim"), true),
    ] {
        let recorded = recorded(text);
        let kind = recorded.create["kind"].as_str().unwrap().to_lowercase();
        let namespace = if namespaced { ns.as_str() } else { "" };
        let collection = recorded.collection.replace("{namespace}", namespace);
        let name = format!("{ns}-{kind}-status");
        let mut object = recorded.create.clone();
        object["metadata"] = json!({"name": name});
        object.as_object_mut().unwrap().remove("status");
        let object = serde_json::to_vec(&object).unwrap();
        let (code, created) = send(&client, "POST", &collection, "application/json", object).await;
        assert_eq!(code, 201, "{created}");
        // A create keeps no status: the one put below is the recorded one, not left over.
        assert_ne!(created["status"], recorded.get["status"], "{created}");
        let rv = created["metadata"]["resourceVersion"].as_str().unwrap();
        let body = with_metadata(&recorded.protobuf, &name, namespace, rv);
        let path = format!("{collection}/{name}/status");
        let (code, updated) = send(&client, "PUT", &path, PROTOBUF, body).await;
        assert_eq!(code, 200, "{kind}: {updated}");
        assert_eq!(updated["status"], recorded.get["status"], "{kind}");
        assert_eq!(
            content(&updated),
            content(&recorded.get),
            "{kind}: the spec stays"
        );
    }
}

/// Reviews in protobuf (a webhook authenticator's TokenReview, an authorizer's
/// SubjectAccessReview for resources and non-resource URLs, a LocalSubjectAccessReview) get the
/// answer the same review gets in JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protobuf_reviews_are_answered_as_json_ones() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    for text in [
        fixture!("tokenreview"),
        fixture!("subjectaccessreview"),
        fixture!("subjectaccessreview-nonresource"),
        fixture!("localsubjectaccessreview"),
    ] {
        let recorded = recorded(text);
        let namespace = recorded.create["metadata"]["namespace"]
            .as_str()
            .unwrap_or_default();
        let body = with_metadata(&recorded.protobuf, "", namespace, "");
        let (code, from_pb) = send(&client, "POST", &recorded.collection, PROTOBUF, body).await;
        assert_eq!(code, 201, "{}: {from_pb}", recorded.collection);
        let twin = serde_json::to_vec(&recorded.create).unwrap();
        let (code, from_json) = send(
            &client,
            "POST",
            &recorded.collection,
            "application/json",
            twin,
        )
        .await;
        assert_eq!(code, 201, "{from_json}");
        assert_eq!(
            from_pb["spec"], from_json["spec"],
            "{}",
            recorded.collection
        );
        assert_eq!(
            from_pb["status"], from_json["status"],
            "{}",
            recorded.collection
        );
        assert_eq!(
            from_pb["spec"], recorded.get["spec"],
            "{}",
            recorded.collection
        );
    }
}

/// The `k8s\0` envelope around an object of `api_version` and `kind` encoded as `raw`.
fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut type_meta = Vec::new();
    bytes_field(1, api_version.as_bytes(), &mut type_meta);
    bytes_field(2, kind.as_bytes(), &mut type_meta);
    let mut out = b"k8s\0".to_vec();
    bytes_field(1, &type_meta, &mut out);
    bytes_field(2, raw, &mut out);
    out
}

/// A length-delimited field, as a new buffer.
fn field(number: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bytes_field(number, payload, &mut out);
    out
}

/// A varint field.
fn int(number: u64, value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(number << 3, &mut out);
    put_varint(value, &mut out);
    out
}

/// What Go's generated `Unmarshal` does at its edges: a review's status sent by a client is
/// decoded and replaced by the server's; map entries are read without checking their fields'
/// wire types; a wrong wire type names the Go field, a length past Go's int is negative.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protobuf_bodies_are_read_as_go_reads_them() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    // A SelfSubjectAccessReview saying "denied": the server answers its own decision.
    let attributes = [field(1, b"default"), field(2, b"get"), field(5, b"pods")].concat();
    let status = [int(1, 0), int(4, 1), field(2, b"because")].concat();
    let raw = [
        field(1, b""),
        field(2, &field(1, &attributes)),
        field(3, &status),
    ]
    .concat();
    let review = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", &raw);
    let path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    let (code, answer) = send(&client, "POST", path, PROTOBUF, review).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["status"]["allowed"], true, "{answer}");
    assert_ne!(answer["status"]["reason"], "because", "{answer}");
    // A SelfSubjectReview claiming another user.
    let raw = [field(1, b""), field(2, &field(1, &field(1, b"bob")))].concat();
    let review = envelope("authentication.k8s.io/v1", "SelfSubjectReview", &raw);
    let path = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
    let (code, answer) = send(&client, "POST", path, PROTOBUF, review).await;
    assert_eq!(code, 201, "{answer}");
    assert_ne!(answer["status"]["userInfo"]["username"], "bob", "{answer}");

    // A ConfigMap whose data entry has its key as a varint field (wire type 0) and its value as
    // a 32-bit one (5): both read as strings.
    let configmaps = "/api/v1/namespaces/default/configmaps";
    let meta = field(1, &field(1, b"pb-edges"));
    let mut entry = Vec::new();
    put_varint(1 << 3, &mut entry);
    put_varint(1, &mut entry);
    entry.push(b'k');
    put_varint((2 << 3) | 5, &mut entry);
    put_varint(1, &mut entry);
    entry.push(b'v');
    let body = envelope(
        "v1",
        "ConfigMap",
        &[meta.clone(), field(2, &entry)].concat(),
    );
    let (code, answer) = send(&client, "POST", configmaps, PROTOBUF, body).await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(answer["data"], json!({"k": "v"}));
    send(
        &client,
        "DELETE",
        &format!("{configmaps}/pb-edges"),
        "application/json",
        Vec::new(),
    )
    .await;

    let refused = |raw: Vec<u8>| {
        let client = client.clone();
        async move {
            let body = envelope("v1", "ConfigMap", &raw);
            let (code, answer) = send(&client, "POST", configmaps, PROTOBUF, body).await;
            assert_eq!(code, 400, "{answer}");
            let message = answer["message"].as_str().unwrap_or_default().to_string();
            let prefix = "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: ";
            message
                .strip_prefix(prefix)
                .unwrap_or_else(|| panic!("{message}"))
                .to_string()
        }
    };
    assert_eq!(
        refused(int(1, 3)).await,
        "proto: wrong wireType = 0 for field ObjectMeta"
    );
    let mut negative = Vec::new();
    put_varint((1 << 3) | 2, &mut negative);
    put_varint(1 << 63, &mut negative);
    assert_eq!(
        refused(negative).await,
        "proto: negative length found during unmarshaling"
    );
    let illegal = [meta, vec![0x02, 0x00]].concat();
    assert_eq!(
        refused(illegal).await,
        "proto: ConfigMap: illegal tag 0 (wire type 2)"
    );
}
