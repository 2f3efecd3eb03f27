//! The command line: every command, flag, default and help text.

use std::path::PathBuf;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

/// kubeforge scaffolds Kubernetes operators in Rust, the way kubebuilder does in Go.
#[derive(Debug, Parser)]
#[command(
    name = "kubeforge",
    version,
    about = "Scaffold Kubernetes operators in Rust: projects, APIs and controllers, tested against an embedded API server.",
    after_help = "Example:\n  mkdir memcached-operator && cd memcached-operator\n  kubeforge init --domain example.com\n  kubeforge create api --group cache --version v1alpha1 --kind Memcached\n  make test"
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Initialize a new operator project (Cargo.toml, PROJECT, Makefile, Dockerfile, src/, config/).
    #[command(
        after_help = "Examples:\n  # a project named after the current directory, for API groups <group>.example.com\n  kubeforge init --domain example.com\n\n  # a multigroup project in a new directory\n  kubeforge init --domain example.com --project-name guestbook --multigroup --dir guestbook"
    )]
    Init(InitArgs),
    /// Scaffold a Kubernetes API or controller.
    #[command(
        subcommand,
        after_help = "Example:\n  kubeforge create api --group cache --version v1alpha1 --kind Memcached"
    )]
    Create(CreateCommand),
    /// Write CRDs and RBAC into config/ from the project's Rust types (`cargo run -- manifests`).
    #[command(
        after_help = "Examples:\n  kubeforge generate           # the same as `make manifests`\n  kubeforge generate --check   # CI: fail when config/ is stale (`make verify-manifests`)"
    )]
    Generate(GenerateArgs),
    /// Bring generated parts of the project up to date with their sources.
    #[command(
        subcommand,
        after_help = "Example:\n  kubeforge update external   # regenerate the types of external CRDs, print the diff"
    )]
    Update(UpdateCommand),
    /// Commands that may still change: re-scaffold a project, update it to this kubeforge.
    #[command(
        subcommand,
        after_help = "Examples:\n  kubeforge alpha generate --output-dir ../regenerated\n  kubeforge alpha update"
    )]
    Alpha(AlphaCommand),
    /// Print the version of kubeforge and where generated projects get the kubeforge crates.
    #[command(after_help = "Example:\n  kubeforge version")]
    Version,
    /// Run the embedded Kubernetes API server, for `make run` and kubectl without a cluster.
    #[cfg(feature = "dev-server")]
    #[command(
        after_help = "Example:\n  kubeforge dev-server &                 # installs config/crd/bases, writes .kubeforge/kubeconfig\n  KUBECONFIG=.kubeforge/kubeconfig make run\n  KUBECONFIG=.kubeforge/kubeconfig kubectl apply -k config/samples"
    )]
    DevServer(DevServerArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Examples:\n  kubeforge completion bash > ~/.local/share/bash-completion/completions/kubeforge\n  kubeforge completion zsh > \"${fpath[1]}/_kubeforge\"\n  kubeforge completion fish > ~/.config/fish/completions/kubeforge.fish"
    )]
    Completion(CompletionArgs),
}

/// `kubeforge create ...`
#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Scaffold a Kubernetes API (a CRD type) and/or its controller.
    #[command(
        after_help = "Examples:\n  # an API and its controller\n  kubeforge create api --group cache --version v1alpha1 --kind Memcached\n\n  # a cluster-scoped API\n  kubeforge create api --group ops --version v1 --kind Cluster --namespaced=false\n\n  # a controller for a built-in kind\n  kubeforge create api --group apps --version v1 --kind Deployment --resource=false\n  kubeforge create api --group core --version v1 --kind ConfigMap --resource=false"
    )]
    Api(CreateApiArgs),
    /// Scaffold admission (defaulting, validating) and conversion webhooks for an API.
    #[command(
        after_help = "Examples:\n  # defaulting and validation for an API of this project\n  kubeforge create webhook --group cache --version v1 --kind Memcached --defaulting --programmatic-validation\n\n  # conversion: v1 is the hub (storage) version, v1beta1 converts through it\n  kubeforge create webhook --group cache --version v1 --kind Memcached --conversion --spoke v1beta1\n\n  # a webhook for a built-in kind\n  kubeforge create webhook --group core --version v1 --kind Pod --defaulting"
    )]
    Webhook(CreateWebhookArgs),
}

/// `kubeforge update ...`
#[derive(Debug, Subcommand)]
pub enum UpdateCommand {
    /// Regenerate the Rust types of external kinds (create api --external) from their CRDs, and
    /// print what changed as a diff.
    #[command(
        after_help = "Examples:\n  # every external kind, from the source PROJECT records\n  kubeforge update external\n\n  # see the diff without writing\n  kubeforge update external --dry-run\n\n  # Certificate from a newer CRD file\n  kubeforge update external --kind Certificate --crd cert-manager-1.19.yaml"
    )]
    External(UpdateExternalArgs),
}

/// `kubeforge alpha ...`
#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Scaffold the project again from PROJECT with this kubeforge's templates, into a fresh
    /// directory (or in place), and carry the user's code over.
    #[command(
        after_help = "Examples:\n  kubeforge alpha generate --output-dir ../memcached-operator-regenerated\n  kubeforge alpha generate --in-place   # on a clean git tree"
    )]
    Generate(AlphaGenerateArgs),
    /// Update the project to this kubeforge: a three-way git merge of the scaffold of the
    /// version that made it, this version's scaffold and your tree, on a new branch.
    #[command(
        after_help = "Examples:\n  kubeforge alpha update                                  # from the version PROJECT records\n  kubeforge alpha update --from-binary ~/bin/kubeforge-0.1.0\n  kubeforge alpha update --from-templates ../kubeforge-0.1.0/templates/templates"
    )]
    Update(AlphaUpdateArgs),
}

/// Flags of `kubeforge update external`.
#[derive(Debug, Args)]
pub struct UpdateExternalArgs {
    /// Only this kind [default: every external kind].
    #[arg(long)]
    pub kind: Option<String>,
    /// Read the CRD from here instead of the source PROJECT records (a file, URL or
    /// `cluster:<name>`); PROJECT then records this source.
    #[arg(long, value_name = "FILE|URL|cluster:NAME")]
    pub crd: Option<String>,
    /// Print the diff, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Flags of `kubeforge alpha generate`.
#[derive(Debug, Args)]
pub struct AlphaGenerateArgs {
    /// Where to write the new project (a missing or empty directory).
    #[arg(
        long,
        required_unless_present = "in_place",
        conflicts_with = "in_place"
    )]
    pub output_dir: Option<PathBuf>,
    /// Replace the project's files in place (its git tree must be clean, so git has the old
    /// ones).
    #[arg(long)]
    pub in_place: bool,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Flags of `kubeforge alpha update`.
#[derive(Debug, Args)]
pub struct AlphaUpdateArgs {
    /// The kubeforge version that scaffolded the project [default: PROJECT's cliVersion].
    #[arg(long)]
    pub from_version: Option<String>,
    /// A kubeforge binary of that version, to scaffold what it scaffolded.
    #[arg(long, conflicts_with = "from_templates")]
    pub from_binary: Option<PathBuf>,
    /// The templates of that version (a directory laid out as kubeforge's
    /// templates/templates/; files it lacks are this version's).
    #[arg(long)]
    pub from_templates: Option<PathBuf>,
    /// The branch to create for the merge [default: kubeforge-update-<from>-to-<to>].
    #[arg(long)]
    pub branch: Option<String>,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// License header of generated files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum License {
    /// Apache License 2.0 header in every generated Rust file.
    Apache2,
    /// No license header.
    None,
}

/// Flags of `kubeforge init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Domain of the project's API groups: APIs get the group `<group>.<domain>`.
    #[arg(long, default_value = "my.domain")]
    pub domain: String,
    /// Name of the project and Cargo package (a DNS-1123 label) [default: the directory's name].
    #[arg(long)]
    pub project_name: Option<String>,
    /// Copyright owner written in the license header.
    #[arg(long)]
    pub owner: Option<String>,
    /// License header of generated Rust files.
    #[arg(long, value_enum, default_value = "apache2")]
    pub license: License,
    /// Lay APIs out per group (src/api/<group>/<version>/), allowing several API groups.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false, default_missing_value = "true")]
    pub multigroup: bool,
    /// Make the manager watch only its own namespace (Role instead of ClusterRole).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = false, default_missing_value = "true")]
    pub namespaced: bool,
    /// Kubernetes API version the project builds against: the k8s-openapi feature it pins
    /// (1.33 to 1.37).
    #[arg(long, default_value = crate::kubernetes::DEFAULT_VERSION)]
    pub k8s_version: String,
    /// The `api-approved.kubernetes.io` annotation of every CRD: needed when the domain is
    /// (under) `k8s.io` or `kubernetes.io`, whose groups Kubernetes reserves for reviewed APIs.
    /// The URL of the API review, or a value starting with `unapproved` (e.g.
    /// "unapproved, experimental-only").
    #[arg(long, value_name = "URL-OR-UNAPPROVED")]
    pub api_approved: Option<String>,
    /// Directory of the new project (created when missing) [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Flags of `kubeforge create api`.
#[derive(Debug, Args)]
pub struct CreateApiArgs {
    /// API group, without the domain (e.g. `cache` for cache.<domain>; `core`, `apps`, ... for built-in kinds).
    /// With --external: the full group of the CRDs to take (optional).
    #[arg(long, required_unless_present = "external", default_value = "")]
    pub group: String,
    /// API version (e.g. v1alpha1). With --external: the CRD versions to generate, comma-separated,
    /// or `all` [default: the storage version].
    #[arg(long, required_unless_present = "external", default_value = "")]
    pub version: String,
    /// Kind, CamelCase (e.g. Memcached). With --external: the kind to take from the CRDs (optional).
    #[arg(long, required_unless_present = "external", default_value = "")]
    pub kind: String,
    /// Generate Rust types for kinds this project uses but does not own, from their CRD (--crd).
    #[arg(long, requires = "crd")]
    pub external: bool,
    /// With --external: where the CRD is, a YAML or JSON file (several CRDs in one file are fine),
    /// an http(s) URL, or `cluster:<crd name>` for the cluster of the kubeconfig.
    #[arg(long, requires = "external", value_name = "FILE|URL|cluster:NAME")]
    pub crd: Option<String>,
    /// Resource name [default: the lower-case English plural of the kind, as kubebuilder
    /// derives it: Policy → policies, Index → indices].
    #[arg(long)]
    pub plural: Option<String>,
    /// Whether objects of the kind live in namespaces (false: cluster-scoped).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = true, default_missing_value = "true")]
    pub namespaced: bool,
    /// Scaffold the API type (false: a controller for an existing kind).
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = true, default_missing_value = "true")]
    pub resource: bool,
    /// Scaffold the controller [default: true; false when another version of the kind has one:
    /// one controller reconciles every version].
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
    pub controller: Option<bool>,
    /// Scaffold the files again even if the API or controller exists (overwrites them).
    #[arg(long)]
    pub force: bool,
    /// How the controller reconciles: one object at a time, or the whole world at once.
    #[arg(long, value_enum, default_value = "per-object")]
    pub reconcile: ReconcileMode,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// How the scaffolded controller reconciles (`--reconcile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReconcileMode {
    /// One object at a time: `Controller::<Kind>` calls the reconcile with each changed object.
    #[default]
    PerObject,
    /// The whole world at once: a `WorldController` calls one reconcile with a snapshot of
    /// every watched object and the changes since the previous call.
    StateOfWorld,
}

/// Flags of `kubeforge create webhook`.
#[derive(Debug, Args)]
pub struct CreateWebhookArgs {
    /// API group, without the domain (e.g. `cache`; `core`, `apps`, ... for built-in kinds).
    #[arg(long)]
    pub group: String,
    /// API version of the kind the webhooks are for (with --conversion: the hub version).
    #[arg(long)]
    pub version: String,
    /// Kind, CamelCase (e.g. Memcached).
    #[arg(long)]
    pub kind: String,
    /// Scaffold a defaulting (mutating) webhook.
    #[arg(long)]
    pub defaulting: bool,
    /// Scaffold a validating webhook (create and update).
    #[arg(long)]
    pub programmatic_validation: bool,
    /// Scaffold a conversion webhook; --version is the hub (storage) version.
    #[arg(long)]
    pub conversion: bool,
    /// Versions converted to and from the hub (with --conversion); comma-separated or repeated.
    #[arg(long = "spoke", value_delimiter = ',')]
    pub spokes: Vec<String>,
    /// Scaffold the webhook files again even if the webhooks exist (overwrites them).
    #[arg(long)]
    pub force: bool,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Flags of `kubeforge generate`.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Write nothing: fail, naming the files, when config/ differs from what the types generate
    /// (for CI; `make verify-manifests`).
    #[arg(long)]
    pub check: bool,
    /// Project directory [default: the current directory].
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Flags of `kubeforge dev-server`.
#[derive(Debug, Args)]
pub struct DevServerArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Where to write the kubeconfig for kubectl and the operator.
    #[arg(long, default_value = ".kubeforge/kubeconfig")]
    pub kubeconfig: PathBuf,
    /// Directory of CRD YAML files to install at start (repeatable) [default: config/crd/bases
    /// when it exists].
    #[arg(long = "crd-dir")]
    pub crd_dirs: Vec<PathBuf>,
    /// Feature gates, as kube-apiserver takes them: `ShardedListAndWatch=true` makes lists and
    /// watches honour `shardSelector` (sharded operators then get only their share). All off
    /// by default, as on a real server.
    #[arg(long, default_value = "")]
    pub feature_gates: String,
}

/// Shells `kubeforge completion` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
}

/// Flags of `kubeforge completion`.
#[derive(Debug, Args)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: Shell,
}
