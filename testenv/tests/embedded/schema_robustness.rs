//! The pure functions the server runs on every request never panic on odd input and are
//! idempotent where the real server's are: pruning twice prunes nothing more, defaulting
//! twice changes nothing more, an empty strategic patch is a no-op. Inputs come from a
//! small deterministic generator, so failures reproduce.

use kubeforge_testenv::defaults::apply_builtin_defaults;
use kubeforge_testenv::openapi::{openapi_v3_group_version, openapi_v3_paths};
use kubeforge_testenv::patch::strategic::strategic_merge;
use kubeforge_testenv::schema::{
    apply_defaults, check_structural, prune, validate, validate_update,
};
use serde_json::{Map, Value, json};

/// xorshift64*: tiny, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const KEYS: &[&str] = &[
    "spec",
    "status",
    "name",
    "size",
    "image",
    "containers",
    "ports",
    "env",
    "port",
    "type",
    "conditions",
    "metadata",
    "labels",
    "$patch",
    "value",
    "é",
    "",
];

fn value(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.below(20) as i64 - 5),
        3 => json!((rng.below(1000) as f64) / 7.0),
        4 => json!(rng.pick(&[
            "",
            "a",
            "nginx:1.2",
            "replace",
            "delete",
            "2024-01-01T00:00:00Z",
            "ü"
        ])),
        5 => json!(rng.pick(KEYS)),
        6 => Value::Array((0..rng.below(4)).map(|_| value(rng, depth - 1)).collect()),
        _ => {
            let mut m = Map::new();
            for _ in 0..rng.below(5) {
                m.insert(rng.pick(KEYS).to_string(), value(rng, depth - 1));
            }
            Value::Object(m)
        }
    }
}

fn schema(rng: &mut Rng, depth: u32) -> Value {
    let ty = rng.pick(&[
        "object", "array", "string", "integer", "number", "boolean", "",
    ]);
    let mut s = Map::new();
    if !ty.is_empty() {
        s.insert("type".into(), json!(ty));
    }
    for (key, val) in [
        ("nullable", json!(true)),
        ("x-kubernetes-preserve-unknown-fields", json!(true)),
        ("x-kubernetes-int-or-string", json!(true)),
        ("x-kubernetes-embedded-resource", json!(true)),
        ("minimum", json!(1)),
        ("maxLength", json!(3)),
        ("pattern", json!("^[a-z]+$")),
        (
            "format",
            json!(rng.pick(&["date-time", "uuid", "int32", "byte"])),
        ),
        ("enum", json!(["a", 1, null])),
        ("default", value(rng, 1)),
        (
            "x-kubernetes-list-type",
            json!(rng.pick(&["set", "map", "atomic"])),
        ),
        ("x-kubernetes-list-map-keys", json!(["name"])),
        (
            "x-kubernetes-validations",
            json!([{"rule": rng.pick(&["self.size > 1", "has(self.name)", "self == oldSelf", "size(self) < 3", "self.all(x, x != '')"])}]),
        ),
        ("maxItems", json!(2)),
        ("required", json!(["name"])),
    ] {
        if rng.below(6) == 0 {
            s.insert(key.into(), val);
        }
    }
    if depth > 0 {
        if rng.below(2) == 0 {
            let mut props = Map::new();
            for _ in 0..rng.below(4) {
                props.insert(rng.pick(KEYS).to_string(), schema(rng, depth - 1));
            }
            s.insert("properties".into(), Value::Object(props));
        }
        if rng.below(4) == 0 {
            s.insert("items".into(), schema(rng, depth - 1));
        }
        if rng.below(6) == 0 {
            s.insert("additionalProperties".into(), schema(rng, depth - 1));
        }
        if rng.below(8) == 0 {
            s.insert(
                "anyOf".into(),
                json!([schema(rng, depth - 1), schema(rng, depth - 1)]),
            );
        }
    }
    Value::Object(s)
}

#[test]
fn schema_functions_never_panic_and_are_idempotent() {
    let mut rng = Rng(0x5eed_1234_abcd_ef01);
    for round in 0..1500 {
        let s = schema(&mut rng, 3);
        let mut object = value(&mut rng, 4);
        let old = value(&mut rng, 4);

        prune(&mut object, &s);
        let once = object.clone();
        assert!(
            prune(&mut object, &s).is_empty(),
            "round {round}: second prune removed fields\n{s:#}\n{once:#}"
        );

        apply_defaults(&mut object, &s);
        let defaulted = object.clone();
        apply_defaults(&mut object, &s);
        assert_eq!(
            object, defaulted,
            "round {round}: defaulting is not idempotent\n{s:#}"
        );

        let _ = validate(&object, &s);
        let _ = validate_update(&object, &old, &s);

        let crd = json!({
            "metadata": {"name": "things.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "things", "kind": "Thing"},
                "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": s}}]}
        });
        let _ = check_structural(&crd);
        if round % 100 == 0 {
            let doc = openapi_v3_group_version(std::slice::from_ref(&crd), "example.com", "v1");
            assert!(
                doc.is_some(),
                "round {round}: no document for a served version"
            );
        }
        if round % 1000 == 0 {
            let index = openapi_v3_paths(std::slice::from_ref(&crd));
            assert!(index["paths"].get("apis/example.com/v1").is_some());
        }
    }
}

#[test]
fn patch_and_builtin_defaults_never_panic() {
    let mut rng = Rng(0x0ddb_a11c_0ffe_e123);
    let kinds = [
        ("", "Pod"),
        ("", "Service"),
        ("", "Secret"),
        ("", "Namespace"),
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("example.com", "Thing"),
    ];
    for round in 0..3000 {
        let (group, kind) = kinds[rng.below(kinds.len() as u64) as usize];
        let mut object = value(&mut rng, 5);
        if !object.is_object() {
            object = json!({"spec": object});
        }
        let patch = value(&mut rng, 5);

        let before = object.clone();
        strategic_merge(&mut object, &json!({}), group, kind).unwrap();
        assert_eq!(
            object, before,
            "round {round}: empty patch changed the object"
        );
        let mut patched = object.clone();
        if strategic_merge(&mut patched, &patch, group, kind).is_err() {
            assert_eq!(
                patched, object,
                "round {round}: a failed patch changed the object"
            );
        }

        let version = if kind == "HorizontalPodAutoscaler" {
            "v2"
        } else {
            "v1"
        };
        apply_builtin_defaults(group, version, kind, &mut object);
        let defaulted = object.clone();
        apply_builtin_defaults(group, version, kind, &mut object);
        assert_eq!(
            object, defaulted,
            "round {round}: {kind} defaulting is not idempotent"
        );
    }
}
