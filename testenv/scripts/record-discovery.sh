#!/usr/bin/env bash
# Records what a real kube-apiserver serves, for the parity tests of the embedded server
# (testenv/tests/embedded/discovery_parity.rs):
#
#   tests/fixtures/kube-apiserver/discovery.json   legacy discovery (/api, /api/v1, /apis, /apis/<g>,
#                                                  /apis/<g>/<v>) and aggregated discovery
#                                                  (apidiscovery.k8s.io/v2 for /api and /apis), as served
#   tests/fixtures/kube-apiserver/openapi.json     the /openapi/v3 index keys and, per document, its
#                                                  paths (operations reduced to what is compared, see
#                                                  README "Discovery and OpenAPI parity") and schema names
#   src/openapi/builtin/schemas.json               every component schema of those documents without
#                                                  descriptions: the shapes the embedded server serves
#   src/controllers/bootstrap/objects.json         the objects kube-apiserver creates at start-up (RBAC
#                                                  roles and bindings, priority classes, flow schemas and
#                                                  priority levels, the local APIServices), without
#                                                  uid, timestamps and
#                                                  resourceVersion: what the embedded server creates
#
# Usage: testenv/scripts/record-discovery.sh
# Environment:
#   REALK8S      directory of the real control plane scripts (start.sh, stop.sh);
#                default: ../shared/realk8s next to the repository
#   RECORD_DIR   scratch directory for that control plane (default: a fresh temporary directory)
# The control plane runs without kube-controller-manager and with no feature gate beyond the
# defaults; it is stopped when the script ends. Needs curl and jq.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TESTENV=$(cd "$HERE/.." && pwd)
REPO=$(cd "$TESTENV/.." && pwd)
REALK8S=${REALK8S:-$(cd "$REPO/.." && pwd)/shared/realk8s}
FIXTURES=$TESTENV/tests/fixtures/kube-apiserver
SCHEMAS=$TESTENV/src/openapi/builtin/schemas.json
BOOTSTRAP=$TESTENV/src/controllers/bootstrap/objects.json

die() { echo "record-discovery: $*" >&2; exit 1; }
[ -x "$REALK8S/start.sh" ] || die "no start.sh in $REALK8S (set REALK8S to the real control plane's scripts)"
command -v jq >/dev/null || die "jq not found"
command -v curl >/dev/null || die "curl not found"

DIR=${RECORD_DIR:-$(mktemp -d /tmp/record-discovery.XXXXXX)}
export REALK8S_DIR=$DIR REALK8S_NO_KCM=1
trap '"$REALK8S/stop.sh" >/dev/null 2>&1 || true' EXIT
"$REALK8S/start.sh" >/dev/null
API=$(sed -n 's/^API_URL=//p' "$DIR/env")
P=$DIR/pki
get() { # PATH [ACCEPT]
  curl -sSf --cacert "$P/ca.crt" --cert "$P/admin.crt" --key "$P/admin.key" \
    -H "Accept: ${2:-application/json}" "$API$1"
}
AGG='application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
WORK=$DIR/record
mkdir -p "$WORK" "$FIXTURES" "$(dirname "$SCHEMAS")"

# ---- discovery, as served (the order of groups, versions and resources is part of it) ----------
version=$(get /version | jq -r .gitVersion)
{
  printf '{"server": %s, "legacy": {' "$(jq -n --arg v "$version" '$v')"
  # where this server listened is not part of the recording
  printf '"/api": %s' "$(get /api | jq -c '.serverAddressByClientCIDRs[].serverAddress = "<address>"')"
  printf ', "/api/v1": %s' "$(get /api/v1)"
  printf ', "/apis": %s' "$(get /apis)"
  for g in $(get /apis | jq -r '.groups[].name'); do
    printf ', "/apis/%s": %s' "$g" "$(get "/apis/$g")"
    for gv in $(get "/apis/$g" | jq -r '.versions[].groupVersion'); do
      printf ', "/apis/%s": %s' "$gv" "$(get "/apis/$gv")"
    done
  done
  printf '}, "aggregated": {"/api": %s, "/apis": %s}}' "$(get /api "$AGG")" "$(get /apis "$AGG")"
} | jq . >"$FIXTURES/discovery.json"

# ---- OpenAPI v3 --------------------------------------------------------------------------------------
keys=$(get /openapi/v3 | jq -r '.paths | keys[]')
for k in $keys; do
  get "/openapi/v3/$k" >"$WORK/$(echo "$k" | tr '/' '_').json"
done
# Each document reduced to what the parity test compares (descriptions left out): per path one
# line per operation and one for the path's own parameters (sorted), and the schemas it carries
# with the names of their properties.
#   <METHOD> <operationId> tags=<t,..> action=<x-kubernetes-action> gvk=<g/v/Kind>
#     params=<in>.<name>:<type>[!] ... body=<content type>:<schema>[!] <code>=<schema>:<content types> ...
# Schemas are named without "#/components/schemas/"; inline schemas are written as JSON; content
# types are shortened (json, yaml, pb for protobuf, ;watch for ;stream=watch) and sorted.
REDUCE='def ct: sub("^application/vnd.kubernetes.protobuf"; "pb") | sub("^application/"; "") | sub(";stream=watch$"; ";watch");
def schema: if . == null then "-" elif ."$ref" then (."$ref" | sub("^#/components/schemas/"; ""))
  elif .allOf then (.allOf[0]."$ref" | sub("^#/components/schemas/"; "")) else tojson end;
def param: "\(.in).\(.name):\(.schema.type // "-")\(if .required then "!" else "" end)\(if (.schema | del(.type) | del(.uniqueItems)) != {} or .schema.uniqueItems != true then "~" + (.schema | tojson) else "" end)";
def params: if (. // []) == [] then "" else " params=" + (map(param) | join(",")) end;
def op($m): "\($m | ascii_upcase) \(.operationId // "-") tags=\((.tags // []) | join(","))"
  + (if ."x-kubernetes-action" then " action=\(."x-kubernetes-action")" else "" end)
  + (if ."x-kubernetes-group-version-kind" then (."x-kubernetes-group-version-kind" | " gvk=\(.group)/\(.version)/\(.kind)") else "" end)
  + (.parameters | params)
  + (if .requestBody then " body=" + ([.requestBody.content | to_entries[] | "\(.key | ct):\(.value.schema | schema)"] | sort | join(",")) + (if .requestBody.required then "!" else "" end) else "" end)
  + ([.responses | to_entries[] | " \(.key)" + (if .value.content then "=" + ([.value.content | to_entries | group_by(.value.schema | schema)[] | "\(.[0].value.schema | schema):\(map(.key | ct) | sort | join(","))"] | join("|")) else "" end)] | join(""));
{
  paths: (.paths // {} | with_entries(.value |= ([to_entries[] |
    if .key == "parameters" then "PARAMETERS" + (.value | params) else (.key as $k | .value | op($k)) end] | sort))),
  schemas: (.components.schemas // {} | map_values((.properties // {}) | keys)),
  securitySchemes: (.components.securitySchemes // {} | keys)
}'
{
  printf '{"server": %s, "index": %s, "documents": {' "$(jq -n --arg v "$version" '$v')" \
    "$(get /openapi/v3 | jq -c '.paths | keys')"
  sep=
  for k in $keys; do
    printf '%s"%s": %s' "$sep" "$k" "$(jq -c "$REDUCE" "$WORK/$(echo "$k" | tr '/' '_').json")"
    sep=,
  done
  printf '}}'
} | jq . >"$FIXTURES/openapi.json"

# Every component schema once (they are the same in every document that carries them), without
# descriptions, one schema per line.
jq -s 'map(.components.schemas // {}) | add | walk(if type == "object" and (.description | type) == "string" then del(.description) else . end)' \
  "$WORK"/*.json | jq -r 'to_entries | "{", (map("  \(.key | tojson): \(.value | tojson)") | join(",\n")), "}"' \
  >"$SCHEMAS"

# ---- bootstrap objects (no kube-controller-manager runs: aggregated roles are as the server made
# them, the embedded server aggregates them as the controller would) ------------------------------
mkdir -p "$(dirname "$BOOTSTRAP")"
for path in /apis/rbac.authorization.k8s.io/v1/clusterroles /apis/rbac.authorization.k8s.io/v1/clusterrolebindings \
  /apis/rbac.authorization.k8s.io/v1/roles /apis/rbac.authorization.k8s.io/v1/rolebindings \
  /apis/scheduling.k8s.io/v1/priorityclasses /apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations \
  /apis/flowcontrol.apiserver.k8s.io/v1/flowschemas /apis/apiregistration.k8s.io/v1/apiservices; do
  get "$path" | jq -c --arg av "$(echo "$path" | sed -E 's|^/apis/||; s|/[^/]+$||')" \
    '.kind as $k | .items[] | .apiVersion = $av | .kind = ($k | sub("List$"; "")) | del(.status)
     | .metadata |= del(.uid, .resourceVersion, .creationTimestamp, .managedFields, .generation)'
done | jq -s . | jq -r '"[", (map("  \(tojson)") | join(",\n")), "]"' >"$BOOTSTRAP"

echo "recorded $version: $FIXTURES/discovery.json, $FIXTURES/openapi.json, $SCHEMAS, $BOOTSTRAP" >&2
