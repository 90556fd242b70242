//! The owner's queue, read in queue order — `(created_at, id)` ascending — paged by an
//! opaque keyset cursor and filtered; one entry with its notice snapshot; the export. Policy: the cursor holds
//! only a time and an id, never an email; entries are created under the program lock
//! with the clock read after it, so an entry added later sorts after every page
//! already read, and keyset paging neither repeats nor skips.

use super::programs::NoticeRow;
use super::Result;
use crate::domain::EntryState;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::{DateTime, Utc};
use deadpool_postgres::Transaction;
use shared::edge::EntryFlag;
use shared::questions::{Answers, Question};
use shared::queue::{InvitationFilter, EXPIRING_WITHIN_HOURS};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;
use uuid::Uuid;

/// Where a page ends: the last entry's (created_at, id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub created_at: DateTime<Utc>,
    pub id: Uuid,
}

impl Cursor {
    /// 8 bytes of microseconds since the epoch, then the 16 id bytes, base64url.
    pub fn encode(&self) -> String {
        let mut bytes = self.created_at.timestamp_micros().to_be_bytes().to_vec();
        bytes.extend_from_slice(self.id.as_bytes());
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub fn decode(s: &str) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(s).ok().filter(|b| b.len() == 24)?;
        let micros = i64::from_be_bytes(bytes[..8].try_into().ok()?);
        let created_at = DateTime::from_timestamp_micros(micros)?;
        Some(Cursor { created_at, id: Uuid::from_slice(&bytes[8..]).ok()? })
    }
}

/// One entry as the queue lists it.
#[derive(Debug, Clone)]
pub struct EntryRow {
    pub id: Uuid,
    pub email: String,
    pub state: EntryState,
    pub created_at: DateTime<Utc>,
    pub notice_version: i32,
    pub permission_at: DateTime<Utc>,
    /// The issued invitation, if any: when it expires, whether its delivery is recorded
    /// and when it was issued.
    pub invitation: Option<QueuedInvite>,
    pub source_ref: Option<String>,
    pub disposable_domain: bool,
    pub duplicate_of: Option<Uuid>,
    /// Its answers to its notice version's questions (V130's `entry_answers`; empty when
    /// none or redacted).
    pub answers: Answers,
    /// When it joined signed in with a verified address.
    pub verified_at_join: Option<DateTime<Utc>>,
}

/// An entry's issued invitation as the queue shows it.
#[derive(Debug, Clone, Copy)]
pub struct QueuedInvite {
    pub expires_at: DateTime<Utc>,
    /// Whether its delivery is recorded (only then can it be redeemed).
    pub sent: bool,
    pub issued_at: DateTime<Utc>,
}

/// An `entry_answers.answers` value: written only from checked answers.
pub fn answers_of(value: serde_json::Value) -> Answers {
    serde_json::from_value(value).expect("entry_answers.answers holds answers the server wrote")
}

impl EntryRow {
    pub fn flags(&self) -> Vec<EntryFlag> {
        let mut flags = Vec::new();
        if self.disposable_domain {
            flags.push(EntryFlag::DisposableDomain);
        }
        if self.duplicate_of.is_some() {
            flags.push(EntryFlag::PossibleDuplicate);
        }
        flags
    }
}

const ENTRY_COLUMNS: &str = "e.id, e.email_key, e.state, e.created_at, n.version, e.permission_at, \
                             i.expires_at, i.delivery_recorded_at IS NOT NULL, e.source_ref, e.disposable_domain, \
                             e.duplicate_of, coalesce(ea.answers, '{}'), ea.verified_at_join, i.issued_at";
/// How many columns [`ENTRY_COLUMNS`] names.
const ENTRY_WIDTH: usize = 14;
/// An entry with its notice and its issued invitation (at most one: `one_issued_invite_per_entry`).
const ENTRY_FROM: &str = "entries e JOIN notices n ON n.id = e.notice_id AND n.program_id = e.program_id \
                          LEFT JOIN invitations i ON i.entry_id = e.id AND i.state = 'issued' \
                          LEFT JOIN entry_answers ea ON ea.entry_id = e.id";

impl From<&Row> for EntryRow {
    fn from(r: &Row) -> Self {
        EntryRow {
            id: r.get(0),
            email: r.get(1),
            state: r.get::<_, &str>(2).parse::<EntryState>().expect("entries_state constraint"),
            created_at: r.get(3),
            notice_version: r.get(4),
            permission_at: r.get(5),
            invitation: r.get::<_, Option<DateTime<Utc>>>(6).map(|expires_at| QueuedInvite {
                expires_at,
                sent: r.get(7),
                issued_at: r.get(13),
            }),
            source_ref: r.get(8),
            disposable_domain: r.get(9),
            duplicate_of: r.get(10),
            answers: answers_of(r.get(11)),
            verified_at_join: r.get(12),
        }
    }
}

/// A page filter: state, a case-insensitive email fragment, the source (`?ref=`), a flag,
/// the live invitation's delivery or expiry (issue 19), and where to start.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub state: Option<EntryState>,
    pub email_fragment: Option<String>,
    pub source: Option<shared::SourceRef>,
    pub flag: Option<EntryFlag>,
    pub invitation: Option<InvitationFilter>,
    /// Only entries whose answer to the question (id) is, or includes, the choice.
    pub choice: Option<(String, String)>,
    /// Only entries that joined with a verified account (`true`) or not (`false`).
    pub verified: Option<bool>,
    pub after: Option<Cursor>,
}

/// An issued invitation with its entry and notice: where an invitation filter starts.
const ISSUED_FROM: &str = "invitations i JOIN entries e ON e.id = i.entry_id AND e.program_id = i.program_id \
                           AND i.state = 'issued' JOIN notices n ON n.id = e.notice_id AND n.program_id = e.program_id \
                           LEFT JOIN entry_answers ea ON ea.entry_id = e.id";

type Param = Box<dyn ToSql + Sync + Send>;

/// The statement for the entries a filter admits, in queue order. Only the filter's own
/// conditions are in it, so each combination is planned on its own index (the state,
/// source and flag indexes all end in the queue order). An invitation filter starts from
/// the program's issued invitations (`invite_program_issued_idx`: at most the seats in use
/// plus the expired ones not yet marked) and joins their entries, so it never walks the
/// queue; its clock is the one the transaction read from the database.
struct Filtered {
    sql: String,
    params: Vec<Param>,
}

impl Filtered {
    fn new(program_id: Uuid, filter: &Filter, now: DateTime<Utc>) -> Filtered {
        let from = if filter.invitation.is_some() { ISSUED_FROM } else { ENTRY_FROM };
        let sql = format!("SELECT {ENTRY_COLUMNS} FROM {from} WHERE e.program_id = $1");
        let mut q = Filtered { sql, params: vec![Box::new(program_id)] };
        if let Some(state) = filter.state {
            q.and("e.state = $?", vec![Box::new(state.as_str())]);
        }
        if let Some(fragment) = &filter.email_fragment {
            q.and(r"e.email_key ILIKE $? ESCAPE '\'", vec![Box::new(format!("%{}%", escape_like(fragment)))]);
        }
        if let Some(source) = &filter.source {
            q.and("e.source_ref = $?", vec![Box::new(source.as_str().to_owned())]);
        }
        match filter.flag {
            Some(EntryFlag::DisposableDomain) => q.and("e.disposable_domain", vec![]),
            Some(EntryFlag::PossibleDuplicate) => q.and("e.duplicate_of IS NOT NULL", vec![]),
            None => {}
        }
        if let Some((question, choice)) = &filter.choice {
            // A string answer equals the choice; a list contains it (jsonb containment).
            q.and("ea.answers -> $? @> to_jsonb($?::text)", vec![Box::new(question.clone()), Box::new(choice.clone())]);
        }
        match filter.verified {
            Some(true) => q.and("ea.verified_at_join IS NOT NULL", vec![]),
            Some(false) => q.and("ea.verified_at_join IS NULL", vec![]),
            None => {}
        }
        match filter.invitation {
            Some(InvitationFilter::Unsent) => {
                q.and("i.expires_at > $? AND i.delivery_recorded_at IS NULL", vec![Box::new(now)]);
            }
            Some(InvitationFilter::Expiring) => {
                let soon = now + chrono::Duration::hours(EXPIRING_WITHIN_HOURS);
                q.and("i.expires_at > $? AND i.expires_at <= $?", vec![Box::new(now), Box::new(soon)]);
            }
            None => {}
        }
        if let Some(after) = filter.after {
            q.and("(e.created_at, e.id) > ($?, $?)", vec![Box::new(after.created_at), Box::new(after.id)]);
        }
        q.sql.push_str(" ORDER BY e.created_at, e.id");
        q
    }

    /// Appends ` AND condition`, numbering its `$?` placeholders for `values` in order.
    fn and(&mut self, condition: &str, values: Vec<Param>) {
        let mut parts = condition.split("$?");
        self.sql.push_str(" AND ");
        self.sql.push_str(parts.next().unwrap_or_default());
        debug_assert_eq!(parts.clone().count(), values.len(), "one value per placeholder in {condition}");
        for (part, value) in parts.zip(values) {
            self.params.push(value);
            self.sql.push_str(&format!("${}{part}", self.params.len()));
        }
    }

    fn limit(mut self, limit: i64) -> Filtered {
        self.params.push(Box::new(limit));
        self.sql.push_str(&format!(" LIMIT ${}", self.params.len()));
        self
    }

    fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params.iter().map(|p| p.as_ref() as &(dyn ToSql + Sync)).collect()
    }
}

/// Up to `limit` entries after the cursor, in queue order; `now` is the transaction's clock.
pub async fn page(
    client: &Transaction<'_>,
    program_id: Uuid,
    filter: &Filter,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<EntryRow>> {
    let q = Filtered::new(program_id, filter, now).limit(limit);
    let stmt = client.prepare_cached(&q.sql).await?;
    let rows = client.query(&stmt, &q.params()).await?;
    Ok(rows.iter().map(EntryRow::from).collect())
}

/// `%`, `_` and `\` match themselves in the fragment.
fn escape_like(fragment: &str) -> String {
    fragment.chars().fold(String::with_capacity(fragment.len()), |mut out, c| {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// The entries `filter` admits (every entry, for the empty filter), in queue order (the
/// owner's export), read through one portal `batch` rows at a time and handed to `sink`
/// batch by batch, so the caller never holds more than a batch. Stops when `sink` answers
/// `false` (its reader has gone); answers whether every row was handed over. Call it
/// inside a snapshot (`db::snapshot`): the portal's rows then all come from one instant.
pub async fn export<F>(
    tx: &Transaction<'_>,
    program_id: Uuid,
    filter: &Filter,
    now: DateTime<Utc>,
    batch: i32,
    mut sink: F,
) -> Result<bool>
where
    F: AsyncFnMut(Vec<EntryRow>) -> bool,
{
    let q = Filtered::new(program_id, filter, now);
    let stmt = tx.prepare_cached(&q.sql).await?;
    let portal = tx.bind(&stmt, &q.params()).await?;
    loop {
        let rows = tx.query_portal(&portal, batch).await?;
        let last = rows.len() < usize::try_from(batch).unwrap_or(usize::MAX);
        if !rows.is_empty() && !sink(rows.iter().map(EntryRow::from).collect()).await {
            return Ok(false);
        }
        if last {
            return Ok(true);
        }
    }
}

/// The export's question columns: every question of the program's notice versions, by
/// id, newest version first (a question asked again keeps its newest label), so the CSV
/// has one column per question whichever version an entry answered.
pub async fn question_columns(tx: &Transaction<'_>, program_id: Uuid) -> Result<Vec<Question>> {
    let stmt = tx.prepare_cached("SELECT questions FROM notices WHERE program_id = $1 ORDER BY version DESC").await?;
    let mut columns: Vec<Question> = Vec::new();
    for row in tx.query(&stmt, &[&program_id]).await? {
        for q in super::programs::questions_of(row.get(0)) {
            if !columns.iter().any(|c| c.id == q.id) {
                columns.push(q);
            }
        }
    }
    Ok(columns)
}

/// One entry of the program with the notice it was admitted under.
pub async fn one(client: &Transaction<'_>, program_id: Uuid, id: Uuid) -> Result<Option<(EntryRow, NoticeRow)>> {
    let sql = format!(
        "SELECT {ENTRY_COLUMNS}, n.id, n.purpose, n.contact_text, n.retention_text, n.published_at, n.questions \
         FROM {ENTRY_FROM} WHERE e.id = $1 AND e.program_id = $2"
    );
    let stmt = client.prepare_cached(&sql).await?;
    Ok(client.query_opt(&stmt, &[&id, &program_id]).await?.map(|r| {
        let w = ENTRY_WIDTH;
        let notice = NoticeRow {
            id: r.get(w),
            version: r.get(4),
            purpose: r.get(w + 1),
            contact_text: r.get(w + 2),
            retention_text: r.get(w + 3),
            published_at: r.get(w + 4),
            questions: super::programs::questions_of(r.get(w + 5)),
        };
        (EntryRow::from(&r), notice)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_other_shapes() {
        let c =
            Cursor { created_at: DateTime::from_timestamp_micros(1_700_000_000_123_456).unwrap(), id: Uuid::new_v4() };
        assert_eq!(Cursor::decode(&c.encode()), Some(c));
        assert_eq!(Cursor::decode(""), None);
        assert_eq!(Cursor::decode("not a cursor"), None);
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode([0u8; 23])), None);
    }

    #[test]
    fn a_filter_puts_only_its_own_conditions_in_the_statement_numbered_in_order() {
        let now = DateTime::from_timestamp_micros(1_700_000_000_000_000).unwrap();
        let plain = Filtered::new(Uuid::nil(), &Filter::default(), now);
        assert!(plain.sql.ends_with("WHERE e.program_id = $1 ORDER BY e.created_at, e.id"), "{}", plain.sql);
        assert_eq!(plain.params.len(), 1);
        let after = Cursor { created_at: now, id: Uuid::nil() };
        let filter = Filter {
            state: Some(EntryState::Invited),
            flag: Some(EntryFlag::DisposableDomain),
            invitation: Some(InvitationFilter::Expiring),
            after: Some(after),
            ..Filter::default()
        };
        let q = Filtered::new(Uuid::nil(), &filter, now).limit(10);
        assert!(q.sql.contains(&format!("FROM {ISSUED_FROM} WHERE")), "starts from the issued invitations: {}", q.sql);
        assert!(q.sql.contains("e.state = $2 AND e.disposable_domain AND i.expires_at > $3 AND i.expires_at <= $4"));
        assert!(q.sql.ends_with("(e.created_at, e.id) > ($5, $6) ORDER BY e.created_at, e.id LIMIT $7"), "{}", q.sql);
        assert_eq!(q.params.len(), 7);
    }

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(escape_like(r"a%b_c\d"), r"a\%b\_c\\d");
    }
}
