#!/usr/bin/env bash
# Packages and verifies the six published crates (kubeforge-schema, kubeforge-derive,
# kubeforge-templates, kubeforge-testenv, kubeforge, kubeforge-cli), as `cargo publish` will.
#
# k8s-openapi's build script needs a Kubernetes version; library crates enable none (binaries
# choose theirs), and verification builds each library alone, without the dev-dependencies
# that choose one in tests. k8s-openapi reads K8S_OPENAPI_ENABLED_VERSION for exactly such
# builds, so verification sets it; the packaged crates stay version-free. docs.rs gets
# `k8s-openapi/latest` from [package.metadata.docs.rs].
set -euo pipefail
cd "$(dirname "$0")/.."
export K8S_OPENAPI_ENABLED_VERSION="${K8S_OPENAPI_ENABLED_VERSION:-1.35}"
cargo package --workspace --exclude kubeforge-e2e "$@"
ls -1 target/package/*.crate
