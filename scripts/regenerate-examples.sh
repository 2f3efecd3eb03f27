#!/usr/bin/env bash
# Scaffolds examples/guestbook again with the tutorial's commands (run it after a template
# changes: the e2e test `quick_start_guestbook` compares the example with a fresh scaffold).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --quiet -p kubeforge-cli --bin kubeforge
kubeforge="$root/target/debug/kubeforge"
export KUBEFORGE_SOURCE="$root"
rm -rf examples/guestbook
"$kubeforge" init --domain my.domain --project-name guestbook --dir examples/guestbook >/dev/null
"$kubeforge" create api --group webapp --version v1 --kind Guestbook --dir examples/guestbook >/dev/null
sed -i "s|path = \"$root/|path = \"../../|g" examples/guestbook/Cargo.toml
cp Cargo.lock examples/guestbook/Cargo.lock
(cd examples/guestbook && CARGO_TARGET_DIR="$root/target" cargo run --quiet -- manifests && rm Cargo.lock)
echo "examples/guestbook regenerated"
