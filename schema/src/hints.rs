//! What to change in a kubeforge type when its generated schema breaks a rule: the
//! violations a Rust shape can cause, each with the attribute that fixes it.

use crate::violation::{Kind, Violation};

impl Violation {
    /// How to fix the violation in a kubeforge type, where one attribute does it (the
    /// runtime's `manifests` prints it under the violation).
    pub fn hint(&self) -> Option<&'static str> {
        hint(self)
    }
}

fn hint(v: &Violation) -> Option<&'static str> {
    let last = v.path.rsplit('.').next().unwrap_or("");
    Some(match (&v.kind, v.detail.as_str()) {
        (Kind::Required, d) if d.starts_with("must not be empty for specified") => {
            "give the field a type (#[kubeforge(type_ = \"..\")]) or keep it free-form with #[kubeforge(preserve_unknown_fields)]"
        }
        (Kind::Forbidden, "$ref is not supported") => {
            "a recursive type outside #[kubeforge::api], which cuts recursion itself: put the type under #[kubeforge::api] or #[kubeforge::schema]"
        }
        (Kind::Forbidden, d) if d.starts_with("uniqueItems cannot be set") => {
            "use #[kubeforge(list_type = \"set\")]"
        }
        (Kind::Forbidden, "additionalProperties and properties are mutual exclusive") => {
            "a struct with a #[serde(flatten)] map needs #[kubeforge(preserve_unknown_fields)] instead"
        }
        (Kind::Forbidden, "must be empty to be structural") if last == "type" => {
            "enum variants of different shapes have no structural form; use a tagged enum or #[kubeforge(schemaless, preserve_unknown_fields)]"
        }
        (Kind::Required, d) if d.starts_with("this property is in x-kubernetes-list-map-keys") => {
            "make the key field non-optional or add #[kubeforge(default = ..)]"
        }
        (Kind::Forbidden, d)
            if d.starts_with("must not specify anything other than name and generateName") =>
        {
            "only metadata.name and metadata.generateName may be restricted"
        }
        _ => return None,
    })
}
