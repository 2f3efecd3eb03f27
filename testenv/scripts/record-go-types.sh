#!/usr/bin/env bash
# Records how Go writes the built-in API types as JSON, for the embedded server's encoder
# (src/support/go_wire.rs):
#
#   src/support/go_types.json   per struct of the served group/versions (keyed by its OpenAPI
#                               component name, as src/openapi/builtin/schemas.json names
#                               them): its JSON fields in Go declaration order with their
#                               omitempty/omitzero flags and Go shape (see record_go_types.py)
#
# The Go sources are read from the bare mirrors of k8s.io/api, k8s.io/apimachinery,
# k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator under /work/.mirror.
#
# Usage: testenv/scripts/record-go-types.sh [tag]   (default v0.34.9, the v1.34.9 server's types)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tag="${1:-v0.34.9}"
python3 "$here/record_go_types.py" "$tag" "$here/../src/openapi/builtin/schemas.json" \
  "$here/../src/support/go_types.json"
