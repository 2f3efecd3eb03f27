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
