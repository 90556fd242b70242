//! Public admission (SPEC §6.2). Policy, in this order, all under workspace
//! `FOR KEY SHARE` → program `FOR UPDATE`: a program that is not public (inactive
//! workspace, no notice) is the same 404 as an unknown slug, as its `GET` is; then the
//! request key's receipt (the same binding replays, another is refused), then closed /
//! outdated notice / no choice, then the queue and hour caps (nothing written), then the
//! email (known → a receipt only), else the entry, the queue counter, the hour bucket,
//! the receipt and the `signup` event. Every accepted outcome — new entry, known email,
//! replayed key — is the same answer, and every cap the same refusal, so no answer tells
//! whether an email is on a list.
//!
//! Where it runs: the decisions are taken inside PostgreSQL, by the `admit_signups`
//! function of migrations V100 and V140, in exactly this order, in one round trip under
//! the locks (`db::signups::admit_batch`), for every signup on the programs of the
//! workspace that arrived at this instance while the previous batch committed
//! (`crate::group`: a lone signup goes at once, alone); each request gets its own
//! decision, as if the batch's requests had come one after another in arrival order. The
//! server compares a replayed key's binding in constant time and turns the outcome into
//! the answer. The `signup` events are chained and enqueued as the audit chain and outbox
//! triggers would (V100 and V140 say how).
//!
//! Flags (`crate::screening`): the disposable-domain check and the provider's mailbox key
//! are computed before the transaction and passed in; the entry insert stores them and
//! links the earliest entry with the same mailbox. They never change the answer.
//!
//! Proof of work (`crate::pow`): for a key without a committed receipt, the solution is
//! verified before anything is counted or written; inside the transaction, after the
//! receipt check, a signature already in `pow_spent` refuses the signup
//! (`challenge_failed`); the admission's writes record it, so a refused admission leaves
//! no row.
//!
//! Rate control: before the transaction, a key without a committed receipt counts one
//! hit for the client address (an HMAC of it, never the address) in a one-minute window
//! shared through PostgreSQL by every API instance. Replays of committed keys are not
//! counted, so a client retrying after a lost answer always gets its answer. The slug
//! lookup and the rate-limit hit use one pooled connection, given back before the
//! admission waits for its batch (which takes its own).

use crate::crypto;
use crate::db::rate_limits::{self, Scope};
use crate::db::signups::{self, Attempt, Decided};
use crate::db::{DbError, TxError};
use crate::group::Admitter;
use crate::metrics;
use crate::pow;
use crate::screening;
use chrono::DateTime;
use deadpool_postgres::Pool;
use shared::api::PowLevel;
use shared::questions::{check_answers, AnswerError, Answers, JoinWith};
use shared::{EmailKey, SourceRef};
use std::net::IpAddr;
use uuid::Uuid;

#[derive(Debug, thiserror::Error)]
pub enum AdmitError {
    #[error("no such program")]
    NotFound,
    #[error("request key reused with other fields")]
    KeyReused,
    #[error("sign-ups are closed")]
    Closed,
    #[error("the notice is outdated")]
    NoticeOutdated,
    #[error("the box was not ticked")]
    PermissionRequired,
    /// An answer to the notice's questions is refused; nothing was read under a lock or
    /// written.
    #[error(transparent)]
    InvalidAnswer(#[from] AnswerError),
    /// The program asks applicants to join signed in, with a verified address.
    #[error("the program asks applicants to sign in")]
    AccountRequired,
    #[error("a queue or hourly cap is reached")]
    Capped,
    /// The address's minute frees in `retry_after` seconds.
    #[error("too many new attempts from this address")]
    RateLimited { retry_after: u32 },
    #[error("the proof of work is missing, wrong, expired or used")]
    ChallengeFailed,
    #[error(transparent)]
    Db(#[from] DbError),
}

/// A unique violation means a writer got in around the locks: decide again, now seeing it.
impl TxError for AdmitError {
    fn retry(&self) -> bool {
        matches!(self, AdmitError::Db(DbError::Retry | DbError::Unique(_)))
    }
}

/// A signup as the domain sees it: the body's fields, parsed at the edge. `Debug` is
/// hand-written so the address can never reach a log, whatever `EmailKey` prints.
#[derive(Clone)]
pub struct NewSignup {
    pub request_key: Uuid,
    pub email: EmailKey,
    pub notice_version: i32,
    pub permission: bool,
    /// Where the applicant came from; not part of the binding (a retry from another
    /// link is still the same attempt).
    pub source: Option<SourceRef>,
    /// The solved challenge (ALTCHA payload); not part of the binding either: a replay
    /// needs none.
    pub altcha: Option<String>,
    /// The answers as sent; checked against the notice version's questions (and
    /// normalized) before anything is written, and then part of the binding.
    pub answers: Answers,
    /// The address is one the signed-in applicant's account has verified, looked up
    /// fresh for this request (`joinWith: "account"`); the public form's is not.
    pub verified: bool,
}

impl std::fmt::Debug for NewSignup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewSignup")
            .field("request_key", &self.request_key)
            .field("email", &"<redacted>")
            .field("notice_version", &self.notice_version)
            .field("permission", &self.permission)
            .field("source", &self.source)
            .field("answers", &self.answers.len())
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl NewSignup {
    /// The receipt binding: HMAC over length-prefixed (program, key, email, version,
    /// choice) and, when the applicant answered questions, the checked answers' canonical
    /// JSON (sorted keys; several choices in the notice's order) under another purpose
    /// tag. A signup without answers keeps the binding it always had, so keys committed
    /// before questions existed still replay.
    fn binding(&self, key: &[u8], program_id: Uuid, answers: &Answers) -> Vec<u8> {
        let (version, choice) = (self.notice_version.to_be_bytes(), [u8::from(self.permission)]);
        let mut parts: Vec<&[u8]> =
            vec![program_id.as_bytes(), self.request_key.as_bytes(), self.email.as_str().as_bytes(), &version, &choice];
        let canonical = serde_json::to_vec(answers).expect("answers serialize");
        match answers.is_empty() {
            true => crypto::binding(key, "signup-v1", &parts),
            false => {
                parts.push(&canonical);
                crypto::binding(key, "signup-v2", &parts)
            }
        }
    }
}

/// What an admission did; every one of them is the same answer to the applicant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// A new entry was created.
    Admitted,
    /// The email was known: a receipt points at the original entry, nothing else changed.
    Duplicate,
    /// The key was committed before with the same binding.
    Replay,
}

const RATE_WINDOW_SECS: i32 = 60;

/// What an admission is checked with besides the database: the server key (request
/// bindings, rate-limit subjects, proof-of-work signatures), the new-key attempts one
/// client address may make per minute, and the address this one comes from.
#[derive(Clone, Copy)]
pub struct Gate<'k> {
    pub key: &'k [u8],
    pub per_minute: u32,
    pub client: Option<IpAddr>,
    /// Where the address's counter stands after this attempt (a new key's only).
    pub meter: &'k super::metering::Meter,
    /// Where a new key's hit is counted, with the others on the same counter
    /// ([`crate::hits`]).
    pub hits: &'k crate::hits::Hits,
}

/// Admits one signup to the program `slug` through `gate` (see the module policy), in
/// whatever batch `admitter` forms for that program.
pub async fn sign_up(
    pool: &Pool,
    admitter: &Admitter,
    gate: Gate<'_>,
    slug: &str,
    signup: &NewSignup,
) -> Result<Admission, AdmitError> {
    let outcome = admit(pool, admitter, gate, slug, signup).await;
    metrics::count("admission", outcome_label(&outcome));
    outcome
}

async fn admit(
    pool: &Pool,
    admitter: &Admitter,
    gate: Gate<'_>,
    slug: &str,
    signup: &NewSignup,
) -> Result<Admission, AdmitError> {
    let (resolved, answers, spend, subject) = {
        let conn = pool.get().await.map_err(DbError::from)?;
        let resolved = signups::resolve(&conn, slug, signup.request_key, signup.notice_version)
            .await?
            .ok_or(AdmitError::NotFound)?;
        let committed = resolved.committed;
        let answers = checked_answers(&resolved, signup)?;
        // The receipt lookup comes first: a committed key replays without solving again.
        let spend = match committed {
            true => None,
            false => verify_work(gate.key, slug, signup, resolved.pow_level)?,
        };
        let addr = gate.client.map(|ip| ip.to_string()).unwrap_or_default();
        let subject = rate_limits::subject(gate.key, Scope::SignupAddr, &addr);
        if committed {
            // A replay is not counted; it says the same policy and where the address stands.
            let usage =
                rate_limits::standing(&conn, Scope::SignupAddr, &subject, RATE_WINDOW_SECS, gate.per_minute).await?;
            gate.meter.record(&[usage]);
        }
        (resolved, answers, spend, (!committed).then_some(subject))
    };
    // A new key's hit, counted with the others on the address's counter (the connection
    // above is back in the pool: the batch takes one of its own).
    if let Some(subject) = subject {
        match gate.hits.count(Scope::SignupAddr, subject, gate.per_minute, RATE_WINDOW_SECS).await? {
            Ok(counted) => gate.meter.record(&counted.usage),
            Err(refused) => {
                gate.meter.record(&refused.usage);
                return Err(AdmitError::RateLimited { retry_after: refused.retry_after });
            }
        }
    }
    let target = resolved.target;
    let binding = signup.binding(gate.key, target.program_id, &answers);
    let answers = serde_json::to_value(&answers).expect("answers serialize");
    let screening = screening::screen(&signup.email);
    let attempt = Attempt {
        request_key: signup.request_key,
        email: signup.email.as_str().to_owned(),
        notice_version: signup.notice_version,
        permission: signup.permission,
        binding: binding.clone(),
        source_ref: signup.source.as_ref().map(|s| SourceRef::as_str(s).to_owned()),
        disposable_domain: screening.disposable_domain,
        mailbox_key: screening.mailbox_key,
        // An expiry out of chrono's range falls back to the admission's clock, in SQL.
        pow: spend.map(|s| (s.signature.to_vec(), DateTime::from_timestamp(s.expires_at, 0))),
        answers,
        verified: signup.verified,
    };
    // The admission is one statement (V140's `admit_signups`) in one round trip, for the
    // whole batch; the batch retries a conflict itself.
    match admitter.admit(target, attempt).await? {
        Decided::NotFound => Err(AdmitError::NotFound),
        Decided::Receipt(stored) => match crypto::same_binding(&stored, &binding) {
            true => Ok(Admission::Replay),
            false => Err(AdmitError::KeyReused),
        },
        Decided::ChallengeFailed => Err(AdmitError::ChallengeFailed),
        Decided::Closed => Err(AdmitError::Closed),
        Decided::NoticeOutdated => Err(AdmitError::NoticeOutdated),
        Decided::PermissionRequired => Err(AdmitError::PermissionRequired),
        Decided::Capped => Err(AdmitError::Capped),
        Decided::Duplicate => Ok(Admission::Duplicate),
        Decided::Admitted => Ok(Admission::Admitted),
    }
}

/// What is decided before the transaction about who is asking: a program that asks
/// applicants to sign in refuses a new key from the public form (a committed key still
/// replays), and the answers are checked against the questions of the notice version the
/// applicant saw (versions never change, so this read needs no lock). A version the
/// program does not have is outdated (its answers cannot be checked); a committed key
/// goes on to its receipt.
fn checked_answers(resolved: &signups::Resolved, signup: &NewSignup) -> Result<Answers, AdmitError> {
    if !resolved.committed && resolved.join_with == JoinWith::Account && !signup.verified {
        return Err(AdmitError::AccountRequired);
    }
    match (&resolved.questions, resolved.committed) {
        (Some(questions), _) => Ok(check_answers(questions, &signup.answers)?),
        (None, true) => Ok(signup.answers.clone()),
        (None, false) => Err(AdmitError::NoticeOutdated),
    }
}

/// The solved challenge's check (`crate::pow`): one HMAC and one hash, before any write;
/// `None` when the program asks for no work.
fn verify_work(key: &[u8], slug: &str, signup: &NewSignup, level: PowLevel) -> Result<Option<pow::Spend>, AdmitError> {
    // A verified account is the stronger check: a signed-in join solves no puzzle.
    if pow::max_number(level).is_none() || signup.verified {
        return Ok(None);
    }
    let now = chrono::Utc::now().timestamp();
    match pow::verify(key, signup.altcha.as_deref(), slug, level, now) {
        Ok(spend) => Ok(Some(spend)),
        Err(refusal) => {
            tracing::info!(?refusal, "proof of work refused");
            Err(AdmitError::ChallengeFailed)
        }
    }
}

fn outcome_label(outcome: &Result<Admission, AdmitError>) -> &'static str {
    match outcome {
        Ok(Admission::Admitted) => "admitted",
        Ok(Admission::Duplicate) => "duplicate",
        Ok(Admission::Replay) => "replay",
        Err(AdmitError::Capped) => "capped",
        Err(AdmitError::RateLimited { .. }) => "rate_limited",
        Err(AdmitError::KeyReused) => "key_reused",
        Err(AdmitError::ChallengeFailed) => "challenge_failed",
        Err(AdmitError::Closed | AdmitError::NoticeOutdated | AdmitError::PermissionRequired) => "closed",
        Err(AdmitError::InvalidAnswer(_) | AdmitError::AccountRequired) => "refused",
        Err(AdmitError::NotFound | AdmitError::Db(_)) => "failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_of_a_signup_holds_no_address() {
        let signup = NewSignup {
            request_key: Uuid::nil(),
            email: EmailKey::parse("alice@example.com").unwrap(),
            notice_version: 3,
            permission: true,
            source: None,
            altcha: None,
            answers: [("why".to_owned(), shared::questions::Answer::Text("secret plans".into()))].into(),
            verified: false,
        };
        for shown in [format!("{signup:?}"), format!("{signup:#?}")] {
            assert!(!shown.contains("alice") && !shown.contains("example"), "{shown}");
            assert!(!shown.contains("secret"), "answers are personal data: {shown}");
            assert!(shown.contains("notice_version"), "{shown}");
        }
    }
}
