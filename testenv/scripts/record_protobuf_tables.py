#!/usr/bin/env python3
"""Writes the protobuf decoding tables (src/support/protobuf/) of the kinds named in ROOTS
from the Go types of k8s.io/api and k8s.io/apimachinery: per struct its fields in declaration
order, each with its protobuf field number (the `protobuf:"..."` tag), its JSON name and how
Go writes it (pointer, value, list, map, inlined embedded struct).

A message the existing hand-written modules already describe (MODULES) is referred to, not
written again, except the kinds listed in REWRITE (written here with their status).

Usage: KUBE_SOURCES=<dir> record_protobuf_tables.py [tag] (the clones of kubernetes/api and
apimachinery in <dir> are read with git at <tag>, default v0.34.9); the files are written
beside the existing modules and formatted by `cargo fmt` afterwards.

With `--go-names` it writes instead go_name_exceptions.rs: for every message of every module,
the Go name of each field whose Go name is not the one derived from its JSON name (as
go_names.rs derives it), read from the Go types of the served versions (clones of kubernetes/api,
apimachinery, apiextensions-apiserver and kube-aggregator in <dir>).
"""

import os
import re
import subprocess
import sys

SOURCES = os.environ["KUBE_SOURCES"]
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "support", "protobuf")

META = "k8s.io/apimachinery/pkg/apis/meta/v1"
API = "k8s.io/api/"

# Types with their own protobuf form, by import path and name: the `Ty` that reads them.
SPECIAL = {
    (META, "Time"): "Time",
    (META, "MicroTime"): "MicroTime",
    (META, "FieldsV1"): "FieldsV1",
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "Quantity",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "IntOrString",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): "Raw",
}
EXTERNAL_STRINGS = {"k8s.io/apimachinery/pkg/types"}

# The existing modules and the Go package their messages belong to.
MODULES = {
    "meta": META,
    "meta_more": META,
    "core": API + "core/v1",
    "pod": API + "core/v1",
    "pod_affinity": API + "core/v1",
    "pod_container": API + "core/v1",
    "pod_probes": API + "core/v1",
    "pod_security": API + "core/v1",
    "pod_volumes": API + "core/v1",
    "pod_volumes_legacy": API + "core/v1",
    "apps": API + "apps/v1",
    "batch": API + "batch/v1",
    "networking": API + "networking/v1",
    "policy": API + "policy/v1",
    "autoscaling": API + "autoscaling/v1",
}
# Kinds the existing modules describe without their status: written again, with it.
REWRITE = {
    (API + "core/v1", "Namespace"), (API + "core/v1", "Service"),
    (API + "core/v1", "ResourceQuota"), (API + "core/v1", "Pod"),
    (API + "apps/v1", "Deployment"), (API + "batch/v1", "Job"), (API + "batch/v1", "CronJob"),
    (API + "policy/v1", "PodDisruptionBudget"), (API + "networking/v1", "Ingress"),
    (API + "autoscaling/v1", "HorizontalPodAutoscaler"),
}

# (apiVersion, package, kind, file): every kind of the served resources of these groups that a
# client may send (ComponentStatus is read-only), in the order their files may depend on.
ROOTS = [
    ("v1", "core/v1", "Pod", "pod_status"),
    ("v1", "core/v1", "Namespace", "core_kinds"),
    ("v1", "core/v1", "Service", "core_kinds"),
    ("v1", "core/v1", "ResourceQuota", "core_kinds"),
    ("v1", "core/v1", "Binding", "core_kinds"),
    ("v1", "core/v1", "Endpoints", "core_kinds"),
    ("v1", "core/v1", "Event", "core_kinds"),
    ("v1", "core/v1", "LimitRange", "core_kinds"),
    ("v1", "core/v1", "PodTemplate", "core_kinds"),
    ("v1", "core/v1", "ReplicationController", "core_kinds"),
    ("v1", "core/v1", "PersistentVolumeClaim", "persistent_volume"),
    ("v1", "core/v1", "PersistentVolume", "persistent_volume"),
    ("v1", "core/v1", "Node", "core_node"),
    ("apps/v1", "apps/v1", "Deployment", "apps_kinds"),
    ("apps/v1", "apps/v1", "DaemonSet", "apps_kinds"),
    ("apps/v1", "apps/v1", "ReplicaSet", "apps_kinds"),
    ("apps/v1", "apps/v1", "StatefulSet", "apps_kinds"),
    ("apps/v1", "apps/v1", "ControllerRevision", "apps_kinds"),
    ("batch/v1", "batch/v1", "Job", "batch_kinds"),
    ("batch/v1", "batch/v1", "CronJob", "batch_kinds"),
    ("autoscaling/v1", "autoscaling/v1", "HorizontalPodAutoscaler", "autoscaling_kinds"),
    ("autoscaling/v1", "autoscaling/v1", "Scale", "autoscaling_kinds"),
    ("autoscaling/v2", "autoscaling/v2", "HorizontalPodAutoscaler", "autoscaling_v2"),
    ("policy/v1", "policy/v1", "PodDisruptionBudget", "policy_kinds"),
    ("policy/v1", "policy/v1", "Eviction", "policy_kinds"),
    ("networking.k8s.io/v1", "networking/v1", "Ingress", "networking_kinds"),
    ("networking.k8s.io/v1", "networking/v1", "IngressClass", "networking_kinds"),
    ("networking.k8s.io/v1", "networking/v1", "NetworkPolicy", "networking_kinds"),
    ("networking.k8s.io/v1", "networking/v1", "IPAddress", "networking_kinds"),
    ("networking.k8s.io/v1", "networking/v1", "ServiceCIDR", "networking_kinds"),
    ("discovery.k8s.io/v1", "discovery/v1", "EndpointSlice", "discovery"),
    ("events.k8s.io/v1", "events/v1", "Event", "events"),
    ("coordination.k8s.io/v1", "coordination/v1", "Lease", "coordination"),
]
KINDS_FILE = "kinds_core"

DOCS = {
    "pod_status": "`v1` Pod with its status: the messages of a PodStatus.",
    "core_kinds": "The other writable `v1` kinds (Namespace, Service and ResourceQuota with their "
                  "status, Binding, Endpoints, Event, LimitRange, PodTemplate, "
                  "ReplicationController).",
    "persistent_volume": "`v1` PersistentVolume and PersistentVolumeClaim, with their status.",
    "core_node": "`v1` Node, with its status.",
    "apps_kinds": "`apps/v1`: Deployment, DaemonSet, ReplicaSet, StatefulSet and "
                  "ControllerRevision, with their status.",
    "batch_kinds": "`batch/v1`: Job and CronJob, with their status.",
    "autoscaling_kinds": "`autoscaling/v1`: HorizontalPodAutoscaler with its status, and Scale.",
    "autoscaling_v2": "`autoscaling/v2`: HorizontalPodAutoscaler, with its status.",
    "policy_kinds": "`policy/v1`: PodDisruptionBudget with its status, and Eviction.",
    "networking_kinds": "`networking.k8s.io/v1`: Ingress, IngressClass, NetworkPolicy, IPAddress "
                        "and ServiceCIDR, with their status.",
    "discovery": "`discovery.k8s.io/v1`: EndpointSlice.",
    "events": "`events.k8s.io/v1`: Event.",
    "coordination": "`coordination.k8s.io/v1`: Lease.",
}


def git(mirror, *args):
    return subprocess.run(["git", "-C", f"{SOURCES}/{mirror}", *args], check=True,
                          capture_output=True, text=True).stdout


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse_package(tag, mirror, folder):
    """Struct fields (json name, flags, Go type, Go name, protobuf number) and named types."""
    structs, named = {}, {}
    files = [p for p in git(mirror, "ls-tree", "--name-only", f"{tag}:{folder}").split()
             if p.endswith(".go") and not p.endswith("_test.go")
             and not p.startswith(("zz_generated", "generated")) and "swagger_doc" not in p]
    for name in files:
        text = strip_comments(git(mirror, "show", f"{tag}:{folder}/{name}"))
        imports = {}
        for block in re.findall(r"import\s*\((.*?)\)", text, flags=re.S) + re.findall(
                r'import\s+(\w*\s*"[^"]+")', text):
            for alias, path in re.findall(r'(\w*)\s*"([^"]+)"', block):
                imports[alias or path.rsplit("/", 1)[-1]] = path
        for type_name, body in re.findall(r"\ntype\s+(\w+)\s+struct\s*{(}|.*?\n})", text,
                                          flags=re.S):
            fields = []
            for line in body[:-1].split("\n"):
                line = line.strip()
                if not line:
                    continue
                head, _, tag_text = line.partition("`")
                tokens = head.split()
                field, gotype = (None, tokens[0]) if len(tokens) == 1 else (
                    tokens[0], " ".join(tokens[1:]))
                json_tag = re.search(r'json:"([^"]*)"', tag_text)
                parts = (json_tag.group(1) if json_tag else "").split(",")
                proto = re.search(r'protobuf:"\w+,(\d+),', tag_text)
                if parts[0] == "-" or not proto:
                    continue
                fields.append((parts[0] or None, set(parts[1:]), gotype, field,
                               int(proto.group(1))))
            structs[type_name] = (fields, imports)
        for type_name, underlying in re.findall(r"\ntype\s+(\w+)\s+([^\s{][^\n{]*)\n", text):
            if underlying.strip() != "struct":
                named[type_name] = (underlying.strip().lstrip("= ").strip(), imports)
    return structs, named


def screaming(name):
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    return s.upper()


# The Go packages of the served versions whose types the modules describe: import path and
# (clone, folder).
GO_NAME_PACKAGES = {
    META: ("apimachinery", "pkg/apis/meta/v1"),
    "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1": (
        "apiextensions-apiserver", "pkg/apis/apiextensions/v1"),
    "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1": (
        "kube-aggregator", "pkg/apis/apiregistration/v1"),
    **{API + folder: ("api", folder) for folder in [
        "admissionregistration/v1", "apps/v1", "authentication/v1", "authorization/v1",
        "autoscaling/v1", "autoscaling/v2", "batch/v1", "certificates/v1", "coordination/v1",
        "core/v1", "discovery/v1", "events/v1", "flowcontrol/v1", "networking/v1", "node/v1",
        "policy/v1", "rbac/v1", "resource/v1", "scheduling/v1", "storage/v1"]},
}

# The leading initialisms go_names.rs writes in capitals.
INITIALISMS = {"api", "cidr", "cpu", "dns", "fs", "http", "id", "io", "ip", "ipc", "ips", "json",
               "os", "pid", "tcp", "tls", "udp", "uid", "url"}


def derived(json_name):
    """The Go name go_names.rs derives from a JSON name: an object's `metadata` is its embedded
    ObjectMeta."""
    if json_name == "metadata":
        return "ObjectMeta"
    head = re.match(r"[a-z]*", json_name).group(0)
    if head in INITIALISMS:
        return head.upper() + json_name[len(head):]
    return json_name[:1].upper() + json_name[1:]


def go_names(tag):
    parsed = {path: parse_package(tag, *where) for path, where in GO_NAME_PACKAGES.items()}
    statics = {}  # module::STATIC -> (Go name, [(number, json name or None, inlined Go name)])
    for name in sorted(os.listdir(OUT)):
        if not name.endswith(".rs") or "test" in name:
            continue
        module = name[:-3]
        text = open(os.path.join(OUT, name)).read()
        shared = dict(re.findall(r"static (\w+): \[Field; \d+\] = \[(.*?)\];", text, flags=re.S))
        for static, go_name, body, named in re.findall(
                r'static (\w+): Message =\s*Message::new\(\s*"(\w+)",\s*&(?:\[(.*?)\]|(\w+)),?\s*\);',
                text, flags=re.S):
            body = shared[named] if named else body
            fields = [(int(n), j, None) for n, j in re.findall(
                r'\b(?:val|ptr|list|map|unset)\(\s*(\d+),\s*"([^"]*)"', body)]
            fields += [(int(n), None, target) for n, target in re.findall(
                r'\binline\(\s*(\d+),\s*&([\w:]+)\s*\)', body)]
            statics[f"{module}::{static}"] = (go_name, fields, module)
    exceptions = {}  # (Go type, number) -> Go field name
    unmatched = []
    for key, (go_type, fields, module) in sorted(statics.items()):
        numbers = {n: j for n, j, _ in fields if j is not None}
        candidates = []
        for structs, _ in parsed.values():
            if go_type in structs:
                go_fields = {number: (json or None, go_field, gotype)
                             for json, _, gotype, go_field, number in structs[go_type][0]}
                # A custom type's fields (JSONSchemaPropsOrBool) have no JSON names.
                if all(n in go_fields and (go_fields[n][0] or derived(j)) in (j, go_fields[n][1])
                       for n, j in numbers.items()):
                    candidates.append(go_fields)
        if not candidates:
            unmatched.append(f"{key} ({go_type})")
            continue
        for number, json_name, inlined in fields:
            names = set()
            for go_fields in candidates:
                _, go_field, gotype = go_fields[number]
                names.add(go_field or gotype.lstrip("*").rsplit(".", 1)[-1])
            if len(names) != 1:
                raise SystemExit(f"{key} field {number}: Go names {names}")
            go_name = names.pop()
            if inlined is not None:
                target = inlined.removeprefix("super::")
                if target not in statics:
                    # Imported with `use`: the static of that name, in whichever module.
                    static = target.rsplit("::", 1)[-1]
                    found = {statics[k][0] for k in statics if k.endswith("::" + static)}
                    if len(found) != 1:
                        raise SystemExit(f"{key}: cannot tell which {static} is inlined")
                    expected = found.pop()
                else:
                    expected = statics[target][0]
            else:
                expected = derived(json_name)
            if go_name != expected:
                if exceptions.get((go_type, number), go_name) != go_name:
                    raise SystemExit(f"{go_type} field {number}: two Go names")
                exceptions[(go_type, number)] = go_name
    if unmatched:
        print("no Go struct found for (names derived, checked by unit tests):",
              ", ".join(unmatched), file=sys.stderr)
    with open(os.path.join(OUT, "go_name_exceptions.rs"), "w") as out:
        out.write("//! The Go names of the fields whose Go name is not the one derived from their JSON "
                  "name\n//! (go_names.rs): (message, field number, Go name).\n//!\n"
                  "//! Written by `scripts/record_protobuf_tables.py --go-names` from the Go types "
                  "of k8s.io/api v1.34.\n\n"
                  "/// (message, field number, Go name), sorted.\n"
                  "pub(super) static GO_NAME_EXCEPTIONS: &[(&str, u64, &str)] = &[\n")
        for (go_type, number), go_name in sorted(exceptions.items()):
            out.write(f'    ("{go_type}", {number}, "{go_name}"),\n')
        out.write("];\n")
    print(f"written: go_name_exceptions ({len(exceptions)} names)", file=sys.stderr)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    tag = args[0] if args else "v0.34.9"
    if "--go-names" in sys.argv:
        go_names(tag)
        return
    packages = {META: ("apimachinery", "pkg/apis/meta/v1")}
    for _, folder, _, _ in ROOTS:
        packages[API + folder] = ("api", folder)
    parsed = {path: parse_package(tag, *where) for path, where in packages.items()}

    existing = {}  # (package, Go name) -> "module::STATIC"
    for module, package in MODULES.items():
        text = open(os.path.join(OUT, module + ".rs")).read()
        for static, go_name in re.findall(
                r'static (\w+): Message =\s*Message::new\(\s*"(\w+)"', text):
            if (package, go_name) not in REWRITE:
                existing[(package, go_name)] = f"{module}::{static}"

    placed = {}  # (package, Go name) -> (file, STATIC)
    files = {}   # file -> list of (static, go name, package, [field lines])
    used = {}    # file -> set of constructors

    def lookup(gotype, pkg, imports):
        if "." in gotype:
            alias, name = gotype.split(".", 1)
            return imports.get(alias, alias), name
        return pkg, gotype

    def resolve(gotype, pkg, imports):
        """(shape, ty) of a field of Go type `gotype`: shape is val, ptr, list or map."""
        if gotype.startswith("*"):
            return "ptr", ty_of(gotype[1:], pkg, imports)
        if gotype == "[]byte":
            return "val", "Ty::Bytes"
        if gotype.startswith("[]"):
            return "list", ty_of(gotype[2:], pkg, imports)
        if gotype.startswith("map["):
            return "map", ty_of(gotype[gotype.index("]") + 1:], pkg, imports)
        target = lookup(gotype, pkg, imports)
        if target not in SPECIAL and target[0] in parsed and target[1] in parsed[target[0]][1]:
            underlying, named_imports = parsed[target[0]][1][target[1]]
            if underlying.startswith(("[", "map[", "*")):
                return resolve(underlying, target[0], named_imports)
        return "val", ty_of(gotype, pkg, imports)

    def ty_of(gotype, pkg, imports):
        if gotype == "[]byte":
            return "Ty::Bytes"
        if gotype == "string":
            return "Ty::Str"
        if gotype == "bool":
            return "Ty::Bool"
        if re.fullmatch(r"u?int(8|16|32|64)?", gotype):
            return "Ty::Int"
        target = lookup(gotype, pkg, imports)
        if target in SPECIAL:
            return "Ty::" + SPECIAL[target]
        if target[0] in EXTERNAL_STRINGS:
            return "Ty::Str"
        if target[0] not in parsed:
            raise SystemExit(f"unknown type {gotype} in {pkg}")
        structs, named = parsed[target[0]]
        if target[1] in structs:
            return ("msg", target)
        if target[1] in named:
            underlying, named_imports = named[target[1]]
            return ty_of(underlying, target[0], named_imports)
        raise SystemExit(f"unknown type {gotype} in {pkg}")

    def reference(target, file):
        if target in existing:
            return "super::" + existing[target]
        if target not in placed:
            place(target, file)
        where, static = placed[target]
        return static if where == file else f"super::{where}::{static}"

    def place(target, file):
        pkg, name = target
        statics = {s for s, *_ in files.setdefault(file, [])}
        static = screaming(name)
        if static in statics:
            static = f"{screaming(name)}_{pkg.rsplit('/', 2)[-2].upper()}"
        placed[target] = (file, static)
        entry = [static, name, pkg, []]
        files[file].append(entry)
        fields, imports = parsed[pkg][0][name]
        lines = []
        for json_name, flags, gotype, go_field, number in fields:
            if json_name is None and ("inline" in flags or go_field is None):
                inner = lookup(gotype, pkg, imports)
                lines.append(f"inline({number}, &{reference(inner, file)})")
                used.setdefault(file, set()).add("inline")
                continue
            shape, ty = resolve(gotype, pkg, imports)
            if isinstance(ty, tuple):
                ty = f"Ty::Msg(&{reference(ty[1], file)})"
            lines.append(f'{shape}({number}, "{json_name or go_field}", {ty})')
            used.setdefault(file, set()).add(shape)
        entry[3] = lines

    kinds = []
    for api_version, folder, kind, file in ROOTS:
        target = (API + folder, kind)
        if target not in existing and target not in placed:
            place(target, file)
        ref = existing.get(target) or "::".join(placed[target])
        kinds.append((api_version, kind, "super::" + ref))
    for name, entries in files.items():
        with open(os.path.join(OUT, name + ".rs"), "w") as out:
            out.write(f"//! {DOCS[name]}\n//!\n")
            out.write("//! Written by `scripts/record_protobuf_tables.py` from the Go types of "
                      "k8s.io/api v1.34.\n\n")
            constructors = ", ".join(sorted(used.get(name, set())))
            out.write(f"use super::schema::{{Message, Ty, {constructors}}};\n")
            for static, go_name, pkg, lines in entries:
                body = ",\n".join(lines)
                out.write(f"\n/// `{go_name}`.\npub(super) static {static}: Message = "
                          f"Message::new(\n\"{go_name}\",\n&[{body}],\n);\n")
    with open(os.path.join(OUT, KINDS_FILE + ".rs"), "w") as out:
        out.write("//! The message of each kind of the served resources of the core, apps, batch, "
                  "autoscaling,\n//! policy, networking, discovery, events and coordination groups "
                  "that a client may send.\n\nuse super::schema::Message;\n\n"
                  "/// apiVersion, kind, message.\npub(super) static KINDS: "
                  "&[(&str, &str, &Message)] = &[\n")
        for api_version, kind, ref in kinds:
            out.write(f'    ("{api_version}", "{kind}", &{ref}),\n')
        out.write("];\n")
    print("written:", ", ".join(sorted(files)), file=sys.stderr)


if __name__ == "__main__":
    main()
