//! The public edge's wire types (issue 15): entry flags and the bulk decline of flagged
//! entries. Re-exported from [`crate::api`] with the rest of the contract.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// What admission noticed about an address; flagged, never blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum EntryFlag {
    /// The domain is on the disposable-mail list.
    DisposableDomain,
    /// Another entry of the program is the same mailbox under its provider's alias rules
    /// (`duplicateOf` names the earliest).
    PossibleDuplicate,
}

impl EntryFlag {
    pub const ALL: [EntryFlag; 2] = [EntryFlag::DisposableDomain, EntryFlag::PossibleDuplicate];

    pub fn as_str(self) -> &'static str {
        match self {
            EntryFlag::DisposableDomain => "disposable_domain",
            EntryFlag::PossibleDuplicate => "possible_duplicate",
        }
    }
}

impl fmt::Display for EntryFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for EntryFlag {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        EntryFlag::ALL.into_iter().find(|f| f.as_str() == s).ok_or(())
    }
}

/// Most entries one bulk decline may move.
pub const DECLINE_FLAGGED_MAX: i32 = 1000;

/// `POST /api/owner/programs/{id}/entries/decline-flagged`: declines the first `count`
/// waiting entries carrying `flag`, in queue order, with one reason code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(feature = "openapi", schema(example = json!({"flag": "disposable_domain", "count": 10, "reasonCode": "not_eligible"})))]
pub struct DeclineFlaggedRequest {
    pub flag: EntryFlag,
    /// 1–[`DECLINE_FLAGGED_MAX`].
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1000))]
    pub count: i32,
    /// One of the decline reason codes.
    pub reason_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DeclineFlaggedResponse {
    /// The entries now declined, in queue order (fewer than asked when fewer were waiting).
    pub declined: Vec<Uuid>,
}

/// How much work a program's signup form asks of the applicant's browser (issue 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PowLevel {
    /// No challenge: the signup body needs no `altcha`.
    Off,
    /// A few hundred milliseconds on a phone, solved while the applicant types.
    #[default]
    Normal,
    /// About ten times `normal`, for a program under a bot wave.
    Strict,
}

impl PowLevel {
    pub const ALL: [PowLevel; 3] = [PowLevel::Off, PowLevel::Normal, PowLevel::Strict];

    pub fn as_str(self) -> &'static str {
        match self {
            PowLevel::Off => "off",
            PowLevel::Normal => "normal",
            PowLevel::Strict => "strict",
        }
    }
}

impl fmt::Display for PowLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for PowLevel {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        PowLevel::ALL.into_iter().find(|l| l.as_str() == s).ok_or(())
    }
}

/// `GET /api/public/programs/{slug}/challenge`: ALTCHA's challenge, field for field
/// (lowercase names, as ALTCHA clients expect them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Challenge {
    /// Always `"SHA-256"`.
    pub algorithm: String,
    /// hex(SHA-256(salt ‖ number)) for the secret number.
    pub challenge: String,
    /// The secret number is in `0..=maxnumber`.
    pub maxnumber: u64,
    /// Random, with the expiry, level and program as parameters after `?`.
    pub salt: String,
    /// hex(HMAC-SHA-256(server key, challenge)).
    pub signature: String,
}

/// Most origins one program's embedded form may be framed by.
pub const EMBED_ORIGINS_MAX: usize = 10;

/// An origin allowed to frame the embedded form, in the form browsers serialize it
/// (`https://host[:port]`, lowercase, no default port, no path): what goes into
/// `frame-ancestors` and what the frame compares a parent's origin with. Policy: `https`
/// only; with `allow_http_loopback` (never in production) also `http://localhost` and
/// `http://127.x.y.z`, for development and the browser tests. The grammar is narrow on
/// purpose — the value is written into a response header, so no space, `;`, `,` or quote
/// can ever reach it. `None` when the text is not such an origin.
pub fn parse_embed_origin(text: &str, allow_http_loopback: bool) -> Option<String> {
    let lower = text.trim().to_ascii_lowercase();
    let (scheme, rest) = lower.split_once("://")?;
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => {
            let valid = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
            let number: u32 = if valid { port.parse().ok()? } else { return None };
            if !(1..=65535).contains(&number) || port.starts_with('0') {
                return None;
            }
            (host, Some(number))
        }
        None => (rest, None),
    };
    let labels_ok = !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    if !labels_ok {
        return None;
    }
    let loopback = host == "localhost" || (host.starts_with("127.") && host.parse::<std::net::Ipv4Addr>().is_ok());
    let default_port = match scheme {
        "https" => 443,
        "http" if allow_http_loopback && loopback => 80,
        _ => return None,
    };
    Some(match port {
        Some(p) if p != default_port => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

/// The owner's list of embed origins, each parsed, duplicates dropped (first kept), at
/// most [`EMBED_ORIGINS_MAX`]. `None` when one is not an origin or there are too many.
pub fn parse_embed_origins(list: &[String], allow_http_loopback: bool) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for text in list {
        let origin = parse_embed_origin(text, allow_http_loopback)?;
        if !out.contains(&origin) {
            out.push(origin);
        }
    }
    (out.len() <= EMBED_ORIGINS_MAX).then_some(out)
}

#[cfg(test)]
mod embed_origin_tests {
    use super::*;

    #[test]
    fn origins_are_https_and_canonical() {
        let ok = |t: &str| parse_embed_origin(t, false);
        assert_eq!(ok("https://example.com").as_deref(), Some("https://example.com"));
        assert_eq!(ok(" HTTPS://WWW.Example.com ").as_deref(), Some("https://www.example.com"));
        assert_eq!(ok("https://example.com:443").as_deref(), Some("https://example.com"));
        assert_eq!(ok("https://example.com:8443").as_deref(), Some("https://example.com:8443"));
        assert_eq!(ok("https://93.184.216.34").as_deref(), Some("https://93.184.216.34"));
        for bad in [
            "http://example.com",
            "https://example.com/",
            "https://example.com/x",
            "https://user@example.com",
            "https://*.example.com",
            "https://example.com:0",
            "https://example.com:65536",
            "https://example.com:",
            "https://exa mple.com",
            "https://example.com; script-src *",
            "https://a.com https://b.com",
            "https://-a.com",
            "https://a..com",
            "example.com",
            "'self'",
            "*",
            "",
            "http://127.0.0.1:8080",
        ] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }

    #[test]
    fn loopback_http_only_when_allowed() {
        assert_eq!(parse_embed_origin("http://127.0.0.2:4010", true).as_deref(), Some("http://127.0.0.2:4010"));
        assert_eq!(parse_embed_origin("http://localhost", true).as_deref(), Some("http://localhost"));
        assert_eq!(parse_embed_origin("http://example.com", true), None);
        assert_eq!(parse_embed_origin("http://127.0.0.1.example.com", true), None);
    }

    #[test]
    fn lists_are_deduplicated_and_bounded() {
        let list = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_embed_origins(&list(&["https://a.com", "https://A.com:443", "https://b.com"]), false),
            Some(list(&["https://a.com", "https://b.com"]))
        );
        let eleven: Vec<String> = (0..11).map(|i| format!("https://h{i}.example")).collect();
        assert_eq!(parse_embed_origins(&eleven, false), None);
        assert_eq!(parse_embed_origins(&eleven[..10], false).map(|v| v.len()), Some(10));
        assert_eq!(parse_embed_origins(&list(&["https://a.com", "nope"]), false), None);
    }
}
