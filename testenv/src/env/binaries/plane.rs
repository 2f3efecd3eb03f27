//! Starting a private control plane and sharing it within the test process.
//!
//! The first environment asking for a set of binaries starts etcd, kube-apiserver and (when
//! it runs) kube-controller-manager on random free ports of 127.0.0.1; every later
//! environment of the process with the same binaries uses it. It stops when the process
//! ends (see `processes`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::components::{self, Layout};
use super::config::Resolved;
use super::pki;
use super::processes::{self, Supervisor};
use crate::Error;

/// How long etcd and kube-apiserver may take to become ready (a loaded CI machine can be
/// slow; on an idle one it takes a few seconds).
const READY_TIMEOUT: Duration = Duration::from_secs(300);

/// How often readiness is polled.
const POLL: Duration = Duration::from_millis(50);

/// Attempts at starting, for ports taken between choosing and binding them.
const ATTEMPTS: usize = 3;

/// A running control plane. Never dropped once started: it lives until the process ends.
pub struct ControlPlane {
    /// The admin kubeconfig.
    pub kubeconfig: PathBuf,
    /// The processes by component name, to report one that stopped.
    children: Mutex<Vec<(&'static str, Child)>>,
    /// Where the logs are.
    layout: Layout,
    /// Stops everything when the process ends.
    supervisor: Supervisor,
}

type Slot = Arc<tokio::sync::Mutex<Option<Result<Arc<ControlPlane>, String>>>>;

/// The control plane of `binaries`, started on first use. A failed start is remembered: the
/// test that tried gets its error, and the other tests of the process fail at once with its
/// message.
pub async fn shared(binaries: &Resolved) -> Result<Arc<ControlPlane>, Error> {
    static PLANES: OnceLock<Mutex<HashMap<Resolved, Slot>>> = OnceLock::new();
    let slot = PLANES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(binaries.clone())
        .or_default()
        .clone();
    // Held across the start: the tests asking meanwhile wait for its outcome.
    let mut slot = slot.lock().await;
    match &*slot {
        Some(Ok(plane)) => return Ok(plane.clone()),
        Some(Err(earlier)) => {
            return Err(Error::control_plane(format!(
                "an earlier start in this process failed: {earlier}"
            )));
        }
        None => {}
    }
    match ControlPlane::start(binaries).await {
        Ok(plane) => {
            let plane = Arc::new(plane);
            *slot = Some(Ok(plane.clone()));
            Ok(plane)
        }
        Err(e) => {
            *slot = Some(Err(match &e {
                Error::ControlPlane { message, source } => match source {
                    Some(source) => format!("{message}: {source}"),
                    None => message.clone(),
                },
                other => other.to_string(),
            }));
            Err(e)
        }
    }
}

/// A random port of 127.0.0.1 that nothing listens on, below the ephemeral range (so that
/// the kernel does not hand it to an outgoing connection meanwhile).
fn free_port(taken: &[u16]) -> Result<u16, Error> {
    use std::hash::{BuildHasher, Hasher};
    for _ in 0..200 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        let port = 20000 + (hasher.finish() % 12000) as u16;
        if !taken.contains(&port) && std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    Err(Error::control_plane(
        "no free port found on 127.0.0.1 between 20000 and 32000",
    ))
}

/// The last lines of a log file, for error messages.
fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(15);
    format!(
        "--- last lines of {}:\n{}",
        path.display(),
        lines[start..].join("\n")
    )
}

/// Why a component stopped or did not become ready, with the end of its log.
fn component_failed(layout: &Layout, component: &str, what: &str) -> Error {
    Error::control_plane(format!(
        "{component} {what}\n{}",
        tail(&layout.log(component))
    ))
}

/// Errors when `child` has exited.
fn check_alive(child: &mut Child, layout: &Layout, component: &str) -> Result<(), Error> {
    match child.try_wait() {
        Ok(None) => Ok(()),
        Ok(Some(status)) => Err(component_failed(
            layout,
            component,
            &format!("exited ({status})"),
        )),
        Err(e) => Err(Error::control_plane_by(
            format!("could not check whether {component} runs"),
            e,
        )),
    }
}

/// Whether etcd answers `/health` with `"health":"true"`.
async fn etcd_healthy(port: u16) -> bool {
    let check = async {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream
            .write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            .await?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await?;
        Ok::<_, std::io::Error>(String::from_utf8_lossy(&answer).contains("\"health\":\"true\""))
    };
    tokio::time::timeout(Duration::from_secs(2), check)
        .await
        .is_ok_and(|r| r.is_ok_and(|healthy| healthy))
}

/// Whether kube-apiserver is ready and has created the `default` namespace.
async fn apiserver_ready(client: &kube::Client) -> bool {
    let get = |path: &str| {
        http::Request::get(path)
            .body(Vec::new())
            .expect("a valid request")
    };
    matches!(
        client.request_text(get("/readyz")).await.as_deref(),
        Ok("ok")
    ) && client
        .request_text(get("/api/v1/namespaces/default"))
        .await
        .is_ok()
}

/// A client for readiness checks: no retries, short timeouts.
async fn probe_client(kubeconfig: &Path) -> Result<kube::Client, Error> {
    let file =
        kube::config::Kubeconfig::read_from(kubeconfig).map_err(|e| Error::Client(e.into()))?;
    let mut config = kube::Config::from_custom_kubeconfig(file, &Default::default())
        .await
        .map_err(|e| Error::Client(e.into()))?;
    config.default_retry = false;
    config.connect_timeout = Some(Duration::from_secs(2));
    config.read_timeout = Some(Duration::from_secs(5));
    kube::Client::try_from(config).map_err(|e| Error::Client(e.into()))
}

fn mkdir(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(path)
        .map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
}

impl ControlPlane {
    /// Starts the control plane, retrying when a chosen port was taken meanwhile.
    async fn start(binaries: &Resolved) -> Result<ControlPlane, Error> {
        let mut attempt = 1;
        loop {
            match Self::start_once(binaries).await {
                Err(Error::ControlPlane { message, .. })
                    if attempt < ATTEMPTS && message.contains("address already in use") =>
                {
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    async fn start_once(binaries: &Resolved) -> Result<ControlPlane, Error> {
        let started = Instant::now();
        let dir = crate::support::scratch::ScratchDir::new("kubeforge-control-plane-")
            .map_err(|source| Error::Write {
                path: std::env::temp_dir(),
                source,
            })?
            .keep();
        // From here on the supervisor removes the directory, when this start fails or when
        // the process ends.
        let supervisor = Supervisor::start(&dir).map_err(|e| {
            let _ = std::fs::remove_dir_all(&dir);
            Error::control_plane_by("could not start the supervisor (sh)", e)
        })?;
        let etcd_port = free_port(&[])?;
        let etcd_peer_port = free_port(&[etcd_port])?;
        let api_port = free_port(&[etcd_port, etcd_peer_port])?;
        let layout = Layout {
            dir,
            etcd_port,
            etcd_peer_port,
            api_port,
        };
        for sub in [layout.dir.join("logs"), layout.pki(), layout.etcd_data()] {
            mkdir(&sub)?;
        }
        let mut children = Vec::new();
        let result = Self::launch(binaries, &layout, &supervisor, &mut children).await;
        if let Err(e) = result {
            for (_, child) in &mut children {
                let _ = child.kill();
                let _ = child.wait();
                supervisor.forget(child.id());
            }
            // Dropping the supervisor removes the directory.
            drop(supervisor);
            return Err(e);
        }
        tracing::debug!(
            url = %layout.api_url(),
            dir = %layout.dir.display(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "test control plane ready"
        );
        Ok(ControlPlane {
            kubeconfig: layout.kubeconfig(),
            children: Mutex::new(children),
            layout,
            supervisor,
        })
    }

    /// Errors when a component has stopped (it crashed, or something killed it).
    pub fn check(&self) -> Result<(), Error> {
        let mut children = self
            .children
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (component, child) in children.iter_mut() {
            if let Err(e) = check_alive(child, &self.layout, component) {
                self.supervisor.forget(child.id());
                return Err(e);
            }
        }
        Ok(())
    }

    /// Starts etcd, writes the certificates meanwhile, then kube-apiserver and
    /// kube-controller-manager, each once the one it needs is ready.
    async fn launch(
        binaries: &Resolved,
        layout: &Layout,
        supervisor: &Supervisor,
        children: &mut Vec<(&'static str, Child)>,
    ) -> Result<(), Error> {
        let spawn = |command, component: &'static str| {
            processes::spawn(command, supervisor)
                .map(|child| (component, child))
                .map_err(|e| Error::control_plane_by(format!("could not start {component}"), e))
        };
        let no_fsync = components::etcd_has_no_fsync(&binaries.etcd);
        children.push(spawn(layout.etcd(&binaries.etcd, no_fsync)?, "etcd")?);

        let pki = pki::write(&layout.pki())?;
        let kubeconfig = layout.kubeconfig();
        std::fs::write(&kubeconfig, layout.kubeconfig_yaml(&pki)).map_err(|source| {
            Error::Write {
                path: kubeconfig.clone(),
                source,
            }
        })?;

        let deadline = Instant::now() + READY_TIMEOUT;
        while !etcd_healthy(layout.etcd_port).await {
            check_alive(&mut children[0].1, layout, "etcd")?;
            if Instant::now() > deadline {
                return Err(component_failed(layout, "etcd", "did not become healthy"));
            }
            tokio::time::sleep(POLL).await;
        }

        let apiserver = layout.kube_apiserver(
            &binaries.kube_apiserver,
            &pki,
            binaries.kube_controller_manager.is_some(),
        )?;
        children.push(spawn(apiserver, "kube-apiserver")?);
        let client = probe_client(&kubeconfig).await?;
        while !apiserver_ready(&client).await {
            check_alive(&mut children[1].1, layout, "kube-apiserver")?;
            check_alive(&mut children[0].1, layout, "etcd")?;
            if Instant::now() > deadline {
                return Err(component_failed(
                    layout,
                    "kube-apiserver",
                    &format!("was not ready within {}s", READY_TIMEOUT.as_secs()),
                ));
            }
            tokio::time::sleep(POLL).await;
        }

        if let Some(kcm) = &binaries.kube_controller_manager {
            let command = layout.kube_controller_manager(kcm, &pki)?;
            children.push(spawn(command, "kube-controller-manager")?);
        }
        Ok(())
    }
}
