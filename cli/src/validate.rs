//! The naming rules kubebuilder applies to its inputs (Kubernetes' DNS-1123 and DNS-1035 rules).

/// A value that breaks a naming rule; `rule` says which rule in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleViolation {
    /// The rule, in words, e.g. "a DNS-1123 label".
    pub rule: String,
}

const LABEL_MAX: usize = 63;
const SUBDOMAIN_MAX: usize = 253;

fn is_lower_alnum(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

fn label_ok(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= LABEL_MAX
        && value.chars().all(|c| is_lower_alnum(c) || c == '-')
        && value.starts_with(is_lower_alnum)
        && value.ends_with(is_lower_alnum)
}

/// A DNS-1123 label (RFC 1123): at most 63 lower-case letters, digits and '-', starting and
/// ending with a letter or digit. Kubernetes names of namespaces, and kubebuilder project names
/// and versions, follow it.
pub fn dns1123_label(value: &str) -> Result<(), RuleViolation> {
    if label_ok(value) {
        Ok(())
    } else {
        Err(RuleViolation {
            rule:
                "a DNS-1123 label: at most 63 characters, only lower-case letters, digits and '-', \
                   starting and ending with a letter or digit (e.g. 'my-name', '123-abc')"
                    .into(),
        })
    }
}

/// A DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123 labels. API groups
/// (`<group>.<domain>`) follow it.
pub fn dns1123_subdomain(value: &str) -> Result<(), RuleViolation> {
    if !value.is_empty() && value.len() <= SUBDOMAIN_MAX && value.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(RuleViolation {
            rule: "a DNS-1123 subdomain: at most 253 characters, lower-case letters, digits, '-' \
                   and '.', each dot-separated part starting and ending with a letter or digit \
                   (e.g. 'example.com')"
                .into(),
        })
    }
}

/// A DNS-1035 label (RFC 1035): like a DNS-1123 label, but starting with a letter. Resource
/// plurals follow it.
pub fn dns1035_label(value: &str) -> Result<(), RuleViolation> {
    if label_ok(value) && value.starts_with(|c: char| c.is_ascii_lowercase()) {
        Ok(())
    } else {
        Err(RuleViolation {
            rule: "a DNS-1035 label: at most 63 characters, only lower-case letters, digits and \
                   '-', starting with a letter and ending with a letter or digit (e.g. 'memcacheds')"
                .into(),
        })
    }
}

/// A Kind: an upper-case letter followed by letters and digits (CamelCase), whose lower-case
/// form is a DNS-1035 label, so it can name a resource.
pub fn kind(value: &str) -> Result<(), RuleViolation> {
    let camel = value.starts_with(|c: char| c.is_ascii_uppercase())
        && value.chars().all(|c| c.is_ascii_alphanumeric());
    if camel && dns1035_label(&value.to_ascii_lowercase()).is_ok() {
        Ok(())
    } else {
        Err(RuleViolation {
            rule: "a Kind: CamelCase, starting with an upper-case letter, then only letters and \
                   digits, at most 63 characters, its lower-case form a DNS-1035 label \
                   (e.g. 'Memcached', 'CronJob')"
                .into(),
        })
    }
}

/// Whether a version has the form Kubernetes sorts by: `v1`, `v1beta1`, `v2alpha3`.
pub fn is_kube_version(value: &str) -> bool {
    let Some(rest) = value.strip_prefix('v') else {
        return false;
    };
    let major_len = rest.chars().take_while(char::is_ascii_digit).count();
    if major_len == 0 || rest.starts_with('0') {
        return false;
    }
    let rest = &rest[major_len..];
    if rest.is_empty() {
        return true;
    }
    let Some(minor) = rest
        .strip_prefix("alpha")
        .or_else(|| rest.strip_prefix("beta"))
    else {
        return false;
    };
    !minor.is_empty() && minor.chars().all(|c| c.is_ascii_digit()) && !minor.starts_with('0')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for ok in ["a", "my-project", "abc123", "1abc", &"a".repeat(63)] {
            assert!(dns1123_label(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "a-", "A", "my_project", "a.b", &"a".repeat(64)] {
            assert!(dns1123_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn subdomains() {
        for ok in ["example.com", "cache.my.domain", "a"] {
            assert!(dns1123_subdomain(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".com",
            "a..b",
            "Example.com",
            "a_b.com",
            "a.",
            &"a.".repeat(127),
        ] {
            assert!(dns1123_subdomain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dns1035() {
        assert!(dns1035_label("memcacheds").is_ok());
        assert!(dns1035_label("1abc").is_err());
        assert!(dns1035_label("Abc").is_err());
    }

    #[test]
    fn kinds() {
        for ok in ["Memcached", "CronJob", "V1", "HTTPRoute"] {
            assert!(kind(ok).is_ok(), "{ok}");
        }
        for bad in [
            "memcached",
            "Mem-cached",
            "Mem_cached",
            "",
            "1Kind",
            &format!("A{}", "b".repeat(63)),
        ] {
            assert!(kind(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn versions() {
        for ok in ["v1", "v1beta1", "v2alpha3", "v10"] {
            assert!(is_kube_version(ok), "{ok}");
        }
        for odd in [
            "v0", "1", "v1gamma1", "v1beta", "v1beta0", "version1", "v01",
        ] {
            assert!(!is_kube_version(odd), "{odd}");
        }
    }
}
