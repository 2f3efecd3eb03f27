//! `--help` on every command, `version`, `completion`.

mod common;

use common::kubeforge;

#[test]
fn every_command_has_help_with_an_example() {
    let temp = tempfile::tempdir().unwrap();
    for command in [
        &[][..],
        &["init"],
        &["create", "api"],
        &["generate"],
        &["version"],
        &["completion"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let run = kubeforge(temp.path(), &args).success();
        assert!(
            run.stdout.contains("Example"),
            "`kubeforge {}` has no example:\n{}",
            args.join(" "),
            run.stdout
        );
    }
    let init = kubeforge(temp.path(), &["init", "--help"]).success().stdout;
    for flag in [
        "--domain",
        "--project-name",
        "--owner",
        "--license",
        "--multigroup",
        "--namespaced",
        "--k8s-version",
        "--dir",
        "[default: my.domain]",
        "[default: 1.35]",
    ] {
        assert!(init.contains(flag), "init --help lacks {flag}");
    }
    let api = kubeforge(temp.path(), &["create", "api", "--help"])
        .success()
        .stdout;
    for flag in [
        "--group",
        "--version",
        "--kind",
        "--plural",
        "--namespaced",
        "--resource",
        "--controller",
        "--force",
    ] {
        assert!(api.contains(flag), "create api --help lacks {flag}");
    }
}

#[test]
fn version_names_the_release_and_the_dependency_rule() {
    let temp = tempfile::tempdir().unwrap();
    let run = kubeforge(temp.path(), &["version"]).success();
    assert!(
        run.stdout
            .starts_with(&format!("kubeforge {}\n", env!("CARGO_PKG_VERSION"))),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("default Kubernetes version: 1.35"));
    assert!(
        run.stdout.contains("crates.io, version 0.1.0"),
        "KUBEFORGE_SOURCE=crates-io:\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("KUBEFORGE_SOURCE"));
    let run = kubeforge(temp.path(), &["--version"]).success();
    assert!(run.stdout.contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn completion_scripts() {
    let temp = tempfile::tempdir().unwrap();
    let bash = kubeforge(temp.path(), &["completion", "bash"])
        .success()
        .stdout;
    assert!(
        bash.contains("complete -F")
            && bash.contains("kubeforge")
            && bash.contains("--k8s-version")
    );
    let zsh = kubeforge(temp.path(), &["completion", "zsh"])
        .success()
        .stdout;
    assert!(zsh.starts_with("#compdef kubeforge"));
    let fish = kubeforge(temp.path(), &["completion", "fish"])
        .success()
        .stdout;
    assert!(fish.contains("complete -c kubeforge"));
    kubeforge(temp.path(), &["completion", "powershell"]).failure(&["invalid value 'powershell'"]);
}

#[test]
fn unknown_commands_and_flags_fail() {
    let temp = tempfile::tempdir().unwrap();
    kubeforge(temp.path(), &["frobnicate"]).failure(&["unrecognized subcommand"]);
    kubeforge(temp.path(), &["init", "--colour"]).failure(&["unexpected argument"]);
    kubeforge(temp.path(), &["create", "api", "--group", "cache"])
        .failure(&["--version", "--kind"]);
}
