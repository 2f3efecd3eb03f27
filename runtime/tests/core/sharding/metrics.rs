//! The `kubeforge_shard_*` metrics follow the ranges, objects and handovers.

use super::*;

/// The value of `series` (`name{labels}` exactly as rendered) in a metrics text.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .find(|(s, _)| *s == series)
        .and_then(|(_, v)| v.parse().ok())
}

/// One replica's `kubeforge_shard_*` samples (counters absent until counted read as 0).
#[derive(Debug, PartialEq)]
struct ShardSamples {
    owned_ranges: Option<f64>,
    owned_widgets: Option<f64>,
    members: Option<f64>,
    acquired: f64,
    released: f64,
    takeovers: f64,
    takeover_seconds: f64,
}

fn shard_samples(metrics: &kubeforge::metrics::Metrics) -> ShardSamples {
    let text = metrics.render();
    let counter = |s: &str| sample(&text, s).unwrap_or(0.0);
    ShardSamples {
        owned_ranges: sample(&text, "kubeforge_shard_owned_ranges"),
        owned_widgets: sample(
            &text,
            "kubeforge_shard_owned_objects{kind=\"test.kubeforge.dev/v1/Widget\"}",
        ),
        members: sample(&text, "kubeforge_shard_members"),
        acquired: counter("kubeforge_shard_handovers_total{direction=\"acquired\"}"),
        released: counter("kubeforge_shard_handovers_total{direction=\"released\"}"),
        takeovers: counter("kubeforge_shard_takeover_seconds_count"),
        takeover_seconds: counter("kubeforge_shard_takeover_seconds_sum"),
    }
}

/// How many of the ring's 64 ranges `replica` works on, and how many of `hashes` fall in them.
fn owned(replica: &Replica, hashes: &HashMap<String, u64>) -> (f64, f64) {
    let active = replica.gate.active();
    let objects = hashes.values().filter(|h| active.contains(**h)).count();
    ((active.fraction() * 64.0).round(), objects as f64)
}

/// Waits until `replica`'s owned ranges, owned widgets and members metrics say what its gate
/// and the group say.
async fn metrics_settle(replica: &Replica, hashes: &HashMap<String, u64>, members: f64) {
    let what = format!("{}'s shard metrics to match its ranges", replica.name);
    eventually(Duration::from_secs(30), &what, || async {
        let (ranges, objects) = owned(replica, hashes);
        let s = shard_samples(&replica.metrics);
        s.owned_ranges == Some(ranges)
            && s.owned_widgets == Some(objects)
            && s.members == Some(members)
    })
    .await;
}

/// The `kubeforge_shard_*` metrics as the manager renders them for `/metrics`, through one
/// replica alone, a second joining and the second leaving gracefully: owned ranges and objects
/// follow the gate, every range changing hands is counted on both sides, and every acquired
/// range's takeover time is observed.
#[tokio::test]
async fn shard_metrics_follow_ranges_objects_and_handovers() {
    const OBJECTS: usize = 40;
    let env = env().await;
    let api: Api<Widget> = Api::namespaced(env.client(), env.namespace());
    let hashes = create_widgets(&api, "m", OBJECTS).await;
    let tracker = Arc::new(Tracker::default());

    // Alone: the whole ring, every object, one member; 64 ranges acquired, each observed.
    let a = start(&env, "a", sharding("a"), &tracker);
    eventually(Duration::from_secs(60), "a to own the ring", || async {
        a.gate.active().is_full()
    })
    .await;
    metrics_settle(&a, &hashes, 1.0).await;
    let alone = shard_samples(&a.metrics);
    println!("a alone: {alone:?}");
    assert_eq!(alone.owned_ranges, Some(64.0));
    assert_eq!(alone.owned_widgets, Some(OBJECTS as f64));
    assert_eq!((alone.acquired, alone.released), (64.0, 0.0));
    assert_eq!(alone.takeovers, 64.0);

    // b joins: a hands over exactly b's half, b acquires it; b waited at least one round for
    // each range (a had to release it first).
    let joined = Instant::now();
    let b = start(&env, "b", sharding("b"), &tracker);
    settle("a and b to split the ring", &[&a, &b]).await;
    metrics_settle(&a, &hashes, 2.0).await;
    metrics_settle(&b, &hashes, 2.0).await;
    let waited = joined.elapsed().as_secs_f64();
    let (sa, sb) = (shard_samples(&a.metrics), shard_samples(&b.metrics));
    println!("after b joined: a {sa:?}, b {sb:?}");
    let (a_ranges, b_ranges) = (sa.owned_ranges.unwrap(), sb.owned_ranges.unwrap());
    assert_eq!((a_ranges, b_ranges), (32.0, 32.0));
    assert_eq!(
        sa.owned_widgets.unwrap() + sb.owned_widgets.unwrap(),
        OBJECTS as f64
    );
    assert_eq!((sa.acquired, sa.released), (64.0, 64.0 - a_ranges));
    assert_eq!((sb.acquired, sb.released), (b_ranges, 0.0));
    assert_eq!((sa.takeovers, sb.takeovers), (64.0, b_ranges));
    assert!(
        sb.takeover_seconds >= b_ranges * RETRY.as_secs_f64() / 2.0
            && sb.takeover_seconds <= b_ranges * waited,
        "b's {b_ranges} takeovers took {} s in all, {waited} s after it started",
        sb.takeover_seconds
    );

    // b leaves gracefully: it counts its ranges released, a acquires them again.
    b.shutdown.shutdown();
    b.task.await.unwrap().unwrap();
    eventually(
        Duration::from_secs(30),
        "a to own the ring again",
        || async { a.gate.active().is_full() },
    )
    .await;
    metrics_settle(&a, &hashes, 1.0).await;
    let (sa, sb) = (shard_samples(&a.metrics), shard_samples(&b.metrics));
    println!("after b left: a {sa:?}, b {sb:?}");
    assert_eq!(sb.owned_ranges, Some(0.0));
    assert_eq!((sb.acquired, sb.released), (b_ranges, b_ranges));
    assert_eq!(sa.owned_widgets, Some(OBJECTS as f64));
    assert_eq!(
        (sa.acquired, sa.released, sa.takeovers),
        (64.0 + b_ranges, 64.0 - a_ranges, 64.0 + b_ranges)
    );
    assert_no_overlaps(&tracker, "metrics");
    a.shutdown.shutdown();
    a.task.await.unwrap().unwrap();
}
