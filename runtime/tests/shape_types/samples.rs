//! Objects a Rust client writes (every enum variant, nulls, extreme numbers, nested free-form
//! data), and objects the schemas must refuse.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::num::NonZeroU32;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::{Value, json};

use super::enums::*;
use super::*;

fn map<V>(entries: impl IntoIterator<Item = (&'static str, V)>) -> BTreeMap<String, V> {
    entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

/// Scalars at their limits and ordinary values.
pub fn scalars() -> Vec<ScalarsSpec> {
    vec![
        ScalarsSpec {
            int8: i8::MIN,
            uint8: u8::MAX,
            uint16: u16::MAX,
            uint32: u32::MAX,
            // The largest unsigned value the schema allows: the largest int64 a float64 holds
            // exactly, 2^63 - 1024 (the server's integers are int64, its bounds float64).
            uint64: 9_223_372_036_854_774_784,
            int64: i64::MIN,
            size: 0,
            float32: 1.5,
            float64: -2.25e300,
            flag: true,
            letter: 'é',
            text: String::new(),
            nonzero: NonZeroU32::MIN,
            maybe_int: None,
            boxed: Box::new("boxed".into()),
            tags: BTreeSet::from(["a".into(), "b".into()]),
            ports: HashSet::from([80, 443]),
            pair: (-1, 1),
            triple: ("x".into(), 0, false),
            array: [0, 127, 255],
            bytes: Vec::new(),
            by_number: BTreeMap::from([(1, "one".into()), (20, "twenty".into())]),
            timeout: Duration::new(5, 500),
            address: "::1".parse().expect("an address"),
            port: Port(8080),
            name: Name { value: "n".into() },
            int_or_string: IntOrString::Int(80),
            memory: Some(Quantity("1Gi".into())),
        },
        ScalarsSpec {
            int8: 7,
            uint8: 0,
            uint16: 1,
            uint32: 0,
            uint64: 0,
            int64: i64::MAX,
            size: 12,
            float32: 0.1,
            float64: 0.1,
            flag: false,
            letter: 'x',
            text: "line\nbreak \"quoted\" ünïcode".into(),
            nonzero: NonZeroU32::MAX,
            maybe_int: Some(-5),
            boxed: Box::new(String::new()),
            tags: BTreeSet::new(),
            ports: HashSet::new(),
            pair: (0, 0),
            triple: (String::new(), -1, true),
            array: [1, 2, 3],
            bytes: vec![0, 255],
            by_number: BTreeMap::new(),
            timeout: Duration::ZERO,
            address: "10.0.0.1".parse().expect("an address"),
            port: Port(0),
            name: Name {
                value: String::new(),
            },
            int_or_string: IntOrString::String("http".into()),
            memory: None,
        },
    ]
}

/// Every variant of every enum, in the spec and the status.
pub fn enums() -> Vec<(EnumsSpec, Option<EnumsStatus>)> {
    let base = EnumsSpec {
        mode: Mode::Fast,
        level: Level::Error,
        maybe_mode: None,
        only: Only::One,
        maybe_only: None,
        source: Source::Git {
            url: "https://example.com/repo.git".into(),
            revision: None,
        },
        bound: Bound::Exactly(i64::MAX),
        sizing: Sizing::Auto,
        internal: Internal::Git {
            url: "u".into(),
            depth: None,
        },
        adjacent: Adjacent::Scale { replicas: 3 },
        int_or_name: IntOrName::Int(-3),
        selector: Selector::ByName { name: "a".into() },
        loose: Loose::Flag(true),
        renamed: Renamed::HttpGet { path: "/".into() },
        shared: Shared::A {
            name: "a".into(),
            value: 1,
        },
        maybe_internal: None,
    };
    vec![
        (base.clone(), None),
        (
            EnumsSpec {
                mode: Mode::Slow,
                level: Level::Debug,
                maybe_mode: Some(Mode::Slow),
                maybe_only: Some(Only::One),
                source: Source::Bucket { name: "b".into() },
                bound: Bound::Named("n".into()),
                sizing: Sizing::Fixed { size: u32::MAX },
                internal: Internal::Bucket(BucketRef {
                    name: "b".into(),
                    region: Some("eu".into()),
                }),
                adjacent: Adjacent::Label("l".into()),
                int_or_name: IntOrName::Name("http".into()),
                selector: Selector::ByLabels {
                    labels: map([("app", "web".to_string())]),
                },
                loose: Loose::Many(vec!["a".into(), "b".into()]),
                renamed: Renamed::ConfigMap {
                    namespace: "kube-system".into(),
                },
                shared: Shared::B {
                    name: "b".into(),
                    value: vec!["x".into()],
                },
                maybe_internal: Some(Internal::Empty),
                ..base.clone()
            },
            Some(EnumsStatus {
                phase: Some(Phase::Ready),
                last: Some(Internal::Empty),
            }),
        ),
        (
            EnumsSpec {
                source: Source::Git {
                    url: "u".into(),
                    revision: Some("main".into()),
                },
                bound: Bound::Range(-1, 1),
                internal: Internal::Empty,
                adjacent: Adjacent::Pair("a".into(), "b".into()),
                loose: Loose::Object { key: "k".into() },
                maybe_internal: Some(Internal::Git {
                    url: "u".into(),
                    depth: Some(3),
                }),
                ..base.clone()
            },
            Some(EnumsStatus {
                phase: None,
                last: None,
            }),
        ),
        (
            EnumsSpec {
                adjacent: Adjacent::Stop,
                ..base
            },
            None,
        ),
    ]
}

/// `serde_json::Value` everywhere, with nested objects, nulls and mixed lists.
pub fn free_form() -> Vec<FreeFormSpec> {
    let nested = json!({"a": {"b": [1, {"c": null}], "d": 1.5}, "e": "x", "f": {}});
    vec![
        FreeFormSpec {
            value: nested.clone(),
            maybe_value: None,
            values: map([
                ("x", json!({"nested": {"n": 1}})),
                ("y", Value::Null),
                ("z", json!([])),
            ]),
            list: vec![json!({"a": 1}), Value::Null, json!("s"), json!(2.5)],
            object: serde_json::from_value(json!({"k": {"v": true}})).expect("a map"),
            maybe_values: vec![Some(json!(1)), None, Some(json!({"a": null}))],
            open: Open {
                known: "k".into(),
                rest: map([("extra", json!({"deep": [1]})), ("other", json!("s"))]),
            },
            labelled: Labelled {
                id: 1,
                labels: map([("team", "a".to_string())]),
            },
            raw: RawExtension(json!({"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}})),
        },
        FreeFormSpec {
            value: Value::Null,
            maybe_value: Some(json!({"deep": {"deeper": {"deepest": [[]]}}})),
            values: BTreeMap::new(),
            list: Vec::new(),
            object: serde_json::Map::new(),
            maybe_values: Vec::new(),
            open: Open {
                known: String::new(),
                rest: BTreeMap::new(),
            },
            labelled: Labelled {
                id: -1,
                labels: BTreeMap::new(),
            },
            raw: RawExtension(json!({})),
        },
        FreeFormSpec {
            value: json!([1, "two", false, {"three": 3}]),
            maybe_value: Some(json!(-7)),
            ..free_form_minimal()
        },
    ]
}

fn free_form_minimal() -> FreeFormSpec {
    FreeFormSpec {
        value: json!("text"),
        maybe_value: None,
        values: BTreeMap::new(),
        list: Vec::new(),
        object: serde_json::Map::new(),
        maybe_values: Vec::new(),
        open: Open {
            known: "k".into(),
            rest: BTreeMap::new(),
        },
        labelled: Labelled {
            id: 0,
            labels: BTreeMap::new(),
        },
        raw: RawExtension(json!({"a": 1})),
    }
}

/// Enums and options inside lists, maps and options.
pub fn nested() -> Vec<NestedSpec> {
    vec![
        NestedSpec {
            internals: vec![
                Internal::Git {
                    url: "u".into(),
                    depth: Some(1),
                },
                Internal::Bucket(BucketRef {
                    name: "b".into(),
                    region: None,
                }),
                Internal::Empty,
            ],
            internal_by_name: map([
                ("empty", Internal::Empty),
                (
                    "git",
                    Internal::Git {
                        url: "u".into(),
                        depth: None,
                    },
                ),
            ]),
            maybe_modes: Some(vec![Some(Mode::Fast), None, Some(Mode::Slow)]),
            maybe_counts: map([("a", Some(1)), ("b", None)]),
            adjacent_grid: vec![
                vec![Adjacent::Scale { replicas: 1 }, Adjacent::Label("x".into())],
                vec![],
                vec![Adjacent::Stop, Adjacent::Pair("a".into(), "b".into())],
            ],
            sources_by_team: map([(
                "team",
                vec![
                    Source::Git {
                        url: "u".into(),
                        revision: None,
                    },
                    Source::Bucket { name: "b".into() },
                ],
            )]),
            boxed_internal: Some(Box::new(Internal::Bucket(BucketRef {
                name: "b".into(),
                region: Some("r".into()),
            }))),
            int_or_names: vec![IntOrName::Int(1), IntOrName::Name("x".into())],
            sizings: map([("a", Sizing::Auto), ("b", Sizing::Fixed { size: 1 })]),
            items: vec![
                Item {
                    name: "a".into(),
                    mode: None,
                    level: Some(Level::Debug),
                },
                Item {
                    name: "b".into(),
                    mode: Some(Mode::Fast),
                    level: None,
                },
            ],
            selectors: Some(vec![
                Selector::ByName { name: "n".into() },
                Selector::ByLabels {
                    labels: BTreeMap::new(),
                },
            ]),
            bounds: vec![
                Bound::Exactly(-1),
                Bound::Range(0, 0),
                Bound::Named("n".into()),
            ],
        },
        NestedSpec {
            internals: Vec::new(),
            internal_by_name: BTreeMap::new(),
            maybe_modes: None,
            maybe_counts: BTreeMap::new(),
            adjacent_grid: Vec::new(),
            sources_by_team: BTreeMap::new(),
            boxed_internal: None,
            int_or_names: Vec::new(),
            sizings: BTreeMap::new(),
            items: Vec::new(),
            selectors: None,
            bounds: Vec::new(),
        },
    ]
}

/// Recursive values several levels deep.
pub fn recursive() -> Vec<RecursiveSpec> {
    let leaf = |v: &str| Tree {
        value: v.into(),
        children: Vec::new(),
    };
    vec![RecursiveSpec {
        tree: Tree {
            value: "root".into(),
            children: vec![
                Tree {
                    value: "a".into(),
                    children: vec![Tree {
                        value: "a1".into(),
                        children: vec![leaf("a1x")],
                    }],
                },
                leaf("b"),
            ],
        },
        expr: Expr::Add(
            Box::new(Expr::Lit(1)),
            Box::new(Expr::Neg(Box::new(Expr::Add(
                Box::new(Expr::Lit(2)),
                Box::new(Expr::Lit(i64::MIN)),
            )))),
        ),
        folder: Folder {
            name: "top".into(),
            files: vec![File {
                name: "link".into(),
                link: Some(Box::new(Folder {
                    name: "inner".into(),
                    files: vec![File {
                        name: "leaf".into(),
                        link: None,
                    }],
                })),
            }],
        },
    }]
}

/// A valid spec of `kind`, as JSON.
pub fn base(kind: &str) -> Value {
    let spec = match kind {
        "Scalars" => serde_json::to_value(&scalars()[0]),
        "Enums" => serde_json::to_value(&enums()[0].0),
        "FreeForm" => serde_json::to_value(&free_form()[0]),
        "Nested" => serde_json::to_value(&nested()[0]),
        _ => serde_json::to_value(&recursive()[0]),
    };
    spec.expect("specs serialize")
}
