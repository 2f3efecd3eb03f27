//! `resource.k8s.io/v1` raw values (a DeviceClass's opaque parameters) as the real server
//! writes their bytes: a JSON patch that adds, moves or removes list items on the way to
//! them leaves their bytes alone, a strategic merge patch reads the numbers it sends as
//! Go's JSON decoder does, an apply as YAML.

use crate::common::env;

/// The opaque parameters of each configuration of a DeviceClass, as the bytes answered.
fn parameters(answer: &str) -> Vec<String> {
    answer
        .split(r#""parameters":"#)
        .skip(1)
        .map(|rest| {
            let end = rest.find("}}").map_or(rest.len(), |i| i + 1);
            rest[..end].to_string()
        })
        .collect()
}

#[tokio::test]
async fn raw_parameters_keep_their_bytes_through_list_patches_and_read_sent_numbers() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let classes = "/apis/resource.k8s.io/v1/deviceclasses";
    let exchange =
        |method: &'static str, path: String, content_type: &'static str, body: String| {
            let client = client.clone();
            async move {
                let headers = [("Content-Type", content_type)];
                let (code, _, bytes) =
                    crate::support::raw::exchange_text(&client, method, &path, &headers, &body)
                        .await;
                (code, String::from_utf8_lossy(&bytes).into_owned())
            }
        };
    let class = format!("{classes}/raw-lists");
    let json_patch = |ops: &str| {
        exchange(
            "PATCH",
            class.clone(),
            "application/json-patch+json",
            ops.to_string(),
        )
    };
    let config = |parameters: &str| {
        format!(r#"{{"opaque":{{"driver":"d.example.com","parameters":{parameters}}}}}"#)
    };
    let body = format!(
        r#"{{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{{"name":"raw-lists"}},"spec":{{"config":[{},{}]}}}}"#,
        config(r#"{ "z": 1.50, "l": [1.0, {"q": 2, "c": 1}] }"#),
        config(r#"{"y": -0, "a": 1E2}"#),
    );
    let (code, created) = exchange("POST", classes.to_string(), "application/json", body).await;
    assert_eq!(code, 201, "{created}");
    let first = r#"{"z":1.50,"l":[1.0,{"q":2,"c":1}]}"#;
    let second = r#"{"y":-0,"a":1E2}"#;
    assert_eq!(parameters(&created), [first, second]);

    // Items added, moved and removed before them: the bytes stay (compacted).
    let added = config(r#"{"n": 1.0}"#);
    let (code, answer) = json_patch(&format!(
        r#"[{{"op":"add","path":"/spec/config/0","value":{added}}}]"#
    ))
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(parameters(&answer), [r#"{"n":1.0}"#, first, second]);
    let (code, answer) = json_patch(
        r#"[{"op":"move","from":"/spec/config/0","path":"/spec/config/-"},{"op":"remove","path":"/spec/config/-1"}]"#,
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(parameters(&answer), [first, second]);
    // A list inside the value is opened, its items kept; the object holding it is sorted.
    let (code, answer) =
        json_patch(r#"[{"op":"add","path":"/spec/config/0/opaque/parameters/l/1","value":2.0}]"#)
            .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(
        parameters(&answer),
        [r#"{"l":[1.0,2.0,{"q":2,"c":1}],"z":1.50}"#, second]
    );

    // A strategic merge patch: -0 is the integer 0, -0.0 the float -0.
    let strategic = format!(
        r#"{{"spec":{{"config":[{}]}}}}"#,
        config(r#"{"n":[-0,-0.0,1e0,1E+2,0.10]}"#)
    );
    let (code, answer) = exchange(
        "PATCH",
        class.clone(),
        "application/strategic-merge-patch+json",
        strategic,
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(parameters(&answer), [r#"{"n":[0,-0,1,100,0.1]}"#]);
    // An apply reads its numbers as YAML: -0.0 is the integer 0 too.
    let applied = format!(
        r#"{{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{{"name":"raw-lists"}},"spec":{{"config":[{}]}}}}"#,
        config(r#"{"n":[-0,-0.0,1e0,1E+2,0.10,2.5]}"#)
    );
    let (code, answer) = exchange(
        "PATCH",
        format!("{class}?fieldManager=raw&force=true"),
        "application/apply-patch+yaml",
        applied,
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(parameters(&answer), [r#"{"n":[0,0,1,100,0.1,2.5]}"#]);
    exchange("DELETE", class.clone(), "application/json", String::new()).await;
}

/// A write that changes only a raw value's bytes is a write: the real server's store and the
/// DeviceClass strategy compare the bytes, so a strategic merge patch that writes the stored
/// parameters again as Go writes a map, or a replace that sends them with other white space,
/// gives a new resourceVersion and generation; the same text again changes nothing.
#[tokio::test]
async fn a_write_that_changes_only_raw_bytes_writes_the_object() {
    let env = env().await;
    let client = crate::support::raw::client(&env).await;
    let classes = "/apis/resource.k8s.io/v1/deviceclasses";
    let class = format!("{classes}/raw-bytes-only");
    let send = |method: &'static str, path: String, content_type: &'static str, body: String| {
        let client = client.clone();
        async move {
            let headers = [("Content-Type", content_type)];
            let (code, _, bytes) =
                crate::support::raw::exchange_text(&client, method, &path, &headers, &body).await;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let version = (
                answer["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                answer["metadata"]["generation"].as_i64().unwrap_or(0),
            );
            (code, version, parameters(&text), text)
        }
    };
    let body = |parameters: &str| {
        format!(
            r#"{{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{{"name":"raw-bytes-only"}},"spec":{{"config":[{{"opaque":{{"driver":"d.example.com","parameters":{parameters}}}}}]}}}}"#
        )
    };
    let (code, created, texts, answer) = send(
        "POST",
        classes.to_string(),
        "application/json",
        body(r#"{"b":1,"a":-0}"#),
    )
    .await;
    assert_eq!(code, 201, "{answer}");
    assert_eq!(texts, [r#"{"b":1,"a":-0}"#]);
    assert_eq!(created.1, 1);

    // A strategic merge patch that changes no value: the parameters are written again sorted,
    // -0 read as 0, and that is a write.
    let (code, patched, texts, answer) = send(
        "PATCH",
        class.clone(),
        "application/strategic-merge-patch+json",
        r#"{"metadata":{"labels":{"x":null}}}"#.to_string(),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(texts, [r#"{"a":0,"b":1}"#]);
    assert_ne!(patched.0, created.0, "a new resourceVersion");
    assert_eq!(patched.1, 2, "a new generation");
    // Again: the bytes are those Go writes, nothing changes.
    let (code, again, _, answer) = send(
        "PATCH",
        class.clone(),
        "application/strategic-merge-patch+json",
        r#"{"metadata":{"labels":{"x":null}}}"#.to_string(),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(again, patched);

    // A replace with other white space writes; the same text again does not.
    let spaced = body(r#"{"a":0, "b":1}"#);
    let (code, replaced, texts, answer) =
        send("PUT", class.clone(), "application/json", spaced.clone()).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(texts, [r#"{"a":0,"b":1}"#], "answered compacted");
    assert_eq!(replaced.1, 3);
    let (code, same, _, answer) = send("PUT", class.clone(), "application/json", spaced).await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(same, replaced);
    // A merge patch that changes nothing compacts the bytes sent with white space: a write.
    let (code, merged, _, answer) = send(
        "PATCH",
        class.clone(),
        "application/merge-patch+json",
        r#"{"metadata":{"labels":{"x":null}}}"#.to_string(),
    )
    .await;
    assert_eq!(code, 200, "{answer}");
    assert_eq!(merged.1, 4);
    send("DELETE", class.clone(), "application/json", String::new()).await;
}
