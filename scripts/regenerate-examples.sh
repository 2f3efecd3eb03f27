#!/usr/bin/env bash
# Scaffolds the examples again with their tutorials' commands (run it after a template changes:
# the e2e tests `quick_start_guestbook` and `cronjob_tutorial` compare each example with a fresh
# scaffold).
#
# examples/guestbook is exactly the scaffold. examples/cronjob is the scaffold plus the user's
# code: the files the CronJob tutorial edits (CRONJOB_EDITED below, the same list as
# `CRONJOB_EDITED` in tests/tests/scaffold_build_run/tutorials.rs) are kept as they are, every
# other file is written again.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cargo build --quiet -p kubeforge-cli --bin kubeforge
kubeforge="$root/target/debug/kubeforge"
export KUBEFORGE_SOURCE="$root"

# Runs `make manifests` in an example with the workspace's Cargo.lock and target dir.
manifests() {
    cp Cargo.lock "$1/Cargo.lock"
    (cd "$1" && CARGO_TARGET_DIR="$root/target" cargo run --quiet -- manifests && rm Cargo.lock)
}

rm -rf examples/guestbook
"$kubeforge" init --domain my.domain --project-name guestbook --dir examples/guestbook >/dev/null
"$kubeforge" create api --group webapp --version v1 --kind Guestbook --dir examples/guestbook >/dev/null
sed -i "s|path = \"$root/|path = \"../../|g" examples/guestbook/Cargo.toml
manifests examples/guestbook
echo "examples/guestbook regenerated"

CRONJOB_EDITED=(
    Cargo.toml
    config/samples/batch_v1_cronjob.yaml
    config/samples/batch_v2_cronjob.yaml
    src/api/v1/cron_job.rs
    src/api/v2/cron_job.rs
    src/api/v2/cron_job_conversion.rs
    src/controllers/cron_job.rs
    src/lib.rs
    src/webhooks/cron_job_v1.rs
    tests/cron_job_controller.rs
    tests/cron_job_webhook.rs
)
scaffold=$(mktemp -d)
trap 'rm -rf "$scaffold"' EXIT
cronjob="$scaffold/cronjob"
"$kubeforge" init --domain tutorial.kubebuilder.io --project-name cronjob --dir "$cronjob" >/dev/null
"$kubeforge" create api --group batch --version v1 --kind CronJob --dir "$cronjob" >/dev/null
"$kubeforge" create webhook --group batch --version v1 --kind CronJob --defaulting \
    --programmatic-validation --dir "$cronjob" >/dev/null
"$kubeforge" create api --group batch --version v2 --kind CronJob --dir "$cronjob" >/dev/null
"$kubeforge" create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2 \
    --dir "$cronjob" >/dev/null
sed -i "s|path = \"$root/|path = \"../../|g" "$cronjob/Cargo.toml"
(
    cd "$cronjob"
    find . -type f | sed 's|^\./||' | sort
) | while read -r file; do
    for edited in "${CRONJOB_EDITED[@]}"; do
        if [[ "$file" == "$edited" && -e "examples/cronjob/$file" ]]; then
            continue 2
        fi
    done
    mkdir -p "examples/cronjob/$(dirname "$file")"
    cp "$cronjob/$file" "examples/cronjob/$file"
done
manifests examples/cronjob
echo "examples/cronjob regenerated (the files the tutorial edits kept)"
