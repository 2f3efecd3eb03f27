#!/usr/bin/env python3
"""Records how Go writes the built-in API types as JSON: per struct (keyed by its OpenAPI
component name, only those in src/openapi/builtin/schemas.json), its JSON fields in
declaration order, embedded inline structs flattened in place, each as "<name> <shape>" with
the flags `e` (omitempty) and `z` (omitzero) after the shape letter, then, for a field whose
values are of a named scalar type, that type as `reflect` prints it ("protocol se v1.Protocol").

Shapes: `p` pointer, `l` slice, `y` []byte (base64), `m` map, `o` value struct,
`s` string, `i` integer, `f` float, `b` bool, `t` metav1.Time or MicroTime (zero is null),
`q` resource.Quantity, `x` intstr.IntOrString, `d` metav1.Duration, `r` a raw value
(runtime.RawExtension, apiextensions JSON: zero is null).

Usage: KUBE_SOURCES=<dir> record_go_types.py <tag> <schemas.json> <out.json> (the clones in
<dir> are read with git at <tag>).
"""

import json
import os
import re
import subprocess
import sys

# A directory of git clones (bare or not) of github.com/kubernetes/{api, apimachinery,
# apiextensions-apiserver, kube-aggregator}, each named after its repository.
SOURCES = os.environ["KUBE_SOURCES"]

# (repository, folder in it, Go import path, OpenAPI prefix or None)
PACKAGES = [
    ("apimachinery", "pkg/apis/meta/v1", "k8s.io/apimachinery/pkg/apis/meta/v1",
     "io.k8s.apimachinery.pkg.apis.meta.v1"),
    ("apimachinery", "pkg/version", "k8s.io/apimachinery/pkg/version",
     "io.k8s.apimachinery.pkg.version"),
    ("apiextensions-apiserver", "pkg/apis/apiextensions/v1",
     "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
     "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1"),
    ("kube-aggregator", "pkg/apis/apiregistration/v1",
     "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1",
     "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1"),
]

# Types with their own JSON marshaller, by import path and name.
SPECIAL = {
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Time"): "t",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "MicroTime"): "t",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "Duration"): "d",
    ("k8s.io/apimachinery/pkg/api/resource", "Quantity"): "q",
    ("k8s.io/apimachinery/pkg/util/intstr", "IntOrString"): "x",
    ("k8s.io/apimachinery/pkg/runtime", "RawExtension"): "r",
    ("k8s.io/apimachinery/pkg/apis/meta/v1", "FieldsV1"): "r",
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "JSON"): "r",
    # A schema, a list of schemas, a bool or a list of strings; their schemas are written as
    # JSONSchemaProps are.
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "JSONSchemaPropsOrArray"): "r",
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", "JSONSchemaPropsOrBool"): "r",
    ("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
     "JSONSchemaPropsOrStringArray"): "r",
}
# Scalar named types of packages not parsed here.
EXTERNAL_SCALARS = {"k8s.io/apimachinery/pkg/types": "s"}
SCALARS = {"string": "s", "bool": "b", "float32": "f", "float64": "f"}


def git(mirror, *args):
    return subprocess.run(["git", "-C", f"{SOURCES}/{mirror}", *args], check=True,
                          capture_output=True, text=True).stdout


def api_packages(tag):
    folders = sorted({p.rsplit("/", 1)[0] for p in git("api", "ls-tree", "-r",
                      "--name-only", tag).split() if p.endswith("/types.go")})
    return [("api", f, "k8s.io/api/" + f, "io.k8s.api." + f.replace("/", "."))
            for f in folders]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def parse_package(tag, mirror, folder):
    """Struct fields and named types declared in the package's Go files."""
    structs, named, imports = {}, {}, {}
    files = [p for p in git(mirror, "ls-tree", "--name-only", f"{tag}:{folder}").split()
             if p.endswith(".go") and not p.endswith("_test.go")
             and not p.startswith(("zz_generated", "generated")) and "swagger_doc" not in p]
    for name in files:
        text = strip_comments(git(mirror, "show", f"{tag}:{folder}/{name}"))
        file_imports = {}
        for block in re.findall(r"import\s*\((.*?)\)", text, flags=re.S) + re.findall(
                r'import\s+(\w*\s*"[^"]+")', text):
            for alias, path in re.findall(r'(\w*)\s*"([^"]+)"', block):
                file_imports[alias or path.rsplit("/", 1)[-1]] = path
        for type_name, body in re.findall(r"\ntype\s+(\w+)\s+struct\s*{(}|.*?\n})", text,
                                          flags=re.S):
            body = body[:-1]
            fields = []
            for line in body.split("\n"):
                line = line.strip()
                if not line:
                    continue
                head, _, tag_text = line.partition("`")
                tokens = head.split()
                if len(tokens) == 1:
                    # An embedded type: `metav1.TypeMeta`.
                    field, gotype = None, tokens[0]
                else:
                    field, gotype = tokens[0], " ".join(tokens[1:])
                json_tag = re.search(r'json:"([^"]*)"', tag_text)
                parts = (json_tag.group(1) if json_tag else "").split(",")
                if parts[0] == "-":
                    continue
                fields.append((parts[0] or None, set(parts[1:]), gotype, field))
            structs[type_name] = (fields, file_imports)
        for type_name, underlying in re.findall(r"\ntype\s+(\w+)\s+([^\s{][^\n{]*)\n", text):
            if underlying.strip() != "struct":
                named[type_name] = (underlying.strip().lstrip("= ").strip(), file_imports)
    return structs, named


def main():
    tag, schemas_path, out_path = sys.argv[1:4]
    schemas = json.load(open(schemas_path))
    packages = PACKAGES + api_packages(tag)
    parsed = {path: parse_package(tag, mirror, folder) for mirror, folder, path, _ in packages}
    prefixes = {path: prefix for _, _, path, prefix in packages}

    def lookup(gotype, pkg, imports):
        """The package and name a Go type expression names."""
        if "." in gotype:
            alias, name = gotype.split(".", 1)
            return imports.get(alias, alias), name
        return pkg, gotype

    def shape(gotype, pkg, imports):
        if gotype.startswith("*"):
            return "p"
        if gotype == "[]byte":
            return "y"
        if gotype.startswith("["):
            return "l"
        if gotype.startswith("map["):
            return "m"
        if gotype in SCALARS:
            return SCALARS[gotype]
        if re.fullmatch(r"u?int(8|16|32|64)?", gotype):
            return "i"
        target = lookup(gotype, pkg, imports)
        if target in SPECIAL:
            return SPECIAL[target]
        if target[0] in EXTERNAL_SCALARS:
            return EXTERNAL_SCALARS[target[0]]
        if target[0] not in parsed:
            raise SystemExit(f"unknown type {gotype} in {pkg}")
        structs, named = parsed[target[0]]
        if target[1] in structs:
            return "o"
        if target[1] in named:
            underlying, named_imports = named[target[1]]
            return shape(underlying, target[0], named_imports)
        raise SystemExit(f"unknown type {gotype} in {pkg}")

    def named_scalar(gotype, pkg, imports):
        """How `reflect` prints a named scalar type (`v1.Protocol`, `types.UID`) that a field,
        its pointer, or its list's or map's values have, for the decoder's type errors; None
        for anything else."""
        inner = gotype.lstrip("*")
        while inner.startswith("[]"):
            inner = inner[2:].lstrip("*")
        if inner.startswith("map["):
            inner = inner[inner.index("]") + 1:].lstrip("*")
        if inner in SCALARS or re.fullmatch(r"u?int(8|16|32|64)?", inner) or "[" in inner:
            return None
        target = lookup(inner, pkg, imports)
        if target in SPECIAL:
            return None
        package_name = target[0].rsplit("/", 1)[-1]
        if target[0] in EXTERNAL_SCALARS:
            return f"{package_name}.{target[1]}"
        structs, named = parsed.get(target[0], ({}, {}))
        if target[1] not in named or target[1] in structs:
            return None
        underlying, named_imports = named[target[1]]
        if shape(underlying, target[0], named_imports) not in ("s", "i", "f", "b"):
            return None
        return f"{package_name}.{target[1]}"

    def fields_of(pkg, type_name):
        structs, _ = parsed[pkg]
        fields, imports = structs[type_name]
        out = []
        for name, flags, gotype, field in fields:
            if name is None and ("inline" in flags or field is None):
                inner_pkg, inner = lookup(gotype, pkg, imports)
                if inner not in parsed.get(inner_pkg, ({}, {}))[0]:
                    raise SystemExit(f"{pkg}.{type_name}: cannot inline {gotype!r} ({flags})")
                out.extend(fields_of(inner_pkg, inner))
                continue
            name = name or field
            letters = shape(gotype, pkg, imports)
            letters += "e" if "omitempty" in flags else ""
            letters += "z" if "omitzero" in flags else ""
            scalar = named_scalar(gotype, pkg, imports)
            out.append(f"{name} {letters} {scalar}" if scalar else f"{name} {letters}")
        return out

    table = {}
    for path, (structs, _) in parsed.items():
        for type_name in structs:
            component = f"{prefixes[path]}.{type_name}"
            if component in schemas and (path, type_name) not in SPECIAL:
                table[component] = fields_of(path, type_name)
    with open(out_path, "w") as out:
        out.write("{\n")
        out.write(",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                             for k, v in sorted(table.items())))
        out.write("\n}\n")
    missing = [k for k in schemas if k not in table]
    print(f"{len(table)} structs recorded; schemas without a Go struct: {missing}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
