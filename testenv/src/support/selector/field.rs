//! Field selectors (`metadata.name=x`, `metadata.namespace!=y`, a CRD's selectable fields).

/// One `field=value` or `field!=value` term.
#[derive(Debug, Clone, PartialEq)]
struct Term {
    path: String,
    value: String,
    negate: bool,
}

/// A parsed field selector; every term must hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldSelector {
    terms: Vec<Term>,
}

impl FieldSelector {
    /// Parses the `fieldSelector` query parameter.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut terms = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (path, value, negate) = if let Some((p, v)) = part.split_once("!=") {
                (p, v, true)
            } else if let Some((p, v)) = part.split_once("==") {
                (p, v, false)
            } else if let Some((p, v)) = part.split_once('=') {
                (p, v, false)
            } else {
                return Err(format!(
                    "invalid selector: '{s}'; can't understand '{part}'"
                ));
            };
            terms.push(Term {
                path: path.trim().to_string(),
                value: value.trim().to_string(),
                negate,
            });
        }
        Ok(FieldSelector { terms })
    }

    /// The value an equality term (`path=value` or `path==value`) pins `path` to, if any.
    pub fn equals(&self, path: &str) -> Option<&str> {
        self.terms
            .iter()
            .find(|t| t.path == path && !t.negate && !t.value.is_empty())
            .map(|t| t.value.as_str())
    }

    /// The field paths used, so the caller can refuse unsupported ones.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().map(|t| t.path.as_str())
    }

    /// Whether every term holds for the field values `value` gives.
    pub fn matches_by(&self, value: impl Fn(&str) -> String) -> bool {
        self.terms
            .iter()
            .all(|t| (value(&t.path) == t.value) != t.negate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    impl FieldSelector {
        /// Fields read by dotted path, compared as their JSON text, missing as "".
        fn matches(&self, object: &serde_json::Value) -> bool {
            self.matches_by(|path| {
                let mut cur = object;
                for seg in path.split('.') {
                    cur = cur.get(seg).unwrap_or(&serde_json::Value::Null);
                }
                match cur {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                }
            })
        }
    }

    #[test]
    fn name_and_negation() {
        let o =
            json!({"metadata": {"name": "a", "namespace": "ns"}, "spec": {"color": "red", "n": 3}});
        assert!(FieldSelector::parse("metadata.name=a").unwrap().matches(&o));
        assert!(
            !FieldSelector::parse("metadata.name!=a")
                .unwrap()
                .matches(&o)
        );
        assert!(
            FieldSelector::parse("spec.color==red,metadata.namespace=ns")
                .unwrap()
                .matches(&o)
        );
        assert!(FieldSelector::parse("spec.n=3").unwrap().matches(&o));
        assert!(FieldSelector::parse("nonsense").is_err());
    }
}
