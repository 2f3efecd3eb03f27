#!/usr/bin/env bash
# kubeforge quickstart: the main job, end to end, on a fresh machine with a Rust toolchain.
#
#   1. installs the kubeforge CLI from this checkout (cargo install --path cli)
#   2. scaffolds an operator with one API (cache.example.com/v1alpha1 Memcached) into a fresh
#      temporary directory
#   3. builds it
#   4. runs its controller against the embedded API server (the project's own generated test)
#      until the sample Memcached is reconciled, printing what happened
#
# Usage: scripts/quickstart.sh [--no-install]   (--no-install: use `cargo run -p kubeforge-cli`)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kubeforge-quickstart.XXXXXX")"
project="$work/memcached-operator"
# Build everything into the checkout's target directory, so a second run is fast.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

command -v cargo >/dev/null || { echo "cargo is required: install Rust from https://rustup.rs" >&2; exit 1; }

if [[ "${1:-}" == "--no-install" ]]; then
    step "Building the kubeforge CLI from $root"
    cargo build --quiet --manifest-path "$root/Cargo.toml" -p kubeforge-cli
    kubeforge() { "$CARGO_TARGET_DIR/debug/kubeforge" "$@"; }
else
    step "Installing the kubeforge CLI from $root (cargo install --path cli)"
    cargo install --quiet --locked --force --path "$root/cli"
    kubeforge() { command kubeforge "$@"; }
fi
kubeforge version

step "Scaffolding memcached-operator into $project"
mkdir -p "$project"
cd "$project"
kubeforge init --domain example.com --owner "The memcached-operator Authors"
kubeforge create api --group cache --version v1alpha1 --kind Memcached
# Resolve the same dependency versions the kubeforge workspace is tested with.
cp "$root/Cargo.lock" Cargo.lock

step "Building the operator"
cargo build

step "Running the Memcached controller against the embedded API server"
cargo test --test memcached_controller -- --nocapture

step "Done"
cat <<MSG
The operator is in $project:
  src/api/v1alpha1/memcached.rs    the Memcached type (spec, status)
  src/controllers/memcached.rs     its reconcile
  tests/memcached_controller.rs    the test that just ran against the embedded API server
Try: cd $project && make help
MSG
