//! Scaffold markers in files edited by lines: `# +kubeforge:scaffold:<name>` in YAML and the
//! Makefile. Later commands insert lines just before them, idempotently. Rust files
//! (`// +kubeforge:scaffold:<name>`) are edited through their syntax tree instead
//! ([`super::rust::insert_at_marker`]).

/// Inserts `lines` just before the line holding `marker_line` (trimmed match), indented like
/// the marker. Lines already present in the text (trimmed match) are skipped, so running a
/// command twice inserts nothing the second time. Returns `None` when the marker is missing.
pub fn insert_before_marker(text: &str, marker_line: &str, lines: &[String]) -> Option<String> {
    let mut all: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let mut marker = all.iter().position(|l| l.trim() == marker_line)?;
    let indent: String = all[marker]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    for line in lines {
        if all.iter().any(|l| l.trim() == line.trim()) {
            continue;
        }
        all.insert(marker, format!("{indent}{line}\n"));
        marker += 1;
    }
    Some(all.concat())
}

/// Inserts `block` (several lines that belong together) just before the line holding
/// `marker_line`, each line indented like the marker. Unlike [`insert_before_marker`], the
/// block is skipped only when all its lines already stand together in the text (trimmed
/// match), so blocks that share lines such as `fieldPaths:` are still inserted. Returns `None`
/// when the marker is missing.
pub fn insert_block_before_marker(
    text: &str,
    marker_line: &str,
    block: &[String],
) -> Option<String> {
    let mut all: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    let marker = all.iter().position(|l| l.trim() == marker_line)?;
    let present = !block.is_empty()
        && all.windows(block.len()).any(|window| {
            window
                .iter()
                .zip(block)
                .all(|(have, want)| have.trim() == want.trim())
        });
    if present {
        return Some(text.to_owned());
    }
    let indent: String = all[marker]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let lines = block.iter().map(|line| {
        if line.is_empty() {
            "\n".to_owned()
        } else {
            format!("{indent}{line}\n")
        }
    });
    all.splice(marker..marker, lines);
    Some(all.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUSTOMIZATION: &str = "resources:\n- role.yaml\n# +kubeforge:scaffold:rbac\npatches:\n  - p.yaml\n  # +kubeforge:scaffold:patches\n";

    #[test]
    fn inserts_before_the_marker_with_its_indentation() {
        let out = insert_before_marker(
            KUSTOMIZATION,
            "# +kubeforge:scaffold:patches",
            &["- a.yaml".into(), "- b.yaml".into()],
        )
        .unwrap();
        assert_eq!(
            out,
            "resources:\n- role.yaml\n# +kubeforge:scaffold:rbac\npatches:\n  - p.yaml\n  - a.yaml\n  - b.yaml\n  # +kubeforge:scaffold:patches\n"
        );
    }

    #[test]
    fn is_idempotent() {
        let lines = vec!["- admin.yaml".to_string()];
        let once =
            insert_before_marker(KUSTOMIZATION, "# +kubeforge:scaffold:rbac", &lines).unwrap();
        let twice = insert_before_marker(&once, "# +kubeforge:scaffold:rbac", &lines).unwrap();
        assert_eq!(once, twice);
        assert_eq!(once.matches("- admin.yaml\n").count(), 1);
    }

    #[test]
    fn blocks_are_inserted_once_even_when_they_share_lines() {
        let text = "targets:\n  # +kubeforge:scaffold:x\n";
        let a: Vec<String> = vec![
            "- select:".into(),
            "    kind: A".into(),
            "  index: 0".into(),
        ];
        let b: Vec<String> = vec![
            "- select:".into(),
            "    kind: B".into(),
            "  index: 0".into(),
        ];
        let once = insert_block_before_marker(text, "# +kubeforge:scaffold:x", &a).unwrap();
        let both = insert_block_before_marker(&once, "# +kubeforge:scaffold:x", &b).unwrap();
        assert_eq!(
            both,
            "targets:\n  - select:\n      kind: A\n    index: 0\n  - select:\n      kind: B\n    index: 0\n  # +kubeforge:scaffold:x\n"
        );
        let again = insert_block_before_marker(&both, "# +kubeforge:scaffold:x", &a).unwrap();
        assert_eq!(again, both);
    }

    #[test]
    fn reports_a_missing_marker() {
        assert!(
            insert_before_marker(KUSTOMIZATION, "# +kubeforge:scaffold:crds", &["x".into()])
                .is_none()
        );
    }
}
