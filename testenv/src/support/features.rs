//! Feature gates of the embedded API server, named as kube-apiserver's `--feature-gates`
//! names them. Each is off by default, as it is on a real server of the version that
//! introduced it as alpha.

/// The gates the embedded server knows.
pub const KNOWN: &[&str] = &["ShardedListAndWatch"];

/// Which feature gates are on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// `ShardedListAndWatch` (KEP-5866, alpha in v1.36): lists and watches honour
    /// `shardSelector`; off, the parameter is ignored as a server without the feature ignores it.
    pub sharded_list_and_watch: bool,
}

impl FeatureGates {
    /// Turns gate `name` on or off; an unknown name is an error naming the known ones.
    pub fn set(&mut self, name: &str, enabled: bool) -> Result<(), String> {
        match name {
            "ShardedListAndWatch" => self.sharded_list_and_watch = enabled,
            other => {
                return Err(format!(
                    "unknown feature gate {other:?}: the embedded API server knows {}",
                    KNOWN.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// Reads kube-apiserver's flag form, `Name=true,Other=false`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut gates = Self::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part.split_once('=').ok_or_else(|| {
                format!("feature gate {part:?} has no value: write {part}=true or {part}=false")
            })?;
            let enabled = match value.trim() {
                "true" => true,
                "false" => false,
                other => {
                    return Err(format!(
                        "feature gate {name}: {other:?} is not true or false"
                    ));
                }
            };
            gates.set(name.trim(), enabled)?;
        }
        Ok(gates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_form_is_read_and_unknown_gates_refused() {
        assert!(!FeatureGates::default().sharded_list_and_watch);
        assert!(
            FeatureGates::parse("ShardedListAndWatch=true")
                .unwrap()
                .sharded_list_and_watch
        );
        assert!(
            !FeatureGates::parse("ShardedListAndWatch=false,")
                .unwrap()
                .sharded_list_and_watch
        );
        assert!(
            FeatureGates::parse("Nope=true")
                .unwrap_err()
                .contains("knows ShardedListAndWatch")
        );
        assert!(
            FeatureGates::parse("ShardedListAndWatch")
                .unwrap_err()
                .contains("has no value")
        );
        assert!(FeatureGates::parse("ShardedListAndWatch=yes").is_err());
    }
}
