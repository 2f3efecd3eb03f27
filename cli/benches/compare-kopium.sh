#!/usr/bin/env bash
# Compares the types `kubeforge create api --external` generates with kopium's on the vendored
# CRDs of cli/tests/fixtures/crds/ (every served version: 12 kind-versions), and prints the
# figures of cli/README.md's "Compared with kopium" tables:
#
#   * the round trip: each example object of the fixtures' examples.yaml (and, per kind with an
#     enum, the first example with a value the CRD does not list) deserializes into the kind's
#     type and serializes back to the same JSON (as step 1 of tests/tests/external/round_trip.rs);
#   * the size of the generated code (after rustfmt) and its compile time: `cargo check` and
#     `cargo build` of a crate holding only the generated types, dependencies built before,
#     after `touch src/lib.rs`, CARGO_INCREMENTAL=0, twice each (CPU is user+sys);
#   * how deep a schema each generator reads (objects nested N deep below spec).
#
# kopium runs as `kopium -A` (its recommended mode: derived schema, JsonSchema, doc comments) and
# as "kopium+", `-A -D PartialEq -D Default --smart-derive-elision` (the derives kubeforge emits).
#
# Usage: cli/benches/compare-kopium.sh [work-dir]
#   work-dir (default: a new temporary directory) holds kopium's install, the three throwaway
#   crates and their target directory; run again with the same directory to reuse them.
# Needs: cargo (the crates registry reachable, to install kopium 0.24.1 and the crates' versions
# pinned by the workspace's Cargo.lock), rustfmt, GNU time (/usr/bin/time).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FIXTURES="$ROOT/cli/tests/fixtures/crds"
WORK=${1:-$(mktemp -d)}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
KOPIUM_VERSION=0.24.1
KOPIUM="$WORK/kopium/bin/kopium"
export CARGO_INCREMENTAL=0
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS RUSTFLAGS

log() { printf '== %s\n' "$*" >&2; }

# The kind-versions: CRD file (relative to the fixtures), kind, version, and the JSON pointer of
# an enum field of the kind's first example (- for none).
KINDS=(
  "cert-manager/cert-manager.io_certificates.yaml Certificate v1 /spec/privateKey/algorithm"
  "cert-manager/cert-manager.io_issuers.yaml Issuer v1 -"
  "prometheus-operator/monitoring.coreos.com_servicemonitors.yaml ServiceMonitor v1 /spec/endpoints/0/scheme"
  "prometheus-operator/monitoring.coreos.com_prometheusrules.yaml PrometheusRule v1 -"
  "gateway-api/gateway.networking.k8s.io_gateways.yaml Gateway v1 /spec/listeners/0/allowedRoutes/namespaces/from"
  "gateway-api/gateway.networking.k8s.io_gateways.yaml Gateway v1beta1 -"
  "gateway-api/gateway.networking.k8s.io_httproutes.yaml HTTPRoute v1 /spec/rules/0/matches/0/path/type"
  "gateway-api/gateway.networking.k8s.io_httproutes.yaml HTTPRoute v1beta1 -"
  "crossplane/apiextensions.crossplane.io_compositions.yaml Composition v1 -"
  "argo-cd/argoproj.io_applications.yaml Application v1alpha1 -"
  "kubeforge/typegen.kubeforge.dev_crds.yaml Exotic v1 /spec/color"
  "kubeforge/typegen.kubeforge.dev_crds.yaml Bare v1 -"
)
# The version whose objects examples.yaml holds, per kind.
STORAGE_VERSIONS="Certificate=v1 Issuer=v1 ServiceMonitor=v1 PrometheusRule=v1 Gateway=v1 HTTPRoute=v1 Composition=v1 Application=v1alpha1 Exotic=v1 Bare=v1"

# --- the tools ---------------------------------------------------------------------------
if [ ! -x "$KOPIUM" ]; then
  log "installing kopium $KOPIUM_VERSION into $WORK/kopium"
  CARGO_TARGET_DIR="$WORK/kopium-target" cargo install kopium --version "$KOPIUM_VERSION" \
    --root "$WORK/kopium" --locked >&2
fi
log "building kubeforge"
(cd "$ROOT" && cargo build --quiet -p kubeforge-cli --bin kubeforge >&2)
KUBEFORGE="${CARGO_TARGET_DIR:-$ROOT/target}/debug/kubeforge"

# The CRD of `kind` alone (kopium reads one CRD per file).
single_crd() { # file kind out
  awk -v kind="$2" '
    /^---/ { if (doc ~ "\n    kind: " kind "\n") printf "%s", doc; doc = ""; next }
    { doc = doc $0 "\n" }
    END { if (doc ~ "\n    kind: " kind "\n") printf "%s", doc }
  ' "$1" > "$3"
  grep -q "kind: CustomResourceDefinition" "$3" || { echo "no CRD of $2 in $1" >&2; exit 1; }
}

# --- the crates ----------------------------------------------------------------------------
WS="$WORK/ws"
rm -rf "$WS"
mkdir -p "$WS/crds"
cat > "$WS/Cargo.toml" <<'EOF'
[workspace]
members = ["kubeforge", "kopium", "kopium-plus"]
resolver = "3"
EOF
cp "$ROOT/Cargo.lock" "$WS/Cargo.lock"
for crate in kubeforge kopium kopium-plus; do
  mkdir -p "$WS/$crate/src" "$WS/$crate/tests"
  cat > "$WS/$crate/Cargo.toml" <<EOF
[package]
name = "types-$crate"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
kube = { version = "=5.0.0", default-features = false, features = ["derive"] }
k8s-openapi = { version = "=0.29.0", default-features = false, features = ["std", "schemars", "v1_35"] }
schemars = { version = "=1.2.3", default-features = false, features = ["std", "derive"] }
serde = { version = "=1.0.229", features = ["derive"] }
serde_json = "1"

[dev-dependencies]
serde-saphyr = "=2.0.0"
EOF
  printf '#![allow(clippy::all, missing_docs)]\n' > "$WS/$crate/src/lib.rs"
done

log "generating kubeforge's types"
PROJECT="$WORK/kubeforge-project"
rm -rf "$PROJECT"
mkdir -p "$PROJECT"
"$KUBEFORGE" init --domain example.com --project-name types --dir "$PROJECT" > /dev/null
for file in $(printf '%s\n' "${KINDS[@]}" | awk '{print $1}' | sort -u); do
  "$KUBEFORGE" create api --external --crd "$FIXTURES/$file" --version all --controller=false \
    --dir "$PROJECT" > /dev/null 2>&1
done
cp -r "$PROJECT/src/external" "$WS/kubeforge/src/external"
printf 'pub mod external;\n' >> "$WS/kubeforge/src/lib.rs"

log "generating kopium's types"
for entry in "${KINDS[@]}"; do
  read -r file kind version _ <<< "$entry"
  module="$(printf '%s' "$kind" | tr '[:upper:]' '[:lower:]')_$version"
  single_crd "$FIXTURES/$file" "$kind" "$WS/crds/$kind.yaml"
  "$KOPIUM" -A -f "$WS/crds/$kind.yaml" --api-version "$version" > "$WS/kopium/src/$module.rs"
  "$KOPIUM" -A -D PartialEq -D Default --smart-derive-elision -f "$WS/crds/$kind.yaml" \
    --api-version "$version" > "$WS/kopium-plus/src/$module.rs"
  printf 'pub mod %s;\n' "$module" >> "$WS/kopium/src/lib.rs"
  printf 'pub mod %s;\n' "$module" >> "$WS/kopium-plus/src/lib.rs"
done

# The round trip, one test file per crate; `path` names a kind's type.
round_trip_test() { # crate path-function
  local crate=$1 path=$2 out="$WS/$1/tests/round_trip.rs"
  cat > "$out" <<'EOF'
//! Each example deserializes into its kind's type and serializes back to the same JSON.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const FIXTURES: &str = "@FIXTURES@";

/// Whether `a` and `b` are the same JSON (numbers by value, as the API server reads them).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Prints one line per case: `CASE <kind> <n> unchanged|changed|unreadable <detail>`.
fn cases<K: DeserializeOwned + Serialize>(folder: &str, kind: &str, unknown_enum: Option<&str>) {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{folder}/examples.yaml")).unwrap();
    let options = serde_saphyr::options! { budget: serde_saphyr::budget! { max_depth: 512 } };
    let mut examples: Vec<Value> = serde_saphyr::from_multiple_with_options::<Value>(&text, options)
        .unwrap()
        .into_iter()
        .filter(|d| d["kind"] == kind)
        .collect();
    assert!(!examples.is_empty(), "no {kind} example");
    if let Some(pointer) = unknown_enum {
        let mut newer = examples[0].clone();
        *newer.pointer_mut(pointer).unwrap() = json!("SomethingNewer");
        examples.push(newer);
    }
    for (n, example) in examples.iter().enumerate() {
        match serde_json::from_value::<K>(example.clone()) {
            Err(e) => println!("CASE {kind} {n} unreadable {e}"),
            Ok(typed) => {
                let back = serde_json::to_value(&typed).unwrap();
                if same(&back, example) {
                    println!("CASE {kind} {n} unchanged");
                } else {
                    println!("CASE {kind} {n} changed {back}");
                }
            }
        }
    }
}

/// The cases of a kind the generator made no resource type for: none reads.
#[allow(dead_code)] // only where a kind has no type
fn missing(folder: &str, kind: &str, unknown_enum: Option<&str>) {
    let text = std::fs::read_to_string(format!("{FIXTURES}/{folder}/examples.yaml")).unwrap();
    let count = text.matches(&format!("\nkind: {kind}\n")).count() + usize::from(unknown_enum.is_some());
    for n in 0..count {
        println!("CASE {kind} {n} unreadable: no resource type was generated");
    }
}

#[test]
fn round_trip() {
EOF
  sed -i "s|@FIXTURES@|$FIXTURES|" "$out"
  for entry in "${KINDS[@]}"; do
    read -r file kind version pointer <<< "$entry"
    [[ " $STORAGE_VERSIONS " == *" $kind=$version "* ]] || continue
    local folder=${file%%/*} enum=None module
    [ "$pointer" != - ] && enum="Some(\"$pointer\")"
    module="$(printf '%s' "$kind" | tr '[:upper:]' '[:lower:]')_$version"
    if [ "$crate" != kubeforge ] && ! grep -q "kind = \"$kind\"" "$WS/$crate/src/$module.rs"; then
      printf '    missing("%s", "%s", %s);\n' "$folder" "$kind" "$enum" >> "$out"
    else
      printf '    cases::<%s>("%s", "%s", %s);\n' "$($path "$file" "$kind" "$version")" \
        "$folder" "$kind" "$enum" >> "$out"
    fi
  done
  printf '}\n' >> "$out"
}
# kubeforge: types_kubeforge::external::<group, dots as _>::<version>::<Kind>.
kubeforge_path() {
  local group
  group=$(sed -n 's/^  group: //p' "$FIXTURES/$1" | head -1 | tr '.-' '__')
  printf 'types_kubeforge::external::%s::%s::%s' "$group" "$3" "$2"
}
# kopium: types_kopium::<kind, lowercase>_<version>::<the root its #[kube(root = ..)] names>.
kopium_path() {
  local module root
  module="$(printf '%s' "$2" | tr '[:upper:]' '[:lower:]')_$3"
  root=$(grep -o 'root = "[A-Za-z0-9]*"' "$WS/kopium/src/$module.rs" | head -1 | cut -d'"' -f2)
  printf 'types_kopium::%s::%s' "$module" "${root:-$2}"
}
kopium_plus_path() { kopium_path "$@" | sed 's/^types_kopium/types_kopium_plus/'; }
round_trip_test kubeforge kubeforge_path
round_trip_test kopium kopium_path
round_trip_test kopium-plus kopium_plus_path

# --- the figures ---------------------------------------------------------------------------
cd "$WS"
export CARGO_TARGET_DIR="$WORK/target"
log "building the dependencies and the round-trip tests (first time: minutes)"
cargo test --no-run --quiet >&2

declare -A ROUND SIZE CHECK BUILD
for crate in kubeforge kopium kopium-plus; do
  log "$crate: round trip"
  output=$(cargo test --quiet -p "types-$crate" --test round_trip -- --nocapture 2>/dev/null || true)
  total=$(grep -c '^CASE ' <<< "$output" || true)
  unchanged=$(grep -c '^CASE .* unchanged$' <<< "$output" || true)
  ROUND[$crate]="$unchanged of $total unchanged"
  grep '^CASE ' <<< "$output" | grep -v ' unchanged$' | cut -c1-160 | sed "s/^/  $crate: /" >&2 || true

  files=$(find "$crate/src" -name '*.rs' ! -name lib.rs ! -name mod.rs)
  # shellcheck disable=SC2086
  rustfmt --edition 2024 $files
  # shellcheck disable=SC2086
  lines=$(cat $files | wc -l)
  # shellcheck disable=SC2086
  bytes=$(cat $files | wc -c)
  # shellcheck disable=SC2086
  structs=$(cat $files | grep -c '^pub struct ' || true)
  # shellcheck disable=SC2086
  enums=$(cat $files | grep -c '^pub enum ' || true)
  SIZE[$crate]="$lines lines, $bytes bytes, $structs structs, $enums enums"

  for mode in check build; do
    cargo "$mode" --quiet -p "types-$crate" --lib >&2
    runs=""
    for _ in 1 2; do
      touch "$crate/src/lib.rs"
      /usr/bin/time -o "$WORK/time" -f '%e %U %S' cargo "$mode" --quiet -p "types-$crate" --lib >&2
      read -r wall user sys < "$WORK/time"
      runs+=$(awk -v w="$wall" -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f s CPU (%.1f s wall); ", u + s, w }')
    done
    if [ "$mode" = check ]; then CHECK[$crate]=${runs%; }; else BUILD[$crate]=${runs%; }; fi
  done
done

# --- how deep -----------------------------------------------------------------------------
deep_crd() { # levels out
  {
    printf 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: deeps.deep.example.com\nspec:\n  group: deep.example.com\n  names:\n    kind: Deep\n    listKind: DeepList\n    plural: deeps\n    singular: deep\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n'
    awk -v n="$1" 'BEGIN {
      pad = "            "
      for (i = 0; i < n; i++) { print pad "type: object"; print pad "properties:"; print pad "  child:"; pad = pad "    " }
      print pad "type: object"; print pad "properties:"; print pad "  leaf:"; print pad "    type: string"
    }'
  } > "$2"
}
DEEP=""
deep_project() { rm -rf "$WORK/deep-project" && mkdir -p "$WORK/deep-project" &&
  "$KUBEFORGE" init --domain example.com --project-name deep --dir "$WORK/deep-project" > /dev/null; }
kubeforge_reads() { deep_crd "$1" "$WORK/deep.yaml" && deep_project &&
  "$KUBEFORGE" create api --external --crd "$WORK/deep.yaml" --controller=false \
    --dir "$WORK/deep-project" > /dev/null 2>&1; }
kopium_reads() { deep_crd "$1" "$WORK/deep.yaml" && "$KOPIUM" -A -f "$WORK/deep.yaml" > /dev/null 2>&1; }
for levels in 200 250 300; do
  if kubeforge_reads "$levels"; then DEEP+="kubeforge: N = $levels generates"$'\n'
  else DEEP+="kubeforge: N = $levels is refused"$'\n'; fi
done
deepest=0
for levels in $(seq 20 80); do kopium_reads "$levels" && deepest=$levels || break; done
DEEP+="kopium: the deepest N that generates is $deepest"$'\n'

# --- the report ---------------------------------------------------------------------------
echo "kubeforge $("$KUBEFORGE" --version | awk '{print $2}') ($(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')), kopium $KOPIUM_VERSION, $(rustc --version | awk '{print $1, $2}'), $(date -u +%F), $(nproc) cores: $(uname -m)"
echo
echo "| | kubeforge | kopium | kopium+ |"
echo "|---|---|---|---|"
echo "| round trip of the examples and unknown enum values | ${ROUND[kubeforge]} | ${ROUND[kopium]} | ${ROUND[kopium-plus]} |"
echo "| size (rustfmt) | ${SIZE[kubeforge]} | ${SIZE[kopium]} | ${SIZE[kopium-plus]} |"
echo "| \`cargo check\` (two runs) | ${CHECK[kubeforge]} | ${CHECK[kopium]} | ${CHECK[kopium-plus]} |"
echo "| \`cargo build\` (debug, two runs) | ${BUILD[kubeforge]} | ${BUILD[kopium]} | ${BUILD[kopium-plus]} |"
echo
echo "Schemas nested N objects deep below spec:"
printf '%s' "$DEEP"
