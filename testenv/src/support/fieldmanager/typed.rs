//! Schema-aware operations on objects: the field set of a value, the comparison of two
//! versions, the apply merge, and the removal of fields a manager stopped applying.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::path::{PathElement, canonical, key_of};
use super::schema::{ListType, MapKey, Node};
use super::set::FieldSet;

/// Why an applied configuration cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum TypedError {
    /// A map-list item has none of the list's key fields (`keys` as Go's `%q` prints the
    /// list of names).
    #[error(
        "{path}: element {index}: associative list with keys has an element that omits all key fields {keys} (and doesn't have default values for any key fields)"
    )]
    MissingKeys {
        /// The list.
        path: String,
        /// The item's position.
        index: usize,
        /// The list's key fields, as `["a" "b"]`.
        keys: String,
    },
    /// Two items of a map or set list have the same key or value.
    #[error("{path}: duplicate entries for key {key}")]
    Duplicate {
        /// The list.
        path: String,
        /// The repeated key.
        key: String,
    },
}

/// The identity of each item of a keyed list, or `None` when some item has no identity.
fn identities(list: &[Value], lt: &ListType) -> Option<Vec<PathElement>> {
    list.iter()
        .map(|item| match lt {
            ListType::Map(keys) => key_of(item, keys),
            ListType::Set => Some(PathElement::Value(canonical(item))),
            ListType::Atomic => None,
        })
        .collect()
}

/// Like [`identities`], but an applied configuration must have distinct, complete keys.
fn config_identities(
    list: &[Value],
    lt: &ListType,
    path: &[PathElement],
) -> Result<Vec<PathElement>, TypedError> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(list.len());
    for (index, item) in list.iter().enumerate() {
        let pe = match lt {
            ListType::Map(keys) => key_of(item, keys).ok_or_else(|| TypedError::MissingKeys {
                path: super::path::display(path),
                index,
                keys: format!(
                    "[{}]",
                    keys.iter()
                        .map(|k| format!("{:?}", k.name))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            })?,
            _ => PathElement::Value(canonical(item)),
        };
        if !seen.insert(pe.clone()) {
            return Err(TypedError::Duplicate {
                path: super::path::display(path),
                key: pe.to_string(),
            });
        }
        out.push(pe);
    }
    Ok(out)
}

/// The fields an applied configuration sets: leaves, atomic lists and maps, set values and
/// map-list items (with their fields), empty maps, and every `null` (the applier sets the
/// field to its zero value and owns it, whatever its type). Other maps are not members.
pub fn to_field_set(config: &Value, node: &Node<'_>) -> Result<FieldSet, TypedError> {
    let mut out = FieldSet::new();
    walk_set(config, node, &mut Vec::new(), &mut out)?;
    Ok(out)
}

fn walk_set(
    v: &Value,
    node: &Node<'_>,
    path: &mut Vec<PathElement>,
    out: &mut FieldSet,
) -> Result<(), TypedError> {
    match v {
        Value::Null => out.insert(path),
        Value::Object(m) => {
            // An atomic map is owned whole, and so is an empty map the configuration sets
            // (`securityContext: {}`); an empty list is not.
            if node.map_atomic() || (m.is_empty() && !path.is_empty()) {
                out.insert(path);
                return Ok(());
            }
            for (k, child) in m {
                if node.untracked(k) {
                    continue;
                }
                path.push(PathElement::Field(k.clone()));
                walk_set(child, &node.field(k), path, out)?;
                path.pop();
            }
        }
        Value::Array(list) => {
            let lt = node.list_type();
            if lt == ListType::Atomic {
                out.insert(path);
                return Ok(());
            }
            let ids = config_identities(list, &lt, path)?;
            let items = node.items();
            for (item, pe) in list.iter().zip(ids) {
                path.push(pe);
                out.insert(path);
                if matches!(lt, ListType::Map(_)) {
                    walk_set(item, &items, path, out)?;
                }
                path.pop();
            }
        }
        _ => out.insert(path),
    }
    Ok(())
}

/// What changed between two versions of an object.
#[derive(Debug, Default)]
pub struct Comparison {
    /// Paths present only in the new version (maps and items included).
    pub added: FieldSet,
    /// Leaves (and atomic values) whose value changed.
    pub modified: FieldSet,
    /// Paths present only in the old version.
    pub removed: FieldSet,
    /// Whether an item of a keyed list lacks a key field without a default: structured-merge-diff
    /// cannot type such an object, and the real field manager then drops the managed fields.
    pub untyped: bool,
}

impl Comparison {
    /// Added and modified paths: what the writer of the new version now owns.
    pub fn changed(&self) -> FieldSet {
        self.added.union(&self.modified)
    }
}

/// Compares two versions of an object (either may be absent); `null`s count as absent.
pub fn compare(old: Option<&Value>, new: Option<&Value>, node: &Node<'_>) -> Comparison {
    let mut out = Comparison::default();
    walk_compare(old, new, node, &mut Vec::new(), &mut out, false);
    out
}

/// Compares the live object with the result of an apply merge, where a `null` the
/// configuration set is a value, as structured-merge-diff compares them before the object
/// is converted to its Go type: a value replaced by `null` is modified (so it conflicts
/// with its owner), a map or list replaced by `null` loses its items.
pub fn compare_applied(old: Option<&Value>, new: &Value, node: &Node<'_>) -> Comparison {
    let mut out = Comparison::default();
    walk_compare(old, Some(new), node, &mut Vec::new(), &mut out, true);
    out
}

/// How a path changed.
enum Change {
    Added,
    Modified,
    Removed,
}

fn leaf(l: Option<&Value>, r: Option<&Value>, path: &[PathElement], out: &mut Comparison) {
    match (l, r) {
        (None, Some(_)) => out.added.insert(path),
        (Some(_), None) => out.removed.insert(path),
        (Some(a), Some(b)) if a != b => out.modified.insert(path),
        _ => {}
    }
}

fn walk_compare(
    l: Option<&Value>,
    r: Option<&Value>,
    node: &Node<'_>,
    path: &mut Vec<PathElement>,
    out: &mut Comparison,
    nulls: bool,
) {
    let l_null = l.is_some_and(Value::is_null);
    let l = l.filter(|v| !v.is_null());
    if nulls && r.is_some_and(Value::is_null) {
        return null_replaces(l, node, path, out);
    }
    // A `null` Go writes for a zero field that is not a pointer (a condition's
    // `lastProbeTime`) is a value: new where nothing was, it is added, unless the kind's zero
    // value has the field already. An optional list, map or struct Go leaves out instead.
    if r.is_some_and(Value::is_null)
        && l.is_none()
        && !l_null
        && !node.in_zero()
        && !node.go_omits_null()
    {
        return out.added.insert(path);
    }
    // And such a `null` is removed with its list item or struct.
    if l_null && r.is_none() && !node.in_zero() && !node.go_omits_null() {
        return out.removed.insert(path);
    }
    let r = r.filter(|v| !v.is_null());
    let empty_map = Map::new();
    match (l, r) {
        (None, None) => {}
        (Some(Value::Object(_)) | None, Some(Value::Object(_)) | None) => {
            let lm = l.and_then(Value::as_object).unwrap_or(&empty_map);
            let rm = r.and_then(Value::as_object).unwrap_or(&empty_map);
            // A struct field of a built-in kind that the kind's zero value already has (what the
            // real field manager compares a new object with) is owned through its fields only;
            // pointer structs, maps, objects inside a new list item and custom resources'
            // objects are owned themselves too. An empty one (atomic or not) is the zero
            // value: nothing to own.
            let zero_field = !path.is_empty() && node.in_zero();
            if zero_field && node.zero_struct() && l.is_none() && rm.is_empty() {
                return;
            }
            if node.map_atomic() || (lm.is_empty() && rm.is_empty()) {
                return leaf(l, r, path, out);
            }
            for (k, lv) in lm {
                if node.untracked(k) {
                    continue;
                }
                path.push(PathElement::Field(k.clone()));
                walk_compare(Some(lv), rm.get(k), &node.field(k), path, out, nulls);
                path.pop();
            }
            for (k, rv) in rm {
                if node.untracked(k) || lm.contains_key(k) {
                    continue;
                }
                path.push(PathElement::Field(k.clone()));
                walk_compare(None, Some(rv), &node.field(k), path, out, nulls);
                path.pop();
            }
            if !(zero_field && l.is_none()) {
                leaf_presence(l, r, path, out);
            }
        }
        (Some(Value::Array(_)) | None, Some(Value::Array(_)) | None) => {
            let no_items = Vec::new();
            let la = l.and_then(Value::as_array).unwrap_or(&no_items);
            let ra = r.and_then(Value::as_array).unwrap_or(&no_items);
            let lt = node.list_type();
            if lt == ListType::Atomic || (la.is_empty() && ra.is_empty()) {
                return leaf(l, r, path, out);
            }
            let (Some(lids), Some(rids)) = (identities(la, &lt), identities(ra, &lt)) else {
                out.untyped |= matches!(lt, ListType::Map(_));
                return leaf(l, r, path, out);
            };
            let items = node.items();
            let keyed = matches!(lt, ListType::Map(_));
            // Items grouped by identity, in the order each first appears (old list first).
            let mut groups: Vec<(&PathElement, Vec<&Value>, Vec<&Value>)> = Vec::new();
            let sides = la.iter().zip(&lids).map(|(v, pe)| (v, pe, true));
            for (v, pe, old_side) in sides.chain(ra.iter().zip(&rids).map(|(v, pe)| (v, pe, false)))
            {
                let at = match groups.iter().position(|g| g.0 == pe) {
                    Some(at) => at,
                    None => {
                        groups.push((pe, Vec::new(), Vec::new()));
                        groups.len() - 1
                    }
                };
                if old_side {
                    groups[at].1.push(v);
                } else {
                    groups[at].2.push(v);
                }
            }
            let mut item = |lv: Option<&Value>, rv: Option<&Value>, path: &mut Vec<PathElement>| {
                if keyed {
                    walk_compare(lv, rv, &items, path, out, nulls);
                } else {
                    leaf_presence(lv, rv, path, out);
                }
            };
            // Repeated items (an env var named twice) are one atomic member, as
            // structured-merge-diff compares them: neither they nor their fields are walked.
            let mut repeated: Vec<(Vec<PathElement>, Change)> = Vec::new();
            for (pe, ls, rs) in groups {
                path.push(pe.clone());
                match (ls.len(), rs.len()) {
                    (0 | 1, 0 | 1) => item(ls.first().copied(), rs.first().copied(), path),
                    (l, r) if l >= 2 && r >= 2 => {
                        if ls != rs {
                            repeated.push((path.clone(), Change::Modified));
                        }
                    }
                    (l, _) if l >= 2 => {
                        if let Some(rv) = rs.first() {
                            item(None, Some(rv), path);
                        }
                        repeated.push((path.clone(), Change::Removed));
                    }
                    _ => {
                        if let Some(lv) = ls.first() {
                            item(Some(lv), None, path);
                        }
                        repeated.push((path.clone(), Change::Added));
                    }
                }
                path.pop();
            }
            for (at, change) in repeated {
                match change {
                    Change::Added => out.added.insert(&at),
                    Change::Modified => out.modified.insert(&at),
                    Change::Removed => out.removed.insert(&at),
                }
            }
            // Likewise a list the kind's zero value already has (as null), or one the old
            // object had as `null` (Go's nil list of a field without `omitempty`): the list was
            // there, only its items are new.
            let zero_list = !path.is_empty() && node.in_zero();
            if !((zero_list || l_null) && l.is_none()) {
                leaf_presence(l, r, path, out);
            }
        }
        _ => leaf(l, r, path, out),
    }
}

/// The comparison of `l` with a `null` the applied configuration set: a granular map or
/// list with items loses them (it stays itself, as `null`), anything else is modified (or
/// added, when absent before).
fn null_replaces(
    l: Option<&Value>,
    node: &Node<'_>,
    path: &mut Vec<PathElement>,
    out: &mut Comparison,
) {
    match l {
        None => out.added.insert(path),
        Some(Value::Object(m)) if !m.is_empty() && !node.map_atomic() => {
            let empty = Value::Object(Map::new());
            walk_compare(l, Some(&empty), node, path, out, true);
        }
        Some(Value::Array(a)) if !a.is_empty() && node.list_type() != ListType::Atomic => {
            let empty = Value::Array(Vec::new());
            walk_compare(l, Some(&empty), node, path, out, true);
        }
        Some(_) => out.modified.insert(path),
    }
}

/// A map or list that appears or disappears as a whole is itself added or removed.
fn leaf_presence(l: Option<&Value>, r: Option<&Value>, path: &[PathElement], out: &mut Comparison) {
    match (l, r) {
        (None, Some(_)) => out.added.insert(path),
        (Some(_), None) => out.removed.insert(path),
        _ => {}
    }
}

/// Merges an applied configuration into the live object: maps merge field by field
/// (unless atomic), set and map lists item by item (live order kept, new items where the
/// configuration puts them), atomic lists and leaves are replaced, and a `null` replaces
/// the value (see [`settle_nulls`] for what it then becomes).
pub fn merge(
    live: Option<&Value>,
    config: &Value,
    node: &Node<'_>,
) -> Result<Option<Value>, TypedError> {
    merge_at(live, config, node, &mut Vec::new())
}

fn merge_at(
    live: Option<&Value>,
    config: &Value,
    node: &Node<'_>,
    path: &mut Vec<PathElement>,
) -> Result<Option<Value>, TypedError> {
    match config {
        Value::Null => Ok(Some(Value::Null)),
        Value::Object(cm) if !node.map_atomic() => {
            let mut out = match live {
                Some(Value::Object(lm)) => lm.clone(),
                _ => Map::new(),
            };
            for (k, cv) in cm {
                path.push(PathElement::Field(k.clone()));
                let merged = merge_at(out.get(k), cv, &node.field(k), path)?;
                path.pop();
                match merged {
                    Some(v) => {
                        out.insert(k.clone(), v);
                    }
                    None => {
                        out.remove(k);
                    }
                }
            }
            Ok(Some(Value::Object(out)))
        }
        Value::Array(ca) => {
            let lt = node.list_type();
            if lt == ListType::Atomic {
                return Ok(Some(strip_nulls(config)));
            }
            let cids = config_identities(ca, &lt, path)?;
            let la: &[Value] = match live {
                Some(Value::Array(la)) => la,
                _ => &[],
            };
            let Some(lids) = identities(la, &lt) else {
                return Ok(Some(strip_nulls(config)));
            };
            merge_list(la, &lids, ca, &cids, node, path).map(|l| Some(Value::Array(l)))
        }
        other => Ok(Some(strip_nulls(other))),
    }
}

/// Merges keyed lists: live-only items stay where they are, configured items follow the
/// configuration's order, items in both are merged.
fn merge_list(
    la: &[Value],
    lids: &[PathElement],
    ca: &[Value],
    cids: &[PathElement],
    node: &Node<'_>,
    path: &mut Vec<PathElement>,
) -> Result<Vec<Value>, TypedError> {
    let items = node.items();
    let keyed = matches!(node.list_type(), ListType::Map(_));
    let mut done: HashSet<&PathElement> = HashSet::new();
    let mut out = Vec::with_capacity(la.len() + ca.len());
    let in_config = |pe: &PathElement| cids.iter().position(|c| c == pe);
    let in_live = |pe: &PathElement| lids.iter().position(|c| c == pe);
    let emit_config =
        |j: usize, out: &mut Vec<Value>, path: &mut Vec<PathElement>| -> Result<(), TypedError> {
            if keyed {
                let live_item = in_live(&cids[j]).map(|i| &la[i]);
                path.push(cids[j].clone());
                let merged = merge_at(live_item, &ca[j], &items, path)?;
                path.pop();
                out.extend(merged);
            } else {
                out.push(ca[j].clone());
            }
            Ok(())
        };
    let (mut i, mut j) = (0, 0);
    loop {
        while i < la.len() && done.contains(&lids[i]) {
            i += 1;
        }
        while j < ca.len() && done.contains(&cids[j]) {
            j += 1;
        }
        match (i < la.len(), j < ca.len()) {
            (false, false) => break,
            (true, true) if lids[i] == cids[j] => {
                emit_config(j, &mut out, path)?;
                done.insert(&cids[j]);
            }
            (true, _) if in_config(&lids[i]).is_none() => {
                out.push(la[i].clone());
                done.insert(&lids[i]);
            }
            (_, true) => {
                emit_config(j, &mut out, path)?;
                done.insert(&cids[j]);
            }
            (true, false) => {
                out.push(la[i].clone());
                done.insert(&lids[i]);
            }
        }
    }
    Ok(out)
}

fn strip_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), strip_nulls(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Removes from `object` the fields of `last` (what a manager applied before) that nobody
/// keeps: not in `keep` (its new configuration and every other manager's fields). A map or
/// item left empty by the removal goes too; fields nobody owns are left alone.
pub fn prune(object: &mut Value, last: &FieldSet, keep: Option<&FieldSet>, node: &Node<'_>) {
    let keys = match node.list_type() {
        ListType::Map(keys) if object.is_array() => keys,
        _ => Vec::new(),
    };
    let items = node.items();
    for pe in last.elements() {
        let keep_child = keep.and_then(|k| k.child(&pe));
        let kept = keep.is_some_and(|k| k.touches(&pe));
        let child_node = match &pe {
            PathElement::Field(f) => node.field(f),
            _ => items.clone(),
        };
        let Some(child) = child_mut(object, &pe, &keys) else {
            continue;
        };
        if kept {
            if let Some(lc) = last.child(&pe) {
                prune(child, lc, keep_child, &child_node);
            }
            continue;
        }
        if last.has_member(&pe) {
            remove_child(object, &pe, &keys);
            continue;
        }
        if let Some(lc) = last.child(&pe) {
            prune(child, lc, None, &child_node);
            let emptied = match child {
                Value::Object(m) => m.is_empty(),
                Value::Array(a) => a.is_empty(),
                _ => false,
            };
            if emptied {
                remove_child(object, &pe, &keys);
            }
        }
    }
}

/// Whether list item `item` is the one `pe` (a `k:`, `v:` or `i:` element) designates.
fn item_is(pe: &PathElement, index: usize, item: &Value, keys: &[MapKey]) -> bool {
    match pe {
        PathElement::Key(_) => key_of(item, keys).as_ref() == Some(pe),
        PathElement::Value(v) => canonical(item) == *v,
        PathElement::Index(i) => *i == index,
        PathElement::Field(_) => false,
    }
}

fn child_mut<'v>(v: &'v mut Value, pe: &PathElement, keys: &[MapKey]) -> Option<&'v mut Value> {
    match (v, pe) {
        (Value::Object(m), PathElement::Field(f)) => m.get_mut(f),
        (Value::Array(a), _) => a
            .iter_mut()
            .enumerate()
            .find(|(i, item)| item_is(pe, *i, item, keys))
            .map(|(_, item)| item),
        _ => None,
    }
}

fn remove_child(v: &mut Value, pe: &PathElement, keys: &[MapKey]) {
    match (v, pe) {
        (Value::Object(m), PathElement::Field(f)) => {
            m.remove(f);
        }
        (Value::Array(a), _) => {
            let mut index = 0;
            a.retain(|item| {
                let keep = !item_is(pe, index, item, keys);
                index += 1;
                keep
            });
        }
        _ => {}
    }
}

/// Turns the `null`s an applied configuration set in `merged` into what the real server's
/// conversion of the merged object to the kind's Go type makes of them (see
/// [`Node::null_becomes`]): the zero value of a field Go always writes, else nothing.
/// `null`s the live object already had are left as they are.
pub fn settle_nulls(merged: &mut Value, config: &Value, node: &Node<'_>) {
    match (merged, config) {
        (Value::Object(mm), Value::Object(cm)) if !node.map_atomic() => {
            for (k, cv) in cm {
                let child = node.field(k);
                match (mm.get_mut(k), cv) {
                    (Some(Value::Null), Value::Null) => match child.null_becomes() {
                        Some(v) => {
                            mm.insert(k.clone(), v);
                        }
                        None => {
                            mm.remove(k);
                        }
                    },
                    (Some(mv), _) => settle_nulls(mv, cv, &child),
                    (None, _) => {}
                }
            }
        }
        (Value::Array(ma), Value::Array(ca)) => {
            let ListType::Map(keys) = node.list_type() else {
                return;
            };
            let items = node.items();
            for citem in ca {
                let Some(id) = key_of(citem, &keys) else {
                    continue;
                };
                if let Some(mitem) = ma
                    .iter_mut()
                    .find(|m| key_of(m, &keys).as_ref() == Some(&id))
                {
                    settle_nulls(mitem, citem, &items);
                }
            }
        }
        _ => {}
    }
}
