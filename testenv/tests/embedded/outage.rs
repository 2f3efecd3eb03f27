//! An outage of the embedded API server (`Faults::restart_after`): connections are refused
//! for the whole duration, then the server serves the same data on the same address.

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ObjectMeta, PostParams};
use kubeforge_testenv::TestEnv;

#[tokio::test]
async fn an_outage_refuses_connections_for_its_duration_then_serves_the_same_data() {
    let env = TestEnv::start().await.expect("test API server starts");
    let faults = env.faults().expect("embedded server has faults");
    let api: Api<ConfigMap> = Api::default_namespaced(env.client());
    let kept = ConfigMap {
        metadata: ObjectMeta {
            name: Some("kept".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    api.create(&PostParams::default(), &kept).await.unwrap();
    let addr = env.url().trim_start_matches("https://").to_string();

    let down = Duration::from_millis(3000);
    let started = Instant::now();
    let outage = tokio::spawn({
        let faults = faults.clone();
        async move {
            faults.restart_after(down).await;
            Instant::now()
        }
    });
    // The outage begins as soon as the spawned task runs: wait for the first refused connection
    // rather than for a fixed time, so a loaded machine cannot turn this into a race.
    while tokio::net::TcpStream::connect(&addr).await.is_ok() {
        assert!(
            started.elapsed() < down / 2,
            "connections are still accepted {:?} into the outage",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Every check that ended inside the outage window saw the server down (the outage began
    // after `started`, so a check finished before `started + down` ran wholly inside it).
    let mut checks = 0;
    while started.elapsed() + Duration::from_millis(500) < down {
        let refused = tokio::net::TcpStream::connect(&addr).await.is_err();
        let failed = api.get("kept").await.is_err();
        if started.elapsed() < down {
            assert!(refused, "connections are refused while the server is down");
            assert!(failed, "requests fail while down");
            checks += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(checks >= 1, "no check fell inside the outage");
    let back = outage.await.unwrap();
    assert!(
        back - started >= down,
        "restart_after returns once the server is back, not before ({:?})",
        back - started
    );
    tokio::net::TcpStream::connect(&addr)
        .await
        .expect("accepting again");
    assert_eq!(env.url(), format!("https://{addr}"));
    assert_eq!(
        api.get("kept").await.unwrap().metadata.name.as_deref(),
        Some("kept"),
        "the data survives the outage"
    );
}
