//! The email grammar (SPEC §6.5): one function for form input, the SPA and the identity
//! provider's values. It is deliberately narrower than RFC 5322; the form says so.
//! The normalized string (local part as typed, domain lowercased) is the identity key.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why an address was refused. Carries no part of the address, so it is safe to log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EmailError {
    #[error("the address must be 3 to 254 characters long")]
    Length,
    #[error("the address may only contain plain ASCII letters, digits and punctuation, without spaces")]
    Character,
    #[error("the address must contain exactly one @")]
    At,
    #[error("the part before @ is not accepted")]
    Local,
    #[error("the part after @ is not accepted")]
    Domain,
}

/// A normalized email address: the only way to build one is [`EmailKey::parse`].
/// `Debug` and `Display` are hand-written and redacted (see below).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EmailKey(String);

const LOCAL_SPECIALS: &[u8] = b".!#$%&'*+/=?^_`{|}~-";

impl EmailKey {
    /// Checks `input` against the grammar and returns its normalized form.
    pub fn parse(input: &str) -> Result<Self, EmailError> {
        let trimmed = input.trim_matches(' ');
        let bytes = trimmed.as_bytes();
        if bytes.iter().any(|b| !b.is_ascii() || b.is_ascii_control() || *b == b' ') {
            return Err(EmailError::Character);
        }
        if !(3..=254).contains(&bytes.len()) {
            return Err(EmailError::Length);
        }
        let mut parts = trimmed.split('@');
        let (Some(local), Some(domain), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(EmailError::At);
        };
        if !valid_local(local) {
            return Err(EmailError::Local);
        }
        if !valid_domain(domain) {
            return Err(EmailError::Domain);
        }
        Ok(EmailKey(format!("{local}@{}", domain.to_ascii_lowercase())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn valid_local(local: &str) -> bool {
    !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.bytes().all(|b| b.is_ascii_alphanumeric() || LOCAL_SPECIALS.contains(&b))
}

fn valid_domain(domain: &str) -> bool {
    domain.len() <= 253
        && domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// Whether `text` holds anything shaped like `local@domain` anywhere in it — a bare
/// address, `to:alice@example.com`, `mailto:…`, `alice@example.com.`, `<a@b.co>` or a
/// percent-encoded `%40`. Looser than the grammar on purpose (free text that must never
/// name a recipient, such as a delivery record): a local-part character right before an
/// `@` and a dotted host name right after it are enough, whatever surrounds them.
pub fn contains_address(text: &str) -> bool {
    let text = text.replace("%40", "@");
    let bytes = text.as_bytes();
    // A quoted local part (`"a b"@example.com`) ends in `"`.
    let local = |b: u8| b.is_ascii_alphanumeric() || b == b'"' || LOCAL_SPECIALS.contains(&b);
    let host = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
    bytes.iter().enumerate().filter(|(_, b)| **b == b'@').any(|(at, _)| {
        let before = at > 0 && local(bytes[at - 1]);
        let domain: &[u8] = &bytes[at + 1..];
        let run = domain.iter().take_while(|b| host(**b)).count();
        let labels = domain[..run].split(|b| *b == b'.').filter(|l| l.iter().any(u8::is_ascii_alphanumeric)).count();
        before && (labels >= 2 || domain.first() == Some(&b'['))
    })
}

impl TryFrom<String> for EmailKey {
    type Error = EmailError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        EmailKey::parse(&value)
    }
}

impl From<EmailKey> for String {
    fn from(value: EmailKey) -> Self {
        value.0
    }
}

/// Deliberately redacted: an email must never reach a log line through `{:?}` or `{}`.
impl fmt::Display for EmailKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<email>")
    }
}

/// Redacted like `Display`, so a derived `Debug` of any struct holding a key is safe too.
impl fmt::Debug for EmailKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EmailKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        EmailKey::parse(s).unwrap_or_else(|e| panic!("{s:?} refused: {e}")).0
    }
    fn err(s: &str) -> EmailError {
        EmailKey::parse(s).expect_err(s)
    }

    #[test]
    fn keeps_local_part_and_lowercases_domain() {
        assert_eq!(ok("Ann.Lee+x@Example.COM"), "Ann.Lee+x@example.com");
    }

    #[test]
    fn trims_ascii_spaces_only() {
        assert_eq!(ok("  a@b.co  "), "a@b.co");
        assert_eq!(err("\ta@b.co"), EmailError::Character);
        assert_eq!(err("a@b.co\n"), EmailError::Character);
        assert_eq!(err("a@b.co\u{a0}"), EmailError::Character);
    }

    #[test]
    fn refuses_inner_whitespace_control_and_non_ascii() {
        assert_eq!(err("a b@c.de"), EmailError::Character);
        assert_eq!(err("a\u{0}b@c.de"), EmailError::Character);
        assert_eq!(err("ä@c.de"), EmailError::Character);
        assert_eq!(err("a@bü.de"), EmailError::Character);
    }

    #[test]
    fn bounds_total_length() {
        assert_eq!(err("@b"), EmailError::Length);
        let long = format!("{}@{}.com", "a".repeat(64), "b".repeat(186));
        assert_eq!(long.len(), 255);
        assert_eq!(err(&long), EmailError::Length);
        let max = format!("{}@{}.{}.{}.com", "a".repeat(64), "b".repeat(61), "c".repeat(61), "d".repeat(61));
        assert_eq!(max.len(), 254);
        ok(&max);
    }

    #[test]
    fn needs_exactly_one_at() {
        assert_eq!(err("ab.cd"), EmailError::At);
        assert_eq!(err("a@b@c.de"), EmailError::At);
    }

    #[test]
    fn local_part_rules() {
        assert_eq!(err("@bcd.ef"), EmailError::Local);
        assert_eq!(err(".a@b.co"), EmailError::Local);
        assert_eq!(err("a.@b.co"), EmailError::Local);
        assert_eq!(err("a..b@b.co"), EmailError::Local);
        assert_eq!(err("a(b)@b.co"), EmailError::Local);
        assert_eq!(err("\"a\"@b.co"), EmailError::Local);
        assert_eq!(err(&format!("{}@b.co", "a".repeat(65))), EmailError::Local);
        ok(&format!("{}@b.co", "a".repeat(64)));
        ok("!#$%&'*+/=?^_`{|}~-@b.co");
    }

    #[test]
    fn domain_rules() {
        assert_eq!(err("a@localhost"), EmailError::Domain);
        assert_eq!(err("a@b..co"), EmailError::Domain);
        assert_eq!(err("a@.b.co"), EmailError::Domain);
        assert_eq!(err("a@b.co."), EmailError::Domain);
        assert_eq!(err("a@-b.co"), EmailError::Domain);
        assert_eq!(err("a@b-.co"), EmailError::Domain);
        assert_eq!(err("a@b_c.co"), EmailError::Domain);
        assert_eq!(err("a@[1.2.3.4]"), EmailError::Domain);
        assert_eq!(err(&format!("a@{}.co", "b".repeat(64))), EmailError::Domain);
        ok(&format!("a@{}.co", "b".repeat(63)));
        ok("a@b-c.d-e.co");
    }

    #[test]
    fn display_and_debug_never_show_the_address() {
        let key = EmailKey::parse("secret@example.com").unwrap();
        for shown in [format!("{key}"), format!("{key:?}"), format!("{key:#?}"), format!("{:?}", Some(vec![&key]))] {
            assert!(!shown.contains("secret") && !shown.contains("example"), "{shown}");
        }
    }

    #[test]
    fn finds_an_address_anywhere_in_free_text() {
        for text in [
            "alice@example.com",
            "to:alice@example.com",
            "mailto:alice@example.com",
            "alice@example.com.",
            "sent to <Alice@Example.COM>",
            "(alice@example.com)",
            "a..b@example.com",
            "alice%40example.com",
            "x@[192.0.2.1]",
            "\"alice\"@example.com",
        ] {
            assert!(contains_address(text), "{text}");
        }
        for text in ["email", "Slack DM @alice", "signal", "ticket #123", "@", "a@", "@example.com", "a@b", "a @ b.co"]
        {
            assert!(!contains_address(text), "{text}");
        }
    }

    #[test]
    fn serde_goes_through_the_grammar() {
        let key: EmailKey = serde_json::from_str("\" A@B.CO \"").unwrap();
        assert_eq!(key.as_str(), "A@b.co");
        assert!(serde_json::from_str::<EmailKey>("\"nope\"").is_err());
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]
            #[test]
            fn normalizing_is_idempotent(s in "[ -~]{0,80}") {
                if let Ok(key) = EmailKey::parse(&s) {
                    let again = EmailKey::parse(key.as_str()).expect("accepted output re-validates");
                    prop_assert_eq!(again, key);
                }
            }

            #[test]
            fn accepted_output_re_validates(local in "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,20}(\\.[A-Za-z0-9_-]{1,8}){0,2}",
                                            domain in "[A-Za-z0-9]{1,10}(-[A-Za-z0-9]{1,5})?(\\.[A-Za-z]{2,6}){1,3}") {
                let s = format!("{local}@{domain}");
                let key = EmailKey::parse(&s).expect("generated address is in the grammar");
                prop_assert_eq!(key.as_str(), format!("{local}@{}", domain.to_ascii_lowercase()));
                prop_assert_eq!(EmailKey::parse(key.as_str()).unwrap(), key);
            }

            #[test]
            fn never_panics_on_any_input(s in any::<String>()) {
                let _ = EmailKey::parse(&s);
            }
        }
    }
}
