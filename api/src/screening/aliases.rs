//! One mailbox, many spellings: the alias rules of the providers that document them, as
//! a table. [`mailbox_key`] maps an address to its provider's canonical mailbox, and two
//! entries with the same key are flagged `possible_duplicate` (issue 15).
//!
//! | domains | folds to | dots | `+tag` | source |
//! |---|---|---|---|---|
//! | `gmail.com`, `googlemail.com` | `gmail.com` | ignored | dropped | Google: "Dots don't matter in Gmail addresses" (support.google.com/mail/answer/7436150); "Create task-specific email addresses" with `+` (support.google.com/a/users/answer/9308648); googlemail.com is the same account (support.google.com/mail/answer/10313) |
//! | `outlook.com`, `hotmail.com`, `live.com`, `msn.com` | itself | kept | dropped | Microsoft: "Plus addressing in Exchange Online", which Outlook.com consumer mail follows (learn.microsoft.com/exchange/recipients-in-exchange-online/plus-addressing-in-exchange-online) |
//! | `fastmail.com`, `fastmail.fm` | itself | kept | dropped | Fastmail: "Plus addressing and subdomain addressing" (fastmail.help, article 360058753794) |
//! | `proton.me`, `protonmail.com`, `protonmail.ch`, `pm.me` | itself | kept | dropped | Proton: "What are addresses and aliases?", `+` aliases (proton.me/support/addresses-and-aliases) |
//!
//! Decisions:
//! * Dots are folded on consumer Gmail only: Google Workspace domains keep dots
//!   meaningful per administrator, and no other provider here documents dot folding.
//! * Domains are never folded into each other except `googlemail.com` → `gmail.com`,
//!   the one pairing the provider documents as one account.
//! * The local part is compared in lowercase for these providers: their mailboxes are
//!   case-insensitive (the stored email keeps its case, as the grammar says).
//! * Every other domain has no key: the exact address is already unique per program,
//!   and guessing a provider's rules would flag strangers as duplicates. Yahoo's
//!   `-keyword` disposable addresses need a base name the address does not show, so
//!   they are not folded.

/// One provider's documented rules.
struct Rule {
    domains: &'static [&'static str],
    /// The domain every spelling folds to, when the provider documents several as one.
    canonical: Option<&'static str>,
    ignore_dots: bool,
    plus_tags: bool,
}

const RULES: &[Rule] = &[
    Rule {
        domains: &["gmail.com", "googlemail.com"],
        canonical: Some("gmail.com"),
        ignore_dots: true,
        plus_tags: true,
    },
    Rule {
        domains: &["outlook.com", "hotmail.com", "live.com", "msn.com"],
        canonical: None,
        ignore_dots: false,
        plus_tags: true,
    },
    Rule { domains: &["fastmail.com", "fastmail.fm"], canonical: None, ignore_dots: false, plus_tags: true },
    Rule {
        domains: &["proton.me", "protonmail.com", "protonmail.ch", "pm.me"],
        canonical: None,
        ignore_dots: false,
        plus_tags: true,
    },
];

/// The canonical mailbox of `email` (a normalized address: domain lowercase) under its
/// provider's rules, or `None` for a provider without rules in the table.
pub fn mailbox_key(email: &str) -> Option<String> {
    let (local, domain) = email.rsplit_once('@')?;
    let rule = RULES.iter().find(|r| r.domains.contains(&domain))?;
    let local = match rule.plus_tags {
        true => local.split_once('+').map_or(local, |(base, _)| base),
        false => local,
    };
    let mut local = local.to_ascii_lowercase();
    if rule.ignore_dots {
        local.retain(|c| c != '.');
    }
    if local.is_empty() {
        // `+tag@gmail.com` or `...@gmail.com` name no mailbox: compare them as typed.
        return Some(email.to_ascii_lowercase());
    }
    Some(format!("{local}@{}", rule.canonical.unwrap_or(domain)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_table_in_examples() {
        let cases = [
            ("John.Doe+news@gmail.com", Some("johndoe@gmail.com")),
            ("johndoe@googlemail.com", Some("johndoe@gmail.com")),
            ("j.o.h.n.doe@gmail.com", Some("johndoe@gmail.com")),
            ("john.doe+a+b@outlook.com", Some("john.doe@outlook.com")),
            ("john.doe@hotmail.com", Some("john.doe@hotmail.com")),
            ("ann+x@fastmail.com", Some("ann@fastmail.com")),
            ("ann+x@proton.me", Some("ann@proton.me")),
            ("ann+x@example.com", None),
            ("ann.b@yahoo.com", None),
            ("ann@gmail.com.example.org", None),
        ];
        for (email, key) in cases {
            assert_eq!(mailbox_key(email).as_deref(), key, "{email}");
        }
    }

    #[test]
    fn an_address_without_a_base_name_keys_as_itself() {
        assert_eq!(mailbox_key("+tag@gmail.com").as_deref(), Some("+tag@gmail.com"));
        assert_ne!(mailbox_key("+tag@gmail.com"), mailbox_key("+other@gmail.com"));
    }

    fn base() -> impl Strategy<Value = String> {
        "[a-z0-9][a-z0-9_]{0,15}"
    }

    /// `base` with a dot inserted after each position in `dots` (deduplicated, in range).
    fn dotted(base: &str, dots: &[usize]) -> String {
        let mut out = String::new();
        for (i, c) in base.chars().enumerate() {
            out.push(c);
            if i + 1 < base.len() && dots.contains(&i) {
                out.push('.');
            }
        }
        out
    }

    fn upper_some(s: &str, mask: u64) -> String {
        s.chars().enumerate().map(|(i, c)| if mask >> (i % 64) & 1 == 1 { c.to_ascii_uppercase() } else { c }).collect()
    }

    proptest! {
        #[test]
        fn gmail_spellings_of_one_mailbox_share_a_key(
            b in base(), dots in proptest::collection::vec(0usize..16, 0..4),
            tag in proptest::option::of("[a-z0-9.+-]{0,10}"), mask in any::<u64>(), googlemail in any::<bool>(),
        ) {
            let mut local = upper_some(&dotted(&b, &dots), mask);
            if let Some(tag) = &tag {
                local.push('+');
                local.push_str(tag);
            }
            let domain = if googlemail { "googlemail.com" } else { "gmail.com" };
            prop_assert_eq!(mailbox_key(&format!("{local}@{domain}")), Some(format!("{b}@gmail.com")));
        }

        #[test]
        fn plus_tags_fold_but_dots_count_where_only_tags_are_documented(
            b in base(), tag in "[a-z0-9]{1,8}", at in 0usize..16,
            domain in proptest::sample::select(vec!["outlook.com", "hotmail.com", "fastmail.com", "proton.me"]),
        ) {
            let plain = mailbox_key(&format!("{b}@{domain}"));
            prop_assert_eq!(mailbox_key(&format!("{b}+{tag}@{domain}")), plain.clone());
            let dotted = dotted(&b, &[at]);
            if dotted != b {
                prop_assert_ne!(mailbox_key(&format!("{dotted}@{domain}")), plain);
            }
        }

        #[test]
        fn other_domains_are_never_keyed(local in "[a-z0-9.+]{1,20}", domain in "[a-z]{1,10}\\.(org|net|io|de)") {
            prop_assert_eq!(mailbox_key(&format!("{local}@{domain}")), None);
        }

        #[test]
        fn a_key_is_its_own_key(local in "[A-Za-z0-9.+_-]{1,20}",
            domain in proptest::sample::select(vec!["gmail.com", "googlemail.com", "outlook.com", "pm.me"])) {
            if let Some(key) = mailbox_key(&format!("{local}@{domain}")) {
                prop_assert_eq!(mailbox_key(&key), Some(key.clone()));
            }
        }

        #[test]
        fn different_providers_never_share_a_key(b in base(),
            a in proptest::sample::select(vec!["gmail.com", "outlook.com", "hotmail.com", "fastmail.com", "proton.me"]),
            c in proptest::sample::select(vec!["gmail.com", "outlook.com", "hotmail.com", "fastmail.com", "proton.me"])) {
            prop_assume!(a != c);
            prop_assert_ne!(mailbox_key(&format!("{b}@{a}")), mailbox_key(&format!("{b}@{c}")));
        }
    }
}
