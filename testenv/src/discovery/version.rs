//! Kubernetes version priority ordering (`v2` > `v1` > `v1beta2` > `v1beta1` > `v1alpha1` > `foo`).

use std::cmp::Ordering;

fn parse(v: &str) -> Option<(u64, u8, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let major: u64 = digits.parse().ok()?;
    let tail = &rest[digits.len()..];
    if tail.is_empty() {
        return Some((major, 2, 0));
    }
    let (stage, num) = if let Some(n) = tail.strip_prefix("beta") {
        (1, n)
    } else if let Some(n) = tail.strip_prefix("alpha") {
        (0, n)
    } else {
        return None;
    };
    Some((major, stage, num.parse().ok()?))
}

/// Compares two version names by Kubernetes priority (greater = preferred).
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    match (parse(a), parse(b)) {
        (Some((ma, sa, na)), Some((mb, sb, nb))) => sa.cmp(&sb).then(ma.cmp(&mb)).then(na.cmp(&nb)),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority() {
        let mut v = vec!["v1alpha1", "v1", "foo", "v2beta1", "v1beta2", "v2"];
        v.sort_by(|a, b| compare_versions(b, a));
        assert_eq!(v, vec!["v2", "v1", "v2beta1", "v1beta2", "v1alpha1", "foo"]);
    }
}
