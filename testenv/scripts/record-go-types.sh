#!/usr/bin/env bash
# Records how Go writes the built-in API types as JSON, for the embedded server's encoder
# (src/support/go_types.rs):
#
#   src/support/go_types.json   per struct of the served group/versions (keyed by its OpenAPI
#                               component name, as src/openapi/builtin/schemas.json names
#                               them): its JSON fields in Go declaration order with their
#                               omitempty/omitzero flags, Go shape and named scalar type
#                               (see record_go_types.py)
#
# The Go sources are read with git from clones of github.com/kubernetes/api, apimachinery,
# apiextensions-apiserver and kube-aggregator, in one directory, each named after its repository.
#
# Usage: KUBE_SOURCES=<that directory> testenv/scripts/record-go-types.sh [tag]
#        (tag default v0.34.9, the types of the v1.34.9 server the recordings come from)
set -euo pipefail
: "${KUBE_SOURCES:?set KUBE_SOURCES to a directory with clones of kubernetes/api, apimachinery, apiextensions-apiserver and kube-aggregator}"
here="$(cd "$(dirname "$0")" && pwd)"
tag="${1:-v0.34.9}"
python3 "$here/record_go_types.py" "$tag" "$here/../src/openapi/builtin/schemas.json" \
  "$here/../src/support/go_types.json"
