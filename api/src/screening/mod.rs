//! Fakes flagged, not blocked (issue 15): what admission notes about an address before
//! its transaction opens, so the SQL side only stores values. Two flags an owner can
//! filter the queue on:
//!
//! * `disposable_domain` — the domain, or a parent of it, is on the disposable-domain
//!   list ([`disposable`]);
//! * `possible_duplicate` — another entry of the program is the same mailbox under the
//!   provider's documented alias rules ([`aliases`]). Admission computes the mailbox key
//!   here; the entry insert links the earliest entry with the same key, under the program
//!   lock, in the same statement.
//!
//! Policy: flags never change the applicant's answer (the same neutral 202), never block,
//! and never enter logs or events. The mailbox key is personal data like the email: it
//! is stored only for providers with alias rules and cleared by the database whenever
//! the email is replaced (retention redaction, V41's trigger).

pub mod aliases;
pub mod disposable;

use shared::EmailKey;

/// What admission stores with a new entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screening {
    pub disposable_domain: bool,
    /// The canonical mailbox, for providers with alias rules only.
    pub mailbox_key: Option<String>,
}

pub fn screen(email: &EmailKey) -> Screening {
    let domain = email.as_str().rsplit_once('@').map(|(_, d)| d).unwrap_or_default();
    Screening {
        disposable_domain: disposable::is_disposable(domain),
        mailbox_key: aliases::mailbox_key(email.as_str()),
    }
}
