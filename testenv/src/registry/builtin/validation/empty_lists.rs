//! The empty lists a request sent, kept for validation. Go's decoder makes a JSON `[]` an
//! empty slice that is not nil, and validation sees it so (a field error prints it `[]`,
//! where an absent list is `null`; a few rules refuse an empty list that is set); only the
//! encoding for storage leaves it out (`omitempty`). [`omit_empty_collections`] shapes the
//! object as stored, so the lists it drops are written back for validation and dropped again
//! afterwards.
//!
//! [`omit_empty_collections`]: super::omit_empty_collections

use serde_json::Value;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// Where an object holds empty lists, to write them back after they were left out.
#[derive(Debug, Default)]
pub struct EmptyLists(Vec<Vec<Step>>);

impl EmptyLists {
    /// The empty lists `object` holds (not the lists inside them: they have none).
    pub fn of(object: &Value) -> Self {
        let mut found = Vec::new();
        collect(object, &mut Vec::new(), &mut found);
        EmptyLists(found)
    }

    /// Writes the recorded empty lists back where they were left out; a list whose parent is
    /// gone, or whose place holds a value, is left as it is.
    pub fn restore(&self, object: &mut Value) {
        for path in &self.0 {
            let Some((Step::Key(last), parents)) = path.split_last() else {
                continue;
            };
            if let Some(map) = walk(object, parents).and_then(Value::as_object_mut) {
                map.entry(last.clone())
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
        }
    }
}

/// The value at `path` inside `value`, if every step is there.
fn walk<'a>(value: &'a mut Value, path: &[Step]) -> Option<&'a mut Value> {
    path.iter().try_fold(value, |at, step| match step {
        Step::Key(k) => at.get_mut(k.as_str()),
        Step::Index(i) => at.get_mut(*i),
    })
}

fn collect(value: &Value, path: &mut Vec<Step>, found: &mut Vec<Vec<Step>>) {
    match value {
        Value::Array(items) if items.is_empty() && !path.is_empty() => {
            found.push(path.clone());
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                collect(item, path, found);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                path.push(Step::Key(k.clone()));
                collect(item, path, found);
                path.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_lists_come_back_where_their_parent_is() {
        let sent = json!({"spec": {"rules": [], "tls": [{"hosts": []}]}, "status": {"a": []}});
        let lists = EmptyLists::of(&sent);
        let mut stored = json!({"spec": {"tls": [{}]}});
        lists.restore(&mut stored);
        assert_eq!(
            stored,
            json!({"spec": {"rules": [], "tls": [{"hosts": []}]}})
        );
    }
}
