//! Sharded list and watch (KEP-5866, alpha in Kubernetes v1.36 behind the
//! `ShardedListAndWatch` feature gate): `shardSelector=shardRange(object.metadata.uid, '0x…',
//! '0x…') || …` returns only objects whose 64-bit FNV-1a hash of the field falls in one of the
//! `[start, end)` ranges, in lists (which then say so in `metadata.shardInfo.selector`) and in
//! watches; a malformed selector is a 400. The embedded server has the gate off by default (as a
//! real server does) and these tests turn it on; against a real cluster they run only when the
//! cluster honours the selector (v1.34's kube-apiserver predates it) and say so otherwise.

use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kube::core::WatchEvent;
use kubeforge_testenv::TestEnv;
use serde_json::Value;

fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn bound(v: u128) -> String {
    if v >= 1 << 64 {
        "0x10000000000000000".into()
    } else {
        format!("0x{v:016x}")
    }
}

/// Shard `index` of `total` equal ranges of the uid hash.
fn range(index: u128, total: u128) -> (u128, u128) {
    (
        index * (1u128 << 64) / total,
        (index + 1) * (1u128 << 64) / total,
    )
}

fn selector(field: &str, (start, end): (u128, u128)) -> String {
    format!("shardRange({field}, '{}', '{}')", bound(start), bound(end))
}

fn encode(v: &str) -> String {
    v.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn get(client: &kube::Client, url: &str) -> Result<Value, kube::Error> {
    client
        .request::<Value>(http::Request::get(url).body(Vec::new()).unwrap())
        .await
}

/// An environment with the gate on, and whether the server honours `shardSelector` (the
/// embedded one does; a real one must be v1.36+ with the gate on).
async fn sharded_env() -> Option<TestEnv> {
    let env = TestEnv::builder()
        .feature_gate("ShardedListAndWatch", true)
        .start()
        .await
        .expect("test environment starts");
    let url = format!(
        "/api/v1/namespaces/{}/configmaps?limit=1&shardSelector={}",
        env.namespace(),
        encode(&selector("object.metadata.uid", range(0, 2)))
    );
    let honoured = get(&env.client(), &url)
        .await
        .ok()
        .is_some_and(|l| !l["metadata"]["shardInfo"].is_null());
    if !honoured {
        println!(
            "skipped: the API server at {} ignores shardSelector (Kubernetes before v1.36, or the ShardedListAndWatch feature gate is off)",
            env.url()
        );
        return None;
    }
    Some(env)
}

async fn create(api: &Api<ConfigMap>, prefix: &str, n: usize) -> HashMap<String, u64> {
    let mut uids = HashMap::new();
    for i in 0..n {
        let cm = ConfigMap {
            metadata: ObjectMeta {
                name: Some(format!("{prefix}-{i}")),
                ..Default::default()
            },
            ..Default::default()
        };
        let created = api.create(&PostParams::default(), &cm).await.unwrap();
        let uid = created.metadata.uid.unwrap();
        uids.insert(created.metadata.name.unwrap(), fnv1a64(uid.as_bytes()));
    }
    uids
}

fn names(list: &Value, prefix: &str) -> BTreeSet<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["metadata"]["name"].as_str())
        .filter(|n| n.starts_with(prefix))
        .map(String::from)
        .collect()
}

#[tokio::test]
async fn sharded_lists_partition_the_collection_and_echo_the_selector() {
    let Some(env) = sharded_env().await else {
        return;
    };
    let client = env.client();
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), env.namespace());
    let uids = create(&api, "shard-list", 30).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let mut seen = BTreeSet::new();
    for index in 0..3 {
        let (start, end) = range(index, 3);
        let sel = selector("object.metadata.uid", (start, end));
        let list = get(&client, &format!("{base}?shardSelector={}", encode(&sel)))
            .await
            .unwrap();
        assert_eq!(
            list["metadata"]["shardInfo"]["selector"], sel,
            "the selector is echoed"
        );
        for name in names(&list, "shard-list") {
            let h = u128::from(uids[&name]);
            assert!(start <= h && h < end, "{name} hashes outside shard {index}");
            assert!(seen.insert(name.clone()), "{name} in two shards");
        }
        // Pages of a sharded list stay within the shard and carry no remainingItemCount.
        let mut paged = BTreeSet::new();
        let mut url = format!("{base}?limit=4&shardSelector={}", encode(&sel));
        loop {
            let page = get(&client, &url).await.unwrap();
            assert!(page["metadata"]["remainingItemCount"].is_null());
            assert_eq!(page["metadata"]["shardInfo"]["selector"], sel);
            paged.extend(names(&page, "shard-list"));
            match page["metadata"]["continue"].as_str() {
                Some(token) if !token.is_empty() => {
                    url = format!(
                        "{base}?limit=4&continue={token}&shardSelector={}",
                        encode(&sel)
                    );
                }
                _ => break,
            }
        }
        assert_eq!(paged, names(&list, "shard-list"));
    }
    assert_eq!(
        seen.len(),
        uids.len(),
        "every object is in exactly one shard"
    );

    // Ranges joined with || select their union; one range over the whole space is everything.
    let halves = format!(
        "{} || {}",
        selector("object.metadata.uid", range(0, 4)),
        selector("object.metadata.uid", range(2, 4))
    );
    let union = get(
        &client,
        &format!("{base}?shardSelector={}", encode(&halves)),
    )
    .await
    .unwrap();
    for name in names(&union, "shard-list") {
        let h = u128::from(uids[&name]);
        assert!(h < range(0, 4).1 || (range(2, 4).0 <= h && h < range(2, 4).1));
    }
    let everything = selector("object.metadata.uid", range(0, 1));
    let all = get(
        &client,
        &format!("{base}?shardSelector={}", encode(&everything)),
    )
    .await
    .unwrap();
    assert_eq!(names(&all, "shard-list").len(), uids.len());

    // By namespace: every object of the namespace is in the one range holding its hash.
    let ns_hash = u128::from(fnv1a64(env.namespace().as_bytes()));
    for index in 0..2 {
        let (start, end) = range(index, 2);
        let sel = selector("object.metadata.namespace", (start, end));
        let list = get(&client, &format!("{base}?shardSelector={}", encode(&sel)))
            .await
            .unwrap();
        let expected = if start <= ns_hash && ns_hash < end {
            uids.len()
        } else {
            0
        };
        assert_eq!(names(&list, "shard-list").len(), expected);
    }
}

#[tokio::test]
async fn sharded_watches_send_each_event_to_its_shard_only() {
    let Some(env) = sharded_env().await else {
        return;
    };
    let client = env.client();
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), env.namespace());
    let before = create(&api, "shard-before", 10).await;
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    let rv = get(&client, &base).await.unwrap()["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_string();
    let mut streams = Vec::new();
    for index in 0..2 {
        let sel = selector("object.metadata.uid", range(index, 2));
        // From a resourceVersion: only later events; without one: the current state first.
        for from in [Some(rv.clone()), None] {
            let rv_param = from
                .map(|rv| format!("&resourceVersion={rv}"))
                .unwrap_or_default();
            let url = format!(
                "{base}?watch=true&timeoutSeconds=20{rv_param}&shardSelector={}",
                encode(&sel)
            );
            let request = http::Request::get(url).body(Vec::new()).unwrap();
            let stream = client
                .request_events::<Value>(request)
                .await
                .unwrap()
                .boxed();
            streams.push((index, stream));
        }
    }
    let after = create(&api, "shard-after", 10).await;
    let all: HashMap<String, u64> = before.into_iter().chain(after.clone()).collect();
    for (index, stream) in &mut streams {
        let (start, end) = range(*index, 2);
        let mut got = BTreeSet::new();
        let expect_after: BTreeSet<String> = after
            .iter()
            .filter(|(_, h)| start <= u128::from(**h) && u128::from(**h) < end)
            .map(|(n, _)| n.clone())
            .collect();
        while !expect_after.is_subset(&got) {
            let event = tokio::time::timeout(Duration::from_secs(10), stream.try_next())
                .await
                .expect("an event within 10s")
                .unwrap()
                .expect("the watch goes on");
            if let WatchEvent::Added(o) = event {
                let name = o["metadata"]["name"].as_str().unwrap().to_string();
                // Objects the namespace has from the start (its `kube-root-ca.crt`) are not
                // this test's: their shard is checked by the lists above.
                let Some(&hash) = all.get(&name) else {
                    continue;
                };
                let h = u128::from(hash);
                assert!(
                    start <= h && h < end,
                    "{name} arrived on shard {index}'s watch"
                );
                got.insert(name);
            }
        }
    }
}

#[tokio::test]
async fn malformed_shard_selectors_are_refused() {
    let Some(env) = sharded_env().await else {
        return;
    };
    let client = env.client();
    let base = format!("/api/v1/namespaces/{}/configmaps", env.namespace());
    for bad in [
        "shardRange(metadata.uid, '0x0000000000000000', '0x8000000000000000')",
        "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')",
        "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')",
        "shardRange(object.metadata.uid, '0x0000000000000000')",
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
        "object.metadata.uid == 'x'",
        "shardRange(",
    ] {
        for watch in ["", "watch=true&"] {
            let url = format!("{base}?{watch}shardSelector={}", encode(bad));
            match get(&client, &url).await {
                Err(kube::Error::Api(status)) => {
                    assert_eq!(status.code, 400, "{bad}: {status:?}");
                    assert!(
                        status.message.contains("shard selector"),
                        "{bad}: {}",
                        status.message
                    );
                }
                other => panic!("{bad}: expected a 400, got {other:?}"),
            }
        }
    }
}

/// The gate is off by default (as on a real server): the parameter is ignored.
#[tokio::test]
async fn without_the_feature_gate_the_selector_is_ignored() {
    let env = TestEnv::start().await.unwrap();
    if env.is_real_cluster() {
        println!("skipped: a real cluster's feature gates are its own");
        return;
    }
    let api: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let uids = create(&api, "shard-off", 10).await;
    let sel = selector("object.metadata.uid", range(0, 4));
    let list = get(
        &env.client(),
        &format!(
            "/api/v1/namespaces/{}/configmaps?shardSelector={}",
            env.namespace(),
            encode(&sel)
        ),
    )
    .await
    .unwrap();
    assert!(list["metadata"]["shardInfo"].is_null());
    assert_eq!(names(&list, "shard-off").len(), uids.len());
    let refused = TestEnv::builder()
        .feature_gate("ShardedListAndWatchh", true)
        .start()
        .await;
    assert!(
        refused
            .err()
            .unwrap()
            .to_string()
            .contains("unknown feature gate \"ShardedListAndWatchh\""),
    );
}
