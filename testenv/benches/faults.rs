//! One-run benchmark of what fault injection costs every request: deriving the request's
//! attributes and matching them against rules, next to one GET round trip through kube::Client
//! (the whole cost of a request) in the same run.
//!
//! Run with `cargo bench -p kubeforge-testenv --bench faults`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kubeforge_testenv::TestEnv;
use kubeforge_testenv::faults::{Matcher, RequestInfo};

fn per_call(label: &str, n: u32, elapsed: Duration) -> f64 {
    let ns = elapsed.as_nanos() as f64 / f64::from(n);
    println!("{label}: {ns:.0} ns per request ({n} runs)");
    ns
}

#[tokio::main]
async fn main() {
    let paths = [
        (
            http::Method::GET,
            "/api/v1/namespaces/default/configmaps/x",
            false,
        ),
        (
            http::Method::GET,
            "/apis/apps/v1/namespaces/a/deployments",
            true,
        ),
        (
            http::Method::PATCH,
            "/apis/test.dev/v1/namespaces/a/widgets/w/status",
            false,
        ),
        (
            http::Method::DELETE,
            "/api/v1/namespaces/default/pods",
            false,
        ),
    ];
    let rules: Vec<Matcher> = (0..10)
        .map(|i| {
            Matcher::any()
                .verb("update")
                .resource(format!("things{i}"))
                .name("x")
        })
        .collect();
    const N: u32 = 200_000;

    let started = Instant::now();
    for i in 0..N {
        let (method, path, watch) = &paths[i as usize % paths.len()];
        black_box(RequestInfo::parse(method, black_box(path), *watch, None));
    }
    let parse = per_call("RequestInfo::parse", N, started.elapsed());

    let started = Instant::now();
    for i in 0..N {
        let (method, path, watch) = &paths[i as usize % paths.len()];
        let info = RequestInfo::parse(method, black_box(path), *watch, None);
        black_box(rules.iter().any(|m| m.matches(&info)));
    }
    let with_rules = per_call("parse + 10 non-matching rules", N, started.elapsed());

    let env = TestEnv::start().await.unwrap();
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("x".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    api.create(&PostParams::default(), &cm).await.unwrap();
    const GETS: u32 = 2_000;
    let started = Instant::now();
    for _ in 0..GETS {
        api.get("x").await.unwrap();
    }
    let get = per_call(
        "GET through kube::Client over HTTPS",
        GETS,
        started.elapsed(),
    );
    println!(
        "share of a GET: parse {:.3}%, parse + 10 rules {:.3}%",
        parse / get * 100.0,
        with_rules / get * 100.0
    );
}
