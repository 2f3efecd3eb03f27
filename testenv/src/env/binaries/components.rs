//! The command lines of etcd, kube-apiserver and kube-controller-manager.
//!
//! The flags are those envtest gives the same binaries (so setup-envtest's downloads run
//! unchanged), plus client-certificate authentication for the admin user and, for
//! kube-controller-manager, what its controllers need (service account key, CA for CSR
//! signing). Everything listens on 127.0.0.1 only.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::pki::Pki;
use crate::Error;

/// Addresses and files shared by the components of one control plane.
pub struct Layout {
    /// The control plane's directory (removed when the test process ends).
    pub dir: PathBuf,
    /// etcd's client port.
    pub etcd_port: u16,
    /// etcd's peer port (a single member, but etcd listens on it anyway).
    pub etcd_peer_port: u16,
    /// kube-apiserver's secure port.
    pub api_port: u16,
}

/// The range Kubernetes' service cluster IPs come from (envtest's).
const SERVICE_CLUSTER_IP_RANGE: &str = "10.0.0.0/24";

impl Layout {
    /// etcd's client URL.
    pub fn etcd_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.etcd_port)
    }

    /// kube-apiserver's URL.
    pub fn api_url(&self) -> String {
        format!("https://127.0.0.1:{}", self.api_port)
    }

    /// The admin kubeconfig (also used by kube-controller-manager).
    pub fn kubeconfig(&self) -> PathBuf {
        self.dir.join("admin.kubeconfig")
    }

    /// The log file of a component.
    pub fn log(&self, component: &str) -> PathBuf {
        self.dir.join("logs").join(format!("{component}.log"))
    }

    /// etcd's data directory.
    pub fn etcd_data(&self) -> PathBuf {
        self.dir.join("etcd-data")
    }

    /// The PKI directory.
    pub fn pki(&self) -> PathBuf {
        self.dir.join("pki")
    }

    /// A command for `binary` whose output goes to the component's log file.
    fn command(&self, binary: &Path, component: &str) -> Result<Command, Error> {
        let path = self.log(component);
        let log = File::create(&path).map_err(|source| Error::Write {
            path: path.clone(),
            source,
        })?;
        let err = log
            .try_clone()
            .map_err(|source| Error::Write { path, source })?;
        let mut command = Command::new(binary);
        command
            .stdin(Stdio::null())
            .stdout(Stdio::from(log))
            .stderr(Stdio::from(err));
        Ok(command)
    }

    /// etcd: one member, plain HTTP on 127.0.0.1, no fsync (the data is thrown away).
    pub fn etcd(&self, binary: &Path, no_fsync: bool) -> Result<Command, Error> {
        let mut command = self.command(binary, "etcd")?;
        let peer = format!("http://127.0.0.1:{}", self.etcd_peer_port);
        command
            .arg(format!("--data-dir={}", self.etcd_data().display()))
            .arg(format!("--listen-client-urls={}", self.etcd_url()))
            .arg(format!("--advertise-client-urls={}", self.etcd_url()))
            .arg(format!("--listen-peer-urls={peer}"))
            .arg(format!("--initial-advertise-peer-urls={peer}"))
            .arg(format!("--initial-cluster=default={peer}"))
            .arg("--log-level=warn");
        if no_fsync {
            command.arg("--unsafe-no-fsync=true");
        }
        Ok(command)
    }

    /// kube-apiserver: envtest's flags, client certificates verified against the CA, RBAC.
    /// The ServiceAccount admission plugin stays on (the real default) when
    /// kube-controller-manager runs to create the accounts it looks up; envtest turns it off.
    pub fn kube_apiserver(
        &self,
        binary: &Path,
        pki: &Pki,
        service_accounts: bool,
    ) -> Result<Command, Error> {
        let mut command = self.command(binary, "kube-apiserver")?;
        command
            .arg(format!("--etcd-servers={}", self.etcd_url()))
            .arg("--advertise-address=127.0.0.1")
            .arg("--bind-address=127.0.0.1")
            .arg(format!("--secure-port={}", self.api_port))
            .arg(format!("--cert-dir={}", self.pki().display()))
            .arg(format!("--tls-cert-file={}", pki.serving_cert.display()))
            .arg(format!(
                "--tls-private-key-file={}",
                pki.serving_key.display()
            ))
            .arg(format!("--client-ca-file={}", pki.ca_cert.display()))
            .arg("--authorization-mode=RBAC")
            .arg(format!("--service-account-issuer={}/", self.api_url()))
            .arg(format!(
                "--service-account-key-file={}",
                pki.sa_pub.display()
            ))
            .arg(format!(
                "--service-account-signing-key-file={}",
                pki.sa_key.display()
            ))
            .arg(format!(
                "--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}"
            ))
            .arg("--allow-privileged=true")
            .arg("--profiling=false");
        if !service_accounts {
            command.arg("--disable-admission-plugins=ServiceAccount");
        }
        Ok(command)
    }

    /// kube-controller-manager as the admin user (every controller may do everything), no
    /// serving port of its own, no leader election.
    pub fn kube_controller_manager(&self, binary: &Path, pki: &Pki) -> Result<Command, Error> {
        let mut command = self.command(binary, "kube-controller-manager")?;
        command
            .arg(format!("--kubeconfig={}", self.kubeconfig().display()))
            .arg("--secure-port=0")
            .arg("--leader-elect=false")
            .arg("--controllers=*,-nodeipam")
            .arg(format!("--root-ca-file={}", pki.ca_cert.display()))
            .arg(format!(
                "--service-account-private-key-file={}",
                pki.sa_key.display()
            ))
            .arg(format!(
                "--cluster-signing-cert-file={}",
                pki.ca_cert.display()
            ))
            .arg(format!(
                "--cluster-signing-key-file={}",
                pki.ca_key.display()
            ))
            .arg(format!(
                "--service-cluster-ip-range={SERVICE_CLUSTER_IP_RANGE}"
            ))
            .arg("--profiling=false");
        Ok(command)
    }

    /// The admin kubeconfig: the CA and the client certificate by path.
    pub fn kubeconfig_yaml(&self, pki: &Pki) -> String {
        let context = "kubeforge-testenv";
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: {context}\n  cluster:\n    server: {url}\n    certificate-authority: {ca}\nusers:\n- name: {user}\n  user:\n    client-certificate: {cert}\n    client-key: {key}\ncontexts:\n- name: {context}\n  context:\n    cluster: {context}\n    user: {user}\ncurrent-context: {context}\npreferences: {{}}\n",
            url = self.api_url(),
            ca = pki.ca_cert.display(),
            user = super::pki::ADMIN_USER,
            cert = pki.admin_cert.display(),
            key = pki.admin_key.display(),
        )
    }
}

/// Whether this etcd knows `--unsafe-no-fsync` (3.5 and later), as envtest checks it.
pub fn etcd_has_no_fsync(binary: &Path) -> bool {
    Command::new(binary)
        .arg("--help")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|out| {
            let text = [out.stdout, out.stderr].concat();
            String::from_utf8_lossy(&text).contains("unsafe-no-fsync")
        })
}
