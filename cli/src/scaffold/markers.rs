//! Scaffold markers: `// +kubeforge:scaffold:<name>` in Rust, `# +kubeforge:scaffold:<name>` in
//! YAML. Later commands insert lines just before them, idempotently.

/// Inserts `lines` just before the line holding `marker_line` (trimmed match), indented like
/// the marker. Lines already present in the text (trimmed match) are skipped, so running a
/// command twice inserts nothing the second time. A `pub mod` line joins the run of `pub mod`
/// lines just above the marker at its sorted place (the order rustfmt gives them). Returns
/// `None` when the marker is missing.
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
        let mut at = marker;
        if line.starts_with("pub mod ") {
            while at > 0
                && all[at - 1].trim_start().starts_with("pub mod ")
                && version_cmp(&module_key(&all[at - 1]), &module_key(line))
                    == std::cmp::Ordering::Greater
            {
                at -= 1;
            }
        }
        all.insert(at, format!("{indent}{line}\n"));
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

/// What rustfmt sorts a `pub mod` line by: the module's name, without the `r#` of a raw
/// identifier (`pub mod r#type;` sorts as `type`).
fn module_key(line: &str) -> String {
    let line = line.trim();
    let name = line.strip_prefix("pub mod ").unwrap_or(line);
    name.strip_prefix("r#").unwrap_or(name).to_owned()
}

/// Compares like rustfmt's version sort: runs of digits compare as numbers (`v2` < `v10`).
fn version_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (a, b) = (chunks(a), chunks(b));
    for (x, y) in a.iter().zip(&b) {
        let ordering = match (x, y) {
            ((true, x), (true, y)) => x
                .parse::<u128>()
                .unwrap_or(0)
                .cmp(&y.parse::<u128>().unwrap_or(0))
                .then(x.len().cmp(&y.len())),
            ((_, x), (_, y)) => x.cmp(y),
        };
        if ordering.is_ne() {
            return ordering;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: &str =
        "fn main() {\n    let m = 1;\n    // +kubeforge:scaffold:builder\n    run(m);\n}\n";

    #[test]
    fn inserts_before_the_marker_with_its_indentation() {
        let out = insert_before_marker(
            MAIN,
            "// +kubeforge:scaffold:builder",
            &["a();".into(), "b();".into()],
        )
        .unwrap();
        assert_eq!(
            out,
            "fn main() {\n    let m = 1;\n    a();\n    b();\n    // +kubeforge:scaffold:builder\n    run(m);\n}\n"
        );
    }

    #[test]
    fn is_idempotent() {
        let lines = vec!["a();".to_string()];
        let once = insert_before_marker(MAIN, "// +kubeforge:scaffold:builder", &lines).unwrap();
        let twice = insert_before_marker(&once, "// +kubeforge:scaffold:builder", &lines).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn keeps_module_declarations_sorted() {
        let text = "pub mod v1alpha1;\npub mod v2;\n// +kubeforge:scaffold:modules\n";
        let out = insert_before_marker(
            text,
            "// +kubeforge:scaffold:modules",
            &["pub mod v1;".into(), "pub mod v10;".into()],
        )
        .unwrap();
        assert_eq!(
            out,
            "pub mod v1;\npub mod v1alpha1;\npub mod v2;\npub mod v10;\n// +kubeforge:scaffold:modules\n"
        );
    }

    #[test]
    fn sorts_raw_module_names_by_their_name() {
        let text = "pub mod names;\npub mod self_;\n// +kubeforge:scaffold:modules\n";
        let out = insert_before_marker(
            text,
            "// +kubeforge:scaffold:modules",
            &["pub mod r#gen;".into(), "pub mod r#type;".into()],
        )
        .unwrap();
        assert_eq!(
            out,
            "pub mod r#gen;\npub mod names;\npub mod self_;\npub mod r#type;\n// +kubeforge:scaffold:modules\n"
        );
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
            insert_before_marker(MAIN, "// +kubeforge:scaffold:imports", &["x".into()]).is_none()
        );
    }
}
