//! Validation ratcheting on update (`CRDValidationRatcheting`, on by default since 1.30 and
//! GA in 1.33): an error is dropped when the value it is about is unchanged from the old
//! object, so objects stored under an older, looser schema can still be updated elsewhere.
//!
//! Values correlate as the real server correlates them: object properties by name, items of
//! `x-kubernetes-list-type: map` lists by their keys, items of `set` lists by value. Items
//! of atomic lists do not correlate, so errors inside them are kept. `Required` errors are
//! about the object holding the missing field. Errors without a field (`<nil>`) are kept.

use super::errors::{FieldError, FieldErrorKind};
use super::values::{json_eq, property_schema};
use serde_json::Value;

/// Keeps the errors that ratcheting does not excuse.
pub fn ratchet(
    errors: Vec<FieldError>,
    new: &Value,
    old: &Value,
    schema: &Value,
) -> Vec<FieldError> {
    errors
        .into_iter()
        .filter(|e| !unchanged(e, new, old, schema))
        .collect()
}

#[derive(Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

/// Splits `spec.list[0].name` into keys and indices; keys may contain dots (map keys), so
/// dotted runs are resolved later against the actual object.
fn segments(field: &str) -> Option<Vec<String>> {
    if field.is_empty() || field == "<nil>" {
        return None;
    }
    Some(field.split('.').map(str::to_string).collect())
}

fn unchanged(e: &FieldError, new: &Value, old: &Value, schema: &Value) -> bool {
    let Some(parts) = segments(&e.field) else {
        return false;
    };
    // Required errors name the missing field; they are about its parent object.
    let parts = if e.kind == FieldErrorKind::Required {
        let mut p = parts;
        // a trailing index cannot be required; drop the last key
        p.pop();
        p
    } else {
        parts
    };
    let mut new_v = new;
    let mut old_v = old;
    let mut sch = schema;
    let mut i = 0;
    while i < parts.len() {
        // Resolve one dotted part: `key[0][1]` style suffixes are indices.
        let (key_part, indices) = split_indices(&parts[i]);
        let mut segs = Vec::new();
        if !key_part.is_empty() {
            // Greedily join following parts while the joined key exists in the new object.
            let mut key = key_part.to_string();
            let mut j = i;
            while new_v.get(&key).is_none() && j + 1 < parts.len() {
                j += 1;
                let (next_key, _) = split_indices(&parts[j]);
                key = format!("{key}.{next_key}");
            }
            if new_v.get(&key).is_none() {
                return false;
            }
            let last_indices = split_indices(&parts[j]).1;
            segs.push(Seg::Key(key));
            segs.extend(last_indices.into_iter().map(Seg::Index));
            i = j + 1;
        } else {
            segs.extend(indices.into_iter().map(Seg::Index));
            i += 1;
        }
        for seg in segs {
            let Some(s) = sch.as_object() else {
                return false;
            };
            match seg {
                Seg::Key(k) => {
                    let (Some(n), Some(o)) = (new_v.get(&k), old_v.get(&k)) else {
                        return false;
                    };
                    let Some(child) = property_schema(s, &k) else {
                        return false;
                    };
                    new_v = n;
                    old_v = o;
                    sch = child;
                }
                Seg::Index(ix) => {
                    let Some(item) = new_v.as_array().and_then(|a| a.get(ix)) else {
                        return false;
                    };
                    let Some(old_item) = correlate(item, old_v, s) else {
                        return false;
                    };
                    let Some(item_schema) = s.get("items") else {
                        return false;
                    };
                    new_v = item;
                    old_v = old_item;
                    sch = item_schema;
                }
            }
        }
    }
    json_eq(new_v, old_v)
}

fn split_indices(part: &str) -> (&str, Vec<usize>) {
    let key_end = part.find('[').unwrap_or(part.len());
    let indices = part[key_end..]
        .split(['[', ']'])
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    (&part[..key_end], indices)
}

/// The old list item a new one correlates with, if the list type allows correlation: by
/// the map keys of a `map` list (which must declare some), by value in a `set`.
pub(super) fn correlate<'a>(
    item: &Value,
    old_list: &'a Value,
    s: &serde_json::Map<String, Value>,
) -> Option<&'a Value> {
    let olds = old_list.as_array()?;
    match s.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("map") => {
            let keys: Vec<&str> = s
                .get("x-kubernetes-list-map-keys")?
                .as_array()?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            if keys.is_empty() {
                return None;
            }
            olds.iter().find(|o| {
                keys.iter()
                    .all(|k| o.get(*k).is_some() && o.get(*k) == item.get(*k))
            })
        }
        Some("set") => olds.iter().find(|o| json_eq(o, item)),
        _ => None,
    }
}
