//! The helpers the lowered two-variable comprehensions call (see `cel_types::macros`):
//! `@entries(range)`, the `[key, value]` pairs of a list (index, item) or a map, and
//! `@mapInsert(map, key, value)` / `@mapInsert(map, other)`, which build the result of
//! `transformMap` and `transformMapEntry` (cel-go's `cel.@mapInsert`, which refuses a key
//! already present).

use std::collections::HashMap;
use std::sync::Arc;

use cel::common::types::{DYN_TYPE, MAP_TYPE};
use cel::objects::{Key, Map};
use cel::{DeclarationError, Env, ExecutionError, Value};

use super::overload::{fail, value_fn};

/// Declares the helpers on `env`.
pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_overload("@entries", "@entries_dyn", vec![DYN_TYPE], entries)?;
    env.add_overload(
        "@mapInsert",
        "@mapInsert_map_key_value",
        vec![MAP_TYPE, DYN_TYPE, DYN_TYPE],
        insert_one,
    )?;
    env.add_overload(
        "@mapInsert",
        "@mapInsert_map_map",
        vec![MAP_TYPE, MAP_TYPE],
        insert_map,
    )?;
    Ok(())
}

fn key_of(v: &Value) -> Result<Key, ExecutionError> {
    match v {
        Value::Int(i) => Ok(Key::Int(*i)),
        Value::UInt(u) => Ok(Key::Uint(*u)),
        Value::Bool(b) => Ok(Key::Bool(*b)),
        Value::String(s) => Ok(Key::String(s.clone())),
        other => Err(fail(
            "@mapInsert",
            format!("unsupported key type: {other:?}"),
        )),
    }
}

fn key_value(k: &Key) -> Value {
    match k {
        Key::Int(i) => Value::Int(*i),
        Key::Uint(u) => Value::UInt(*u),
        Key::Bool(b) => Value::Bool(*b),
        Key::String(s) => Value::String(s.clone()),
    }
}

fn pair(k: Value, v: Value) -> Value {
    Value::List(Arc::new(vec![k, v]))
}

value_fn!(entries, |a| match a.first() {
    Some(Value::List(items)) => Ok(Value::List(Arc::new(
        items
            .iter()
            .enumerate()
            .map(|(i, v)| pair(Value::Int(i as i64), v.clone()))
            .collect(),
    ))),
    Some(Value::Map(m)) => {
        let mut keys: Vec<&Key> = m.map.keys().collect();
        keys.sort_by_key(|k| format!("{k:?}"));
        Ok(Value::List(Arc::new(
            keys.into_iter()
                .map(|k| pair(key_value(k), m.map[k].clone()))
                .collect(),
        )))
    }
    other => Err(fail("@entries", format!("cannot iterate over {other:?}"))),
});

fn with(map: &Map, key: Key, value: Value) -> Result<HashMap<Key, Value>, ExecutionError> {
    if map.map.contains_key(&key) {
        return Err(fail(
            "@mapInsert",
            format!("insert failed: key {:?} already exists", key_value(&key)),
        ));
    }
    let mut out = (*map.map).clone();
    out.insert(key, value);
    Ok(out)
}

value_fn!(insert_one, |a| match a {
    [Value::Map(m), k, v] => Ok(Value::Map(Map {
        map: Arc::new(with(m, key_of(k)?, v.clone())?)
    })),
    _ => Err(fail("@mapInsert", "expects a map, a key and a value")),
});

value_fn!(insert_map, |a| match a {
    [Value::Map(m), Value::Map(other)] => {
        let mut cur = Map { map: m.map.clone() };
        for (k, v) in other.map.iter() {
            cur = Map {
                map: Arc::new(with(&cur, k.clone(), v.clone())?),
            };
        }
        Ok(Value::Map(cur))
    }
    _ => Err(fail("@mapInsert", "expects two maps")),
});
