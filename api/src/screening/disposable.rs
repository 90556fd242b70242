//! Disposable email domains: the CC0 list of the `disposable-email-domains` project,
//! shipped as `api/data/disposable_domains.txt` (one lowercase domain a line) and
//! refreshed with `scripts/refresh-disposable-domains`, which takes the list from that
//! project's mirror on the Python package index (a registry every developer machine
//! reaches). The list is compiled into the binary and parsed once.
//!
//! A domain matches when it, or any parent domain of it, is listed
//! (`x.mailinator.com` matches `mailinator.com`), since these services hand out
//! subdomains freely.

use std::collections::HashSet;
use std::sync::OnceLock;

const LIST: &str = include_str!("../../data/disposable_domains.txt");

fn set() -> &'static HashSet<&'static str> {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| LIST.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect())
}

/// Whether `domain` (already lowercase, as the email grammar leaves it) or a parent of
/// it is a disposable-mail domain.
pub fn is_disposable(domain: &str) -> bool {
    let set = set();
    let mut rest = domain;
    loop {
        if set.contains(rest) {
            return true;
        }
        match rest.split_once('.') {
            // Stop before the bare top-level domain.
            Some((_, parent)) if parent.contains('.') => rest = parent,
            _ => return false,
        }
    }
}

/// How many domains the shipped list holds (for the module's tests and the logs).
pub fn len() -> usize {
    set().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_disposable_domains_and_their_subdomains_match() {
        assert!(len() > 1000, "the shipped list is loaded");
        assert!(is_disposable("mailinator.com"));
        assert!(is_disposable("yopmail.com"));
        assert!(is_disposable("anything.mailinator.com"));
    }

    #[test]
    fn ordinary_providers_and_lookalikes_do_not() {
        for domain in ["gmail.com", "example.com", "outlook.com", "com", "mailinator.com.example.org"] {
            assert!(!is_disposable(domain), "{domain}");
        }
    }
}
