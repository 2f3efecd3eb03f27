//! Everything a kubeforge command can fail with. Each message names the problem and the fix.

use std::path::PathBuf;

/// Why a command failed. A failed command has written nothing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag value breaks a naming rule.
    #[error("invalid {flag} {value:?}: {subject} must be {rule}.\n  fix: {fix}")]
    InvalidInput {
        /// The flag, e.g. `--group`.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What was checked, e.g. `the API group "Cache.example.com"`.
        subject: String,
        /// The rule, in words.
        rule: String,
        /// How to fix it.
        fix: String,
    },
    /// `init` in a directory that already holds a project.
    #[error(
        "{} already exists: `kubeforge init` only starts new projects, it never overwrites one.\n  fix: run it in an empty directory (or pass --dir <new directory>); to add an API to this project use `kubeforge create api`",
        path.display()
    )]
    AlreadyInitialized {
        /// The file that is in the way.
        path: PathBuf,
    },
    /// A project command outside a project.
    #[error(
        "{} has no PROJECT file, so it is not a kubeforge project.\n  fix: run the command in the project's root directory (or pass --dir <project>), or start a project with `kubeforge init`",
        dir.display()
    )]
    NotAProject {
        /// The directory searched.
        dir: PathBuf,
    },
    /// PROJECT exists but does not parse.
    #[error(
        "{} does not parse: {source}\n  fix: restore PROJECT from version control (kubeforge writes it; do not edit it by hand)",
        path.display()
    )]
    BadProjectFile {
        /// Path of PROJECT.
        path: PathBuf,
        /// The parser's error (boxed: it is large).
        #[source]
        source: Box<serde_saphyr::Error>,
    },
    /// PROJECT parses but is not of the layout this kubeforge scaffolds.
    #[error(
        "{} does not parse: its layout {layout:?} does not include {}, the only layout this kubeforge scaffolds\n  fix: restore PROJECT from version control (kubeforge writes it; do not edit it by hand)",
        path.display(),
        crate::project::LAYOUT
    )]
    ProjectLayout {
        /// Path of PROJECT.
        path: PathBuf,
        /// The layouts it names.
        layout: Vec<String>,
    },
    /// The API is already in PROJECT.
    #[error(
        "API resource already exists: {group}/{version} {kind} is in PROJECT.\n  fix: pass --force to scaffold its files again (they are overwritten), or pick another --version or --kind"
    )]
    ResourceExists {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
    },
    /// The controller is already in PROJECT.
    #[error(
        "controller already exists: {group}/{version} {kind} has a controller in PROJECT.\n  fix: pass --force to scaffold it again (its file is overwritten), or pass --controller=false"
    )]
    ControllerExists {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
    },
    /// A second group in a single-group project.
    #[error(
        "multiple groups are not allowed in a single-group project: it has group {existing:?}, and --group {new:?} would add another.\n  fix: use --group {existing}, or start the project with `kubeforge init --multigroup` (see https://book.kubebuilder.io/migration/multi-group)"
    )]
    SecondGroup {
        /// The group the project has.
        existing: String,
        /// The group asked for.
        new: String,
    },
    /// `--resource=false` for a kind that is neither the project's nor built-in.
    #[error(
        "{group}/{version} {kind} is neither an API of this project ({own}) nor a built-in Kubernetes kind ({builtin}), so there is no type for its controller.\n  fix: drop --resource=false to create the API as well, or name a built-in kind (e.g. --group apps --version v1 --kind Deployment, --group core --version v1 --kind ConfigMap)"
    )]
    UnknownKind {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
        /// What PROJECT has there, in words.
        own: String,
        /// What k8s-openapi has there, in words.
        builtin: String,
    },
    /// A controller for a kind that has one in another version.
    #[error(
        "{kind} already has a controller, for version {existing} ({file}): one controller reconciles a kind in every version, through the version the API server stores.\n  fix: drop --controller (the new version gets no controller), or add --force to scaffold the controller again for {version} (it overwrites {file})"
    )]
    ControllerOfKindExists {
        /// Kind.
        kind: String,
        /// The version asked for.
        version: String,
        /// The version that has the controller.
        existing: String,
        /// The controller's file.
        file: String,
    },
    /// `init` with a domain Kubernetes reserves, without `--api-approved`.
    #[error(
        "the domain {domain:?} is under {protected}, whose API groups Kubernetes reserves for APIs that went through its API review: the API server refuses their CRDs unless they carry the annotation api-approved.kubernetes.io.\n  fix: use a domain you own (e.g. --domain example.com), or pass --api-approved <URL of the API review> (or --api-approved \"unapproved, <reason>\" for an unreviewed API); every CRD then carries it"
    )]
    ProtectedDomain {
        /// The domain.
        domain: String,
        /// `k8s.io` or `kubernetes.io`.
        protected: &'static str,
    },
    /// `--resource=false --controller=false`.
    #[error(
        "nothing to scaffold: --resource=false and --controller=false.\n  fix: leave at least one of them true"
    )]
    NothingToDo,
    /// `create webhook` with none of the webhook flags.
    #[error(
        "no webhook type given: `kubeforge create webhook` needs at least one of --defaulting, --programmatic-validation and --conversion.\n  fix: e.g. kubeforge create webhook --group {group} --version {version} --kind {kind} --defaulting --programmatic-validation"
    )]
    NoWebhookType {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
    },
    /// `create webhook` for a kind that is neither an API of the project nor built-in.
    #[error(
        "{group}/{version} {kind} is not an API of this project ({known}) nor a built-in Kubernetes kind ({builtin}), so there is no type to put a webhook on.\n  fix: create the API first with `kubeforge create api --group {group} --version {version} --kind {kind}`, or correct --group, --version or --kind"
    )]
    NoSuchApi {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
        /// What PROJECT has of that kind, in words.
        known: String,
        /// What k8s-openapi has in that group and version, in words.
        builtin: String,
    },
    /// `--spoke` without `--conversion`.
    #[error(
        "--spoke {spokes} was given without --conversion: spoke versions belong to a conversion webhook.\n  fix: add --conversion, or drop --spoke"
    )]
    SpokeWithoutConversion {
        /// The spokes given.
        spokes: String,
    },
    /// `--conversion` without any spoke.
    #[error(
        "--conversion needs at least one --spoke: {kind} {version} is the hub that the other versions convert through, and no other version was named ({known}).\n  fix: pass --spoke <version> for each other version (e.g. --spoke v1beta1); add a version first with `kubeforge create api --group {group} --version <version> --kind {kind}`"
    )]
    NoSpokes {
        /// Group.
        group: String,
        /// The hub version.
        version: String,
        /// Kind.
        kind: String,
        /// The versions PROJECT has, in words.
        known: String,
    },
    /// A spoke version the project does not have.
    #[error(
        "spoke version {spoke} of {group} {kind} does not exist ({known}).\n  fix: create it first with `kubeforge create api --group {group} --version {spoke} --kind {kind}`, or name an existing version in --spoke"
    )]
    UnknownSpoke {
        /// Group.
        group: String,
        /// Kind.
        kind: String,
        /// The missing version.
        spoke: String,
        /// The versions PROJECT has, in words.
        known: String,
    },
    /// The hub named as its own spoke.
    #[error(
        "--spoke {version} is the hub version itself (--version {version}).\n  fix: list only the other versions of the kind in --spoke"
    )]
    SpokeIsHub {
        /// The version.
        version: String,
    },
    /// `--conversion` on a built-in kind.
    #[error(
        "--conversion is for the project's own APIs: {kind} is a built-in Kubernetes kind, whose versions the API server converts itself.\n  fix: drop --conversion"
    )]
    ConversionForBuiltin {
        /// Kind.
        kind: String,
    },
    /// A webhook type that exists already.
    #[error(
        "the {which} webhook of {group}/{version} {kind} already exists (PROJECT records it).\n  fix: pass --force to scaffold it again (its files are overwritten), or drop {flag}"
    )]
    WebhookExists {
        /// Group.
        group: String,
        /// Version.
        version: String,
        /// Kind.
        kind: String,
        /// `defaulting`, `validating` or `conversion`.
        which: &'static str,
        /// The flag that asked for it.
        flag: &'static str,
    },
    /// A type file lacks a struct the command works with.
    #[error(
        "{} has no `pub struct {name} {{ ... }}`: the scaffolded conversion maps its fields.\n  fix: restore the struct (or its name), then run the command again",
        path.display()
    )]
    TypeNotFound {
        /// The file (relative to the project root).
        path: PathBuf,
        /// The struct, e.g. `MemcachedSpec`.
        name: String,
    },
    /// A Rust file the command edits does not parse.
    #[error(
        "{} does not parse as Rust ({}{source}): kubeforge edits it through a Rust parser, so nothing was written.\n  fix: make the file valid Rust again (`cargo check` shows what is wrong), then run the command again",
        path.display(),
        position.as_ref().map(|p| format!("{p}: ")).unwrap_or_default()
    )]
    RustSyntax {
        /// The file (relative to the project root).
        path: PathBuf,
        /// Where the parser stopped (`line 3, column 7`), when it knows.
        position: Option<String>,
        /// The parser's error.
        #[source]
        source: syn::Error,
    },
    /// A scaffold marker was removed from a file.
    #[error(
        "{} has no scaffold marker `{marker}`: kubeforge inserts code just before it, so nothing was written.\n  fix: put the line `{marker}` back where the inserted code belongs (see a freshly scaffolded project), then run the command again",
        path.display()
    )]
    MarkerMissing {
        /// The file (relative to the project root).
        path: PathBuf,
        /// The marker line, e.g. `// +kubeforge:scaffold:builder`.
        marker: String,
    },
    /// A scaffold marker stands inside an item or a statement of a Rust file (moved there by
    /// hand), where nothing can be inserted.
    #[error(
        "{} has the scaffold marker `{marker}` inside {inside}, where kubeforge cannot insert code, so nothing was written.\n  fix: move the line `{marker}` back out, to where the inserted code belongs (see a freshly scaffolded project), then run the command again",
        path.display()
    )]
    MarkerMisplaced {
        /// The file (relative to the project root).
        path: PathBuf,
        /// The marker line, e.g. `// +kubeforge:scaffold:builder`.
        marker: String,
        /// What it stands inside of (`an item`, `a statement`).
        inside: &'static str,
    },
    /// A file to insert into was deleted.
    #[error(
        "{} is missing: kubeforge inserts code at its marker `{marker}`, so nothing was written.\n  fix: restore the file (see a freshly scaffolded project), then run the command again",
        path.display()
    )]
    FileMissing {
        /// The file (relative to the project root).
        path: PathBuf,
        /// The marker it should hold.
        marker: String,
    },
    /// A file to create exists already.
    #[error(
        "{} already exists and kubeforge would overwrite it.\n  fix: pass --force to overwrite it, or move it away first",
        path.display()
    )]
    FileExists {
        /// The file (relative to the project root).
        path: PathBuf,
    },
    /// `KUBEFORGE_SOURCE` names a directory that is not a kubeforge checkout.
    #[error(
        "KUBEFORGE_SOURCE={} is not a kubeforge checkout (no runtime/Cargo.toml in it).\n  fix: set KUBEFORGE_SOURCE to the root of a kubeforge checkout, or to `crates-io`, or unset it",
        dir.display()
    )]
    BadSource {
        /// The directory given.
        dir: PathBuf,
    },
    /// A template failed to render (a kubeforge bug).
    /// A template directory (`KUBEFORGE_TEMPLATES`, `alpha update --from-templates`) that does
    /// not read.
    #[error(
        "the template directory {} cannot be used: {reason}{}.\n  fix: point it at a directory laid out as kubeforge's templates/templates/, with a VERSION file naming its kubeforge version",
        dir.display(),
        source.as_ref().map(|e| format!(" ({e})")).unwrap_or_default()
    )]
    BadTemplateSet {
        /// The directory.
        dir: PathBuf,
        /// What is wrong.
        reason: String,
        /// The I/O error, when reading it failed.
        #[source]
        source: Option<std::io::Error>,
    },
    /// Reading a CRD or generating its types failed (`create api --external`, `update external`).
    #[error(transparent)]
    External(Box<crate::external::ExternalError>),
    /// `alpha generate` or `alpha update` failed.
    #[error(transparent)]
    Alpha(Box<crate::alpha_error::AlphaError>),
    /// Rendering a template failed.
    #[error(transparent)]
    Template(#[from] kubeforge_templates::Error),
    /// Reading a file failed.
    #[error("could not read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Writing a file failed.
    #[error("could not write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A command kubeforge runs (cargo) could not be started.
    #[error("`{command}` failed in {}: {source}", dir.display())]
    SubcommandSpawn {
        /// The command line.
        command: String,
        /// Where it was to run.
        dir: PathBuf,
        /// Why it did not start.
        #[source]
        source: std::io::Error,
    },
    /// A command kubeforge runs (cargo) failed.
    #[error("`{command}` failed in {}: {status}", dir.display())]
    Subcommand {
        /// The command line.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// Its exit status.
        status: std::process::ExitStatus,
    },
    /// The embedded API server failed.
    #[cfg(feature = "dev-server")]
    #[error(
        "the dev server stopped: {source}\n  fix: check that the port is free and the CRD directories hold valid CustomResourceDefinitions"
    )]
    DevServer {
        /// What stopped it.
        #[source]
        source: kubeforge_testenv::dev_server::Error,
    },
    /// The async runtime of the embedded API server did not start.
    #[cfg(feature = "dev-server")]
    #[error(
        "the dev server did not start: its async runtime could not be built: {source}\n  fix: check the process's limits (threads, open files) and run it again"
    )]
    DevServerRuntime {
        /// Why the runtime did not build.
        #[source]
        source: std::io::Error,
    },
    /// A bug in kubeforge.
    #[error("internal error (please report it): {0}")]
    Internal(String),
}

impl From<crate::external::ExternalError> for Error {
    fn from(error: crate::external::ExternalError) -> Self {
        Error::External(Box::new(error))
    }
}

impl From<crate::alpha_error::AlphaError> for Error {
    fn from(error: crate::alpha_error::AlphaError) -> Self {
        Error::Alpha(Box::new(error))
    }
}
