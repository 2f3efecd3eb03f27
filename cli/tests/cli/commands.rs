//! `--help` on every command, `version`, `completion`.

use crate::common;

use common::kubeforge;

#[test]
fn every_command_has_help_with_an_example() {
    let temp = tempfile::tempdir().unwrap();
    for command in [
        &[][..],
        &["init"],
        &["create"],
        &["create", "api"],
        &["dev-server"],
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

#[test]
fn dev_server_refuses_a_missing_crd_dir() {
    let temp = tempfile::tempdir().unwrap();
    common::refused(
        temp.path(),
        &["dev-server", "--crd-dir", "config/crd/bases"],
        &["--crd-dir", "existing directory", "make manifests"],
    );
}

#[test]
fn dev_server_refuses_an_unknown_feature_gate() {
    let temp = tempfile::tempdir().unwrap();
    common::refused(
        temp.path(),
        &["dev-server", "--feature-gates", "ShardedListAndWach=true"],
        &[
            "--feature-gates",
            "unknown feature gate \"ShardedListAndWach\"",
            "ShardedListAndWatch=true",
        ],
    );
    common::refused(
        temp.path(),
        &["dev-server", "--feature-gates", "ShardedListAndWatch"],
        &["has no value"],
    );
}

#[test]
fn dev_server_serves_and_writes_a_kubeconfig() {
    let temp = tempfile::tempdir().unwrap();
    let kubeconfig = temp.path().join("kubeconfig");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kubeforge"))
        .args(["dev-server", "--kubeconfig"])
        .arg(&kubeconfig)
        .current_dir(temp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let text = loop {
        if let Ok(text) = std::fs::read_to_string(&kubeconfig)
            && text.contains("server:")
        {
            break text;
        }
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            panic!(
                "dev-server exited with {status}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no kubeconfig after 30s"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(text.contains("https://127.0.0.1:"), "{text}");
}
