//! [`ManagerArgs`]: kubebuilder's manager flags as clap arguments.

use std::path::PathBuf;

use super::options::{ManagerOptions, MetricsServerOptions};
use crate::{
    leader_election::LeaderElectionOptions,
    shard::{ShardKey, ShardingOptions},
};

/// `--shards`: whether replicas share the work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Shards {
    /// Every replica runs the controllers only while it leads (with --leader-elect), or all
    /// of them run everything (without).
    #[default]
    Off,
    /// Every replica works on its share of the objects; shares follow the live replicas
    /// (one Lease each in the operator's namespace) as they join, leave and crash.
    Auto,
}

/// Log output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines (zap's "console" encoder).
    #[default]
    #[value(alias = "console")]
    Human,
    /// One JSON object per line.
    Json,
}

/// The flags of a kubebuilder-generated `cmd/main.go`, for the operator's clap `Parser`
/// (`#[command(flatten)] manager: ManagerArgs`).
#[derive(Clone, Debug, clap::Args)]
pub struct ManagerArgs {
    /// The address the metrics endpoint binds to: ":8443" for HTTPS, ":8080" for HTTP, "0" to
    /// disable.
    #[arg(long, default_value = "0")]
    pub metrics_bind_address: String,
    /// Serve metrics over HTTPS with authentication and authorization (false: plain HTTP).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub metrics_secure: bool,
    /// Directory with tls.crt and tls.key for the metrics server (self-signed if unset).
    #[arg(long)]
    pub metrics_cert_path: Option<PathBuf>,
    /// The address the probe endpoint binds to ("0" disables it).
    #[arg(long, default_value = ":8081")]
    pub health_probe_bind_address: String,
    /// Enable leader election, ensuring there is only one active controller manager.
    #[arg(long, default_value_t = false)]
    pub leader_elect: bool,
    /// Name of the leader election Lease (default: the project name followed by "-leader-election").
    #[arg(long)]
    pub leader_election_id: Option<String>,
    /// Namespace of the leader election Lease (default: the pod's namespace).
    #[arg(long)]
    pub leader_election_namespace: Option<String>,
    /// Release the lease on shutdown so a successor takes over at once.
    #[arg(long, default_value_t = false)]
    pub leader_election_release_on_cancel: bool,
    /// Spread the work over every replica: `auto` divides the objects among the live replicas
    /// (each holds a Lease in the leader election namespace) and rebalances as they come and go.
    #[arg(long, value_enum, default_value_t = Shards::Off, conflicts_with_all = ["shard_index", "shard_count"])]
    pub shards: Shards,
    /// A fixed share instead of `--shards auto`: this replica's index, from 0 to --shard-count - 1.
    #[arg(long, requires = "shard_count")]
    pub shard_index: Option<u32>,
    /// A fixed share instead of `--shards auto`: how many replicas share the objects.
    #[arg(long, requires = "shard_index")]
    pub shard_count: Option<u32>,
    /// What objects are sharded by: their uid (even spread) or their namespace (a namespace's
    /// objects together).
    #[arg(long, value_enum, default_value_t = ShardKey::Uid)]
    pub shard_key: ShardKey,
    /// Enable HTTP/2 for the metrics and webhook servers (off by default: CVE-2023-44487;
    /// needs kubeforge's `http2` cargo feature).
    #[arg(long, default_value_t = false)]
    pub enable_http2: bool,
    /// Log format: human (alias console) or json. Alias: --zap-encoder.
    #[arg(long, value_enum, default_value_t = LogFormat::Human, alias = "zap-encoder")]
    pub log_format: LogFormat,
    /// Log level or tracing filter (info, debug, "kubeforge=debug,info"). Alias: --zap-log-level.
    #[arg(long, default_value = "info", alias = "zap-log-level")]
    pub log_level: String,
    /// Development mode defaults (human logs at debug level), like --zap-devel.
    #[arg(long, default_value_t = false)]
    pub zap_devel: bool,
    /// The port the webhook server listens on.
    #[arg(long, default_value_t = crate::webhook::DEFAULT_PORT)]
    pub webhook_port: u16,
    /// Directory with the webhook server's tls.crt and tls.key (with --webhook-local: where the
    /// generated certificate is written).
    #[arg(long, default_value = crate::webhook::DEFAULT_CERT_DIR)]
    pub webhook_cert_dir: PathBuf,
    /// Local development (`make run`): serve webhooks on 127.0.0.1 with a generated self-signed
    /// certificate and install their configurations, pointing there, into the API server.
    #[arg(long, default_value_t = false)]
    pub webhook_local: bool,
}

impl Default for ManagerArgs {
    fn default() -> Self {
        Self {
            metrics_bind_address: "0".into(),
            metrics_secure: true,
            metrics_cert_path: None,
            health_probe_bind_address: ":8081".into(),
            leader_elect: false,
            leader_election_id: None,
            leader_election_namespace: None,
            leader_election_release_on_cancel: false,
            shards: Shards::Off,
            shard_index: None,
            shard_count: None,
            shard_key: ShardKey::Uid,
            enable_http2: false,
            log_format: LogFormat::Human,
            log_level: "info".into(),
            zap_devel: false,
            webhook_port: crate::webhook::DEFAULT_PORT,
            webhook_cert_dir: crate::webhook::DEFAULT_CERT_DIR.into(),
            webhook_local: false,
        }
    }
}

impl ManagerArgs {
    /// Turns the flags into options; `name` is the project name (used for the lease name).
    pub fn into_options(self, name: &str) -> ManagerOptions {
        let metrics =
            (!matches!(self.metrics_bind_address.trim(), "" | "0")).then(|| MetricsServerOptions {
                bind_address: self.metrics_bind_address.clone(),
                secure: self.metrics_secure,
                cert_dir: self.metrics_cert_path.clone(),
            });
        let leader_election = self.leader_elect.then(|| {
            let mut le = LeaderElectionOptions::new(
                self.leader_election_id
                    .clone()
                    .unwrap_or_else(|| format!("{name}-leader-election")),
            );
            le.namespace = self.leader_election_namespace.clone();
            le.release_on_cancel = self.leader_election_release_on_cancel;
            le
        });
        let group = format!("{name}-shard");
        let sharding = match (self.shards, self.shard_index, self.shard_count) {
            (_, Some(index), Some(count)) => Some(ShardingOptions::fixed(group, index, count)),
            (Shards::Auto, _, _) => Some(ShardingOptions::auto(group)),
            _ => None,
        }
        .map(|mut o| {
            o.key = self.shard_key;
            o.namespace = self.leader_election_namespace.clone();
            o
        });
        ManagerOptions {
            metrics,
            sharding,
            health_probe_bind_address: (!matches!(self.health_probe_bind_address.trim(), "" | "0"))
                .then(|| self.health_probe_bind_address.clone()),
            leader_election,
            enable_http2: self.enable_http2,
            ..ManagerOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        manager: ManagerArgs,
    }

    #[test]
    fn kubebuilder_flags_parse_into_options() {
        let cli = Cli::parse_from([
            "op",
            "--metrics-bind-address=:8443",
            "--leader-elect",
            "--health-probe-bind-address",
            ":9090",
            "--zap-encoder",
            "json",
        ]);
        assert_eq!(cli.manager.log_format, LogFormat::Json);
        let o = cli.manager.into_options("memcached-operator");
        let m = o.metrics.unwrap();
        assert_eq!(m.bind_address, ":8443");
        assert!(m.secure);
        assert_eq!(
            o.leader_election.unwrap().lease_name,
            "memcached-operator-leader-election"
        );
        assert_eq!(o.health_probe_bind_address.as_deref(), Some(":9090"));
    }

    #[test]
    fn defaults_disable_metrics_and_leader_election() {
        let o = Cli::parse_from(["op", "--metrics-secure=false"])
            .manager
            .into_options("x");
        assert!(o.metrics.is_none());
        assert!(o.leader_election.is_none());
        assert_eq!(o.health_probe_bind_address.as_deref(), Some(":8081"));
    }

    #[test]
    fn shard_flags_parse_into_options() {
        use crate::shard::ShardAssignment;
        let auto = Cli::parse_from(["op", "--shards", "auto", "--shard-key", "namespace"])
            .manager
            .into_options("memcached-operator")
            .sharding
            .unwrap();
        assert_eq!(auto.assignment, ShardAssignment::Auto);
        assert_eq!(auto.key, ShardKey::Namespace);
        assert_eq!(auto.group, "memcached-operator-shard");
        let fixed = Cli::parse_from(["op", "--shard-index=1", "--shard-count=3"])
            .manager
            .into_options("x")
            .sharding
            .unwrap();
        assert_eq!(
            fixed.assignment,
            ShardAssignment::Static { index: 1, count: 3 }
        );
        assert!(
            Cli::parse_from(["op"])
                .manager
                .into_options("x")
                .sharding
                .is_none()
        );
        // A fixed share needs both numbers, and is not `--shards auto`.
        for bad in [
            vec!["op", "--shard-index=1"],
            vec!["op", "--shard-count=3"],
            vec!["op", "--shards=auto", "--shard-index=1", "--shard-count=3"],
            vec!["op", "--shards=many"],
        ] {
            assert!(Cli::try_parse_from(&bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn webhook_flags_default_like_controller_runtime() {
        let defaults = Cli::parse_from(["op"]).manager;
        assert_eq!(defaults.webhook_port, 9443);
        assert_eq!(
            defaults.webhook_cert_dir,
            PathBuf::from("/tmp/k8s-webhook-server/serving-certs")
        );
        assert!(!defaults.webhook_local);
        assert_eq!(defaults.webhook_port, ManagerArgs::default().webhook_port);
        let local = Cli::parse_from([
            "op",
            "--webhook-local",
            "--webhook-port=0",
            "--webhook-cert-dir",
            "certs",
        ])
        .manager;
        assert!(local.webhook_local);
        assert_eq!(local.webhook_port, 0);
        assert_eq!(local.webhook_cert_dir, PathBuf::from("certs"));
    }
}
