//! Edits of kustomization files: switching a commented-out entry on, and adding an entry to a
//! list that a project scaffolded by an older kubeforge may not have yet.

/// Makes sure the list `key` (a top-level key such as `resources:`) holds the entry `entry`
/// (e.g. `- ../webhook`): a commented-out `#- ../webhook` is switched on where it stands; an
/// entry that is missing altogether is added as the list's first item, after `key`. `None`
/// when the file has no `key` line.
pub fn switch_on(text: &str, key: &str, entry: &str) -> Option<String> {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    if lines.iter().any(|l| l.trim_end() == entry) {
        return Some(text.to_owned());
    }
    let commented = format!("#{entry}");
    if let Some(line) = lines.iter_mut().find(|l| l.trim_end() == commented) {
        *line = format!("{entry}\n");
        return Some(lines.concat());
    }
    let at = lines.iter().position(|l| l.trim_end() == key)?;
    lines.insert(at + 1, format!("{entry}\n"));
    Some(lines.concat())
}

/// Makes sure the top-level list `key` holds `entry`: added after the `key` line when the file
/// has one, otherwise appended as a new list at the end.
pub fn ensure_entry(text: &str, key: &str, entry: &str, comment: &str) -> String {
    if let Some(updated) = switch_on(text, key, entry) {
        return updated;
    }
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("\n{comment}{key}\n{entry}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_a_commented_entry_on() {
        let text = "resources:\n- ../crd\n#- ../webhook\n";
        assert_eq!(
            switch_on(text, "resources:", "- ../webhook").unwrap(),
            "resources:\n- ../crd\n- ../webhook\n"
        );
    }

    #[test]
    fn adds_a_missing_entry_once() {
        let text = "resources:\n- ../crd\n";
        let once = switch_on(text, "resources:", "- ../webhook").unwrap();
        assert_eq!(once, "resources:\n- ../webhook\n- ../crd\n");
        assert_eq!(
            switch_on(&once, "resources:", "- ../webhook").unwrap(),
            once
        );
        assert_eq!(switch_on(text, "patches:", "- path: x.yaml"), None);
    }

    #[test]
    fn appends_a_missing_list() {
        let text = "resources:\n- a.yaml";
        assert_eq!(
            ensure_entry(text, "configurations:", "- kustomizeconfig.yaml", "# c\n"),
            "resources:\n- a.yaml\n\n# c\nconfigurations:\n- kustomizeconfig.yaml\n"
        );
    }
}
