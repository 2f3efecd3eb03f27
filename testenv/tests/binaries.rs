//! Binaries mode: a private control plane of real etcd, kube-apiserver and
//! kube-controller-manager binaries, shared by the environments of a test process and gone
//! when the process ends, however it ends.
//!
//! The tests needing the binaries skip themselves, saying why, unless they are found as
//! envtest finds them (`KUBEBUILDER_ASSETS`). The process-death tests run this test binary
//! again as a child that starts a control plane and then panics, aborts or is killed, and
//! check that its etcd, kube-apiserver and kube-controller-manager are gone afterwards.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kubeforge_testenv::{Binaries, CONTROLLER_MANAGER_VAR, Error, Mode, Policy, TestEnv};

/// Tells the child test how to end.
const CHILD_VAR: &str = "KUBEFORGE_TESTENV_CHILD_END";

/// The tests that start control planes run one at a time: each takes seconds of CPU.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The environment's binaries, or None after saying why the test is skipped.
fn binaries() -> Option<Binaries> {
    match Binaries::from_env().available() {
        Ok(()) => Some(Binaries::from_env()),
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

/// Whether the environment's binaries include kube-controller-manager (and it is not
/// turned off).
fn has_controller_manager() -> bool {
    let assets = std::env::var_os("KUBEBUILDER_ASSETS").map(PathBuf::from);
    let off = std::env::var(CONTROLLER_MANAGER_VAR)
        .is_ok_and(|v| matches!(v.as_str(), "off" | "false" | "0" | "no"));
    !off && assets.is_some_and(|d| d.join("kube-controller-manager").is_file())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn configmap(name: &str, owner: Option<&ConfigMap>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            owner_references: owner.map(|o| {
                vec![OwnerReference {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    name: o.metadata.name.clone().unwrap(),
                    uid: o.metadata.uid.clone().unwrap(),
                    ..Default::default()
                }]
            }),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Whether `check` holds within `limit`, polled.
async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Creates an owner and a dependent, deletes the owner, and tells whether the dependent
/// was collected within `limit`.
async fn dependent_collected(env: &TestEnv, limit: Duration) -> bool {
    let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
    let owner = cms
        .create(&PostParams::default(), &configmap("owner", None))
        .await
        .unwrap();
    cms.create(
        &PostParams::default(),
        &configmap("dependent", Some(&owner)),
    )
    .await
    .unwrap();
    cms.delete("owner", &DeleteParams::background())
        .await
        .unwrap();
    eventually(limit, || async {
        matches!(cms.get("dependent").await, Err(kube::Error::Api(s)) if s.code == 404)
    })
    .await
}

#[test]
fn missing_binaries_are_named_with_the_fix() {
    let empty = tempfile::tempdir().unwrap();
    let err = runtime()
        .block_on(
            TestEnv::builder()
                .mode(Mode::Binaries(Binaries::in_dir(empty.path())))
                .start(),
        )
        .err()
        .expect("no binaries, no control plane");
    assert!(
        matches!(err, Error::BinaryNotFound { name: "etcd", .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains(&empty.path().join("etcd").display().to_string()),
        "{message}"
    );
    assert!(message.contains("KUBEBUILDER_ASSETS"), "{message}");
    assert!(message.contains("setup-envtest"), "{message}");
}

#[test]
fn a_policy_with_its_own_functions_is_refused_on_a_real_server() {
    let empty = tempfile::tempdir().unwrap();
    let start = |policy: Policy| {
        runtime().block_on(
            TestEnv::builder()
                .mode(Mode::Binaries(Binaries::in_dir(empty.path())))
                .policy(policy)
                .start(),
        )
    };
    let err = start(Policy::default().with_authorize(|_| true))
        .err()
        .expect("a custom authorizer cannot run on a real server");
    assert!(
        matches!(err, Error::PolicyNeedsEmbedded("binaries")),
        "{err:?}"
    );
    assert!(err.to_string().contains("Mode::Embedded"), "{err}");
    // Allowing everything is the embedded server's alone too.
    let err = start(Policy::allow_all())
        .err()
        .expect("a real server authorizes with RBAC");
    assert!(
        matches!(err, Error::PolicyNeedsEmbedded("binaries")),
        "{err:?}"
    );
    // RBAC is what a real server does anyway: the start goes on (and stops at the missing
    // binaries of this empty directory).
    let err = start(Policy::rbac()).err().expect("no binaries");
    assert!(
        matches!(err, Error::BinaryNotFound { name: "etcd", .. }),
        "{err:?}"
    );
}

#[test]
fn environments_share_one_control_plane_with_a_namespace_each() {
    let Some(binaries) = binaries() else { return };
    let _heavy = heavy();
    let mode = Mode::Binaries(binaries);
    // The first environment starts the control plane from a runtime on a thread that ends
    // at once: the control plane must outlive both (its processes are forked by a thread of
    // their own, whose death alone would kill them).
    let first_mode = mode.clone();
    let first = std::thread::spawn(move || {
        runtime().block_on(async move {
            let env = TestEnv::builder()
                .mode(first_mode)
                .start()
                .await
                .expect("the control plane starts");
            (env.url(), env.namespace().to_string())
        })
    })
    .join()
    .unwrap();

    runtime().block_on(async move {
        let env = TestEnv::builder().mode(mode.clone()).start().await.unwrap();
        assert_eq!(env.url(), first.0, "one control plane per process");
        assert_ne!(env.namespace(), first.1, "a namespace per environment");
        assert!(env.namespace().starts_with("kubeforge-test-"));
        assert!(env.is_real_cluster() && !env.is_existing_cluster());
        assert_eq!(env.mode_name(), "binaries");

        let faults = env.faults().unwrap_err();
        assert!(faults.to_string().contains("KUBEFORGE_TEST_CLUSTER=binaries"), "{faults}");
        let route = env
            .route_service(env.namespace(), "hook", "127.0.0.1:1".parse().unwrap())
            .unwrap_err();
        assert!(matches!(route, Error::RouteNeedsEmbedded(_)), "{route:?}");

        // The kubeconfig is the admin's: kubectl reads the environment's namespace with it.
        if let Ok(out) = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(env.kubeconfig_path())
            .args(["get", "namespace", env.namespace(), "-o", "name"])
            .output()
        {
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(
                String::from_utf8_lossy(&out.stdout).trim(),
                format!("namespace/{}", env.namespace())
            );
        }

        // A real kube-apiserver answers: its version, and a 404 Status for a missing object.
        let version = env.client().apiserver_version().await.unwrap();
        assert_eq!(version.major, "1");
        let cms: Api<ConfigMap> = Api::namespaced(env.client(), env.namespace());
        let missing = cms.get("missing").await.unwrap_err();
        assert!(matches!(missing, kube::Error::Api(ref s) if s.code == 404), "{missing:?}");

        if has_controller_manager() {
            assert!(
                dependent_collected(&env, Duration::from_secs(60)).await,
                "kube-controller-manager's garbage collector deletes the dependent"
            );
            // Dropping the environment deletes its namespace, and the namespace controller
            // really removes it.
            let namespaces: Api<Namespace> = Api::all(env.client());
            let name = env.namespace().to_string();
            drop(env);
            assert!(
                eventually(Duration::from_secs(60), || async {
                    matches!(namespaces.get(&name).await, Err(kube::Error::Api(s)) if s.code == 404)
                })
                .await,
                "the namespace of a dropped environment is removed"
            );
        } else {
            eprintln!("kube-controller-manager is not in KUBEBUILDER_ASSETS: garbage collection not checked");
        }
    });
}

#[test]
fn controller_manager_can_be_turned_off() {
    let Some(binaries) = binaries() else { return };
    let _heavy = heavy();
    runtime().block_on(async move {
        let env = TestEnv::builder()
            .mode(Mode::Binaries(binaries.controller_manager(false)))
            .start()
            .await
            .unwrap();
        // Nothing collects garbage on this control plane.
        assert!(
            !dependent_collected(&env, Duration::from_secs(3)).await,
            "without kube-controller-manager the dependent stays"
        );
    });
}

/// How the child test process ends.
#[derive(Clone, Copy, Debug)]
enum End {
    Panic,
    Abort,
    Killed,
}

/// A process as /proc shows it.
#[derive(Debug, Clone)]
struct Proc {
    pid: u32,
    name: String,
    start_time: u64,
}

/// Parent PID, name, state and start time of `pid`, from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(u32, String, char, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text[open + 1..close].to_string();
    let fields: Vec<&str> = text[close + 2..].split_whitespace().collect();
    let state = fields.first()?.chars().next()?;
    let ppid = fields.get(1)?.parse().ok()?;
    let start_time = fields.get(19)?.parse().ok()?;
    Some((ppid, name, state, start_time))
}

/// The children of `parent`.
fn children(parent: u32) -> Vec<Proc> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
            continue;
        };
        if let Some((ppid, name, _, start_time)) = stat(pid)
            && ppid == parent
        {
            found.push(Proc {
                pid,
                name,
                start_time,
            });
        }
    }
    found
}

/// Whether `process` is still running (a zombie has stopped running).
fn running(process: &Proc) -> bool {
    stat(process.pid)
        .is_some_and(|(_, _, state, start)| start == process.start_time && state != 'Z')
}

/// Runs the child test, ending as `end`, and checks that its control plane is gone after.
fn control_plane_stops_when_the_process(end: End, controller_manager: bool) {
    let Some(_) = binaries() else { return };
    let _heavy = heavy();
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "child_starts_a_control_plane_then_ends",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, format!("{end:?}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if !controller_manager {
        command.env(CONTROLLER_MANAGER_VAR, "off");
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let kubeconfig = loop {
        line.clear();
        if stdout.read_line(&mut line).unwrap() == 0 {
            let status = child.wait().unwrap();
            panic!(
                "the child ended ({status}) before its control plane was ready:\n{}",
                errors.join().unwrap()
            );
        }
        // libtest may print the test's name on the same line first.
        if let Some((_, path)) = line.trim().split_once("READY ") {
            break PathBuf::from(path);
        }
    };
    let dir = kubeconfig.parent().unwrap().to_path_buf();
    assert!(dir.is_dir(), "{}", dir.display());
    let processes = children(child.id());
    let names: Vec<&str> = processes.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"etcd"), "{names:?}");
    assert!(names.contains(&"kube-apiserver"), "{names:?}");
    // /proc shows names cut to 15 characters.
    assert_eq!(
        names.contains(&"kube-controller"),
        controller_manager,
        "{names:?}"
    );

    match end {
        End::Panic | End::Abort => {
            let mut stdin = child.stdin.take().unwrap();
            writeln!(stdin, "end").unwrap();
        }
        End::Killed => child.kill().unwrap(),
    }
    let status = child.wait().unwrap();
    match end {
        End::Panic => assert_eq!(status.code(), Some(101), "the test failed: {status}"),
        End::Abort => {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(6), "SIGABRT: {status}");
        }
        End::Killed => {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(status.signal(), Some(9), "SIGKILL: {status}");
        }
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline && (processes.iter().any(running) || Path::new(&dir).exists()) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left: Vec<&Proc> = processes.iter().filter(|p| running(p)).collect();
    assert!(
        left.is_empty(),
        "still running after the test process ended: {left:?}"
    );
    assert!(!dir.exists(), "{} was not removed", dir.display());
}

#[test]
fn control_plane_stops_when_a_test_panics() {
    control_plane_stops_when_the_process(End::Panic, true);
}

#[test]
fn control_plane_stops_when_the_test_process_aborts() {
    // Also: the environment variable turns kube-controller-manager off.
    control_plane_stops_when_the_process(End::Abort, false);
}

#[test]
fn control_plane_stops_when_the_test_process_is_killed() {
    control_plane_stops_when_the_process(End::Killed, true);
}

/// The child of the process-death tests (run by them, ignored otherwise): starts an
/// environment, says where its kubeconfig is, waits for a line on stdin, then ends as
/// `KUBEFORGE_TESTENV_CHILD_END` says.
#[test]
#[ignore = "run by the control_plane_stops_* tests"]
fn child_starts_a_control_plane_then_ends() {
    let Ok(end) = std::env::var(CHILD_VAR) else {
        return;
    };
    let rt = runtime();
    let env = rt
        .block_on(
            TestEnv::builder()
                .mode(Mode::Binaries(Binaries::from_env()))
                .start(),
        )
        .unwrap();
    println!("READY {}", env.kubeconfig_path().display());
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    match end.as_str() {
        "Panic" => {
            std::io::stdin().read_line(&mut line).unwrap();
            panic!("the test panics with its control plane running");
        }
        "Abort" => {
            std::io::stdin().read_line(&mut line).unwrap();
            std::process::abort();
        }
        _ => loop {
            std::thread::sleep(Duration::from_secs(60));
        },
    }
}
