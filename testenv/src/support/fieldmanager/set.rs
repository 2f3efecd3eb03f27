//! Field sets: which fields of an object a manager owns, and their `fieldsV1` form.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::path::PathElement;

/// A set of paths as a tree: `members` are owned paths ending here, `children` lead to
/// deeper owned paths. Children are never empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    members: BTreeSet<PathElement>,
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    /// The empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the set holds no path.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.is_empty()
    }

    /// Adds `path` (a non-empty path; the empty path is ignored).
    pub fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => match self.children.get_mut(first) {
                Some(child) => child.insert(rest),
                None => {
                    let mut child = FieldSet::new();
                    child.insert(rest);
                    self.children.insert(first.clone(), child);
                }
            },
        }
    }

    /// Whether `pe` is a member (an owned path ending here).
    pub fn has_member(&self, pe: &PathElement) -> bool {
        self.members.contains(pe)
    }

    /// The subset below `pe`, when any.
    pub fn child(&self, pe: &PathElement) -> Option<&FieldSet> {
        self.children.get(pe)
    }

    /// Whether `pe` or anything below it is in the set.
    pub fn touches(&self, pe: &PathElement) -> bool {
        self.members.contains(pe) || self.children.contains_key(pe)
    }

    /// Every element that is a member or has children, in order.
    pub fn elements(&self) -> BTreeSet<PathElement> {
        self.members
            .iter()
            .chain(self.children.keys())
            .cloned()
            .collect()
    }

    /// Paths in either set.
    pub fn union(&self, other: &FieldSet) -> FieldSet {
        let mut out = self.clone();
        out.members.extend(other.members.iter().cloned());
        for (pe, c) in &other.children {
            let merged = match out.children.get(pe) {
                Some(mine) => mine.union(c),
                None => c.clone(),
            };
            out.children.insert(pe.clone(), merged);
        }
        out
    }

    /// Paths of `self` that are not in `other` (path by path: removing a path does not
    /// remove the paths below it).
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet::new();
        out.members = self.members.difference(&other.members).cloned().collect();
        for (pe, c) in &self.children {
            let rest = match other.children.get(pe) {
                Some(o) => c.difference(o),
                None => c.clone(),
            };
            if !rest.is_empty() {
                out.children.insert(pe.clone(), rest);
            }
        }
        out
    }

    /// Paths in both sets.
    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        let mut out = FieldSet::new();
        out.members = self.members.intersection(&other.members).cloned().collect();
        for (pe, c) in &self.children {
            if let Some(o) = other.children.get(pe) {
                let both = c.intersection(o);
                if !both.is_empty() {
                    out.children.insert(pe.clone(), both);
                }
            }
        }
        out
    }

    /// The set without the path `path` and everything below it.
    pub fn without_subtree_at(&self, path: &[PathElement]) -> FieldSet {
        match path {
            [] => FieldSet::new(),
            [last] => self.without_subtree(last),
            [first, rest @ ..] => {
                let mut out = self.clone();
                if let Some(child) = out.children.get(first).map(|c| c.without_subtree_at(rest)) {
                    if child.is_empty() {
                        out.children.remove(first);
                    } else {
                        out.children.insert(first.clone(), child);
                    }
                }
                out
            }
        }
    }

    /// The set without `pe` and everything below it.
    pub fn without_subtree(&self, pe: &PathElement) -> FieldSet {
        let mut out = self.clone();
        out.members.remove(pe);
        out.children.remove(pe);
        out
    }

    /// Only `pe` and what lies below it.
    pub fn only_subtree(&self, pe: &PathElement) -> FieldSet {
        let mut out = FieldSet::new();
        if self.members.contains(pe) {
            out.members.insert(pe.clone());
        }
        if let Some(c) = self.children.get(pe) {
            out.children.insert(pe.clone(), c.clone());
        }
        out
    }

    /// Every path of the set, in order (a member before the paths below it).
    pub fn paths(&self) -> Vec<Vec<PathElement>> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<PathElement>, out: &mut Vec<Vec<PathElement>>) {
        for pe in self.elements() {
            prefix.push(pe.clone());
            if self.members.contains(&pe) {
                out.push(prefix.clone());
            }
            if let Some(c) = self.children.get(&pe) {
                c.collect(prefix, out);
            }
            prefix.pop();
        }
    }

    /// The `fieldsV1` JSON form: `{"f:spec": {"f:x": {}}}`, with `".": {}` marking a member
    /// that also has children.
    pub fn to_fields_v1(&self) -> Value {
        let mut out = Map::new();
        for pe in self.elements() {
            let mut node = Map::new();
            if let Some(c) = self.children.get(&pe) {
                if self.members.contains(&pe) {
                    node.insert(".".into(), Value::Object(Map::new()));
                }
                if let Value::Object(m) = c.to_fields_v1() {
                    node.extend(m);
                }
            }
            out.insert(pe.to_key(), Value::Object(node));
        }
        Value::Object(out)
    }

    /// Reads the `fieldsV1` JSON form.
    pub fn from_fields_v1(v: &Value) -> Result<FieldSet, String> {
        let Value::Object(m) = v else {
            return Err("fieldsV1 must be a JSON object".into());
        };
        let mut out = FieldSet::new();
        for (key, node) in m {
            if key == "." {
                continue;
            }
            let pe = PathElement::from_key(key)?;
            let Value::Object(inner) = node else {
                return Err(format!("fieldsV1 entry {key:?} must be a JSON object"));
            };
            if inner.is_empty() || inner.contains_key(".") {
                out.members.insert(pe.clone());
            }
            let child = FieldSet::from_fields_v1(node)?;
            if !child.is_empty() {
                out.children.insert(pe, child);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn f(name: &str) -> PathElement {
        PathElement::Field(name.into())
    }

    #[test]
    fn fields_v1_round_trip_and_set_algebra() {
        let v1 = json!({"f:spec": {"f:x": {}, "f:items": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}}}}});
        let set = FieldSet::from_fields_v1(&v1).unwrap();
        assert_eq!(set.to_fields_v1(), v1);
        assert_eq!(set.paths().len(), 3);
        let mut x = FieldSet::new();
        x.insert(&[f("spec"), f("x")]);
        let rest = set.difference(&x);
        assert_eq!(
            rest.to_fields_v1(),
            json!({"f:spec": {"f:items": {"k:{\"name\":\"a\"}": {".": {}, "f:name": {}}}}})
        );
        assert_eq!(set.intersection(&x), x);
        assert_eq!(rest.union(&x), set);
        assert!(set.difference(&set).is_empty());
        assert!(FieldSet::from_fields_v1(&json!({"q:x": {}})).is_err());
    }
}
